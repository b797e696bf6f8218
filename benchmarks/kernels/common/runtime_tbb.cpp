#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <optional>

#include "runtime.hpp"
#include "tbb_api.hpp"

namespace kernels {

namespace {

std::optional<::tbb::global_control> thread_limit(int threads) {
  if (threads <= 0) return std::nullopt;
  return std::optional<::tbb::global_control>(std::in_place, ::tbb::global_control::max_allowed_parallelism,
                                              static_cast<std::size_t>(threads));
}

}  // namespace

struct RuntimeScope::State {
  explicit State(int threads) : limit(thread_limit(threads)) {}
  std::optional<::tbb::global_control> limit;
#ifdef RUBATO_KERNELS_INSTRUMENTED
  // Constructed after the limit, so that it observes the arena the kernel
  // uses; writes rubato's report at the end (rubato::tbb's RAII observer).
  ::rubato::tbb::observer observer;
#endif
};

RuntimeScope::RuntimeScope(int threads) : state_(std::make_unique<State>(threads)) {}

RuntimeScope::~RuntimeScope() = default;

int RuntimeScope::threads() const noexcept {
  const auto allowed = ::tbb::global_control::active_value(::tbb::global_control::max_allowed_parallelism);
  return static_cast<int>(
      std::min<std::size_t>(allowed, static_cast<std::size_t>(::tbb::this_task_arena::max_concurrency())));
}

const char* RuntimeScope::name() noexcept {
#ifdef RUBATO_KERNELS_INSTRUMENTED
  return "tbb_rubato";
#else
  return "tbb";
#endif
}

}  // namespace kernels
