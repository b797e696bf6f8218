// rubato::tbb::parallel_for: every split is a push by the splitting worker and
// every body call the pop or steal of its piece. A range type of the test's
// own records the splitter; the body records the runner. Exact agreement at
// 1, 2, 4 and 8 threads for oneTBB's auto, simple and static partitioners.
#include <catch2/catch.hpp>
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>

#include <atomic>
#include <vector>

#include "ground_truth.hpp"
#include "rubato/tbb/parallel_for.hpp"

namespace {

using rubato::test::GroundTruth;
using rubato::test::this_worker;

// A blocked_range that remembers which worker split it off (or created it).
class RecordedRange {
 public:
  RecordedRange(long begin, long end, long grain)
      : r_(begin, end, static_cast<std::size_t>(grain)), by_(this_worker()) {}
  RecordedRange(RecordedRange& other, ::tbb::split s) : r_(other.r_, s), by_(this_worker()) {}
  RecordedRange(RecordedRange& other, ::tbb::proportional_split& p) : r_(other.r_, p), by_(this_worker()) {}
  bool empty() const { return r_.empty(); }
  bool is_divisible() const { return r_.is_divisible(); }
  long begin() const { return r_.begin(); }
  long end() const { return r_.end(); }
  int spawned_by() const { return by_; }

 private:
  ::tbb::blocked_range<long> r_;
  int by_;
};

constexpr long kN = 20000;
constexpr long kGrain = 16;

long expected_sum() { return kN * (kN - 1) / 2; }

template <class Partitioner>
void check_partitioner(int threads, const Partitioner& partitioner) {
  GroundTruth gt(static_cast<std::size_t>(kN / kGrain) * 4 + 16);
  std::vector<std::atomic<int>> hits(static_cast<std::size_t>(kN));
  std::atomic<long> sum{0};
  const rubato::Report r = rubato::test::run_observed(threads, rubato::test::quiet_env(), [&] {
    rubato::tbb::parallel_for(
        RecordedRange(0, kN, kGrain),
        [&](const RecordedRange& piece) {
          gt.ran_piece(piece.spawned_by());
          long s = 0;
          for (long i = piece.begin(); i < piece.end(); ++i) {
            s += i;
            hits[static_cast<std::size_t>(i)].fetch_add(1);
          }
          sum += s;
        },
        partitioner);
  });
  CHECK(sum.load() == expected_sum());
  bool each_once = true;
  for (const auto& h : hits) each_once = each_once && h.load() == 1;
  CHECK(each_once);
  rubato::test::check_exact(r, gt);
}

}  // namespace

TEST_CASE("Tbb.GroundTruth.ParallelForAutoPartitioner", "[tbb]") {
  const int threads = GENERATE(1, 2, 4, 8);
  INFO(threads << " threads");
  check_partitioner(threads, ::tbb::auto_partitioner());
}

TEST_CASE("Tbb.GroundTruth.ParallelForSimplePartitioner", "[tbb]") {
  const int threads = GENERATE(1, 2, 4, 8);
  INFO(threads << " threads");
  check_partitioner(threads, ::tbb::simple_partitioner());
}

TEST_CASE("Tbb.GroundTruth.ParallelForStaticPartitioner", "[tbb]") {
  const int threads = GENERATE(1, 2, 4, 8);
  INFO(threads << " threads");
  check_partitioner(threads, ::tbb::static_partitioner());
}

// blocked_range itself, an affinity_partitioner reused across loops, and the
// index form: results as plain oneTBB, every queued piece started once.
TEST_CASE("Tbb.ParallelFor.BlockedRangeAndIndexForms", "[tbb]") {
  const int threads = GENERATE(1, 4);
  INFO(threads << " threads");
  std::vector<long> out(5000, 0);
  std::atomic<long> sum{0};
  const rubato::Report r = rubato::test::run_observed(threads, rubato::test::quiet_env(), [&] {
    ::tbb::affinity_partitioner affinity;
    for (int pass = 0; pass < 3; ++pass)
      rubato::tbb::parallel_for(
          ::tbb::blocked_range<std::size_t>(0, out.size()),
          [&](const ::tbb::blocked_range<std::size_t>& b) {
            for (std::size_t i = b.begin(); i < b.end(); ++i) out[i] += static_cast<long>(i);
          },
          affinity);
    rubato::tbb::parallel_for(0L, 1000L, 3L, [&](long i) { sum += i; });
    rubato::tbb::parallel_for(5, 5, [&](int) { sum += 1000000; });  // empty: nothing runs
  });
  for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i] == 3 * static_cast<long>(i));
  long expected = 0;
  for (long i = 0; i < 1000; i += 3) expected += i;
  CHECK(sum.load() == expected);
  const auto t = rubato::test::totals(r);
  CHECK(t.pushes > 0);
  CHECK(t.pushes == t.pops + t.steals);
  CHECK(t.completed == t.pushes);
  CHECK(t.steals == t.stolen_from);
}
