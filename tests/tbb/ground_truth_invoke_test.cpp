// Nested rubato::tbb::parallel_invoke with 2, 3, 4 and 5 functors per call: the
// caller pushes every functor, each starts as its pop or steal; exact agreement
// with the program's own record, results as plain oneTBB.
#include <catch2/catch.hpp>
#include <oneapi/tbb/parallel_invoke.h>

#include <atomic>

#include "ground_truth.hpp"
#include "rubato/tbb/parallel_invoke.hpp"

namespace {

using rubato::test::GroundTruth;

// A tree whose nodes have 2 + depth % 4 children; leaves add their path value.
template <bool Instrumented>
void tree(int depth, long path, std::atomic<long>& sum, GroundTruth* gt) {
  if (depth == 0) {
    sum += path;
    return;
  }
  auto child = [&, depth, path](long k) {
    const std::size_t id = gt ? gt->spawn() : 0;
    return [&, depth, path, k, id] {
      if (gt) gt->ran(id);
      tree<Instrumented>(depth - 1, path * 5 + k, sum, gt);
    };
  };
  auto invoke = [](const auto&... fs) {
    if constexpr (Instrumented) rubato::tbb::parallel_invoke(fs...);
    else ::tbb::parallel_invoke(fs...);
  };
  switch (depth % 4) {
    case 0: invoke(child(0), child(1)); break;
    case 1: invoke(child(0), child(1), child(2)); break;
    case 2: invoke(child(0), child(1), child(2), child(3)); break;
    default: invoke(child(0), child(1), child(2), child(3), child(4)); break;
  }
}

}  // namespace

TEST_CASE("Tbb.GroundTruth.NestedParallelInvoke", "[tbb]") {
  const int threads = GENERATE(1, 2, 4, 8);
  const int depth = 7;
  INFO(threads << " threads");
  GroundTruth gt(200000);
  std::atomic<long> sum{0};
  const rubato::Report r =
      rubato::test::run_observed(threads, rubato::test::quiet_env(), [&] { tree<true>(depth, 1, sum, &gt); });
  std::atomic<long> plain{0};
  {
    ::tbb::global_control limit(::tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
    ::tbb::task_arena arena(threads);
    arena.execute([&] { tree<false>(depth, 1, plain, nullptr); });
  }
  CHECK(sum.load() == plain.load());
  CHECK(gt.tasks() > 1000);
  rubato::test::check_exact(r, gt);
}
