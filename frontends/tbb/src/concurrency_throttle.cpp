#include "rubato/tbb/concurrency_throttle.hpp"

#include <algorithm>

namespace rubato::tbb {
namespace {

std::size_t limit_in_force() {
  return ::tbb::global_control::active_value(::tbb::global_control::max_allowed_parallelism);
}

}  // namespace

concurrency_throttle::concurrency_throttle() : ceiling_(limit_in_force()), limit_(ceiling_) {}

concurrency_throttle::concurrency_throttle(std::size_t ceiling)
    : ceiling_(std::clamp<std::size_t>(ceiling, 1, std::max<std::size_t>(1, limit_in_force()))), limit_(ceiling_) {}

std::size_t concurrency_throttle::set_limit(std::size_t threads) {
  const std::size_t target = std::clamp<std::size_t>(threads, 1, ceiling_);
  if (target == limit_) return limit_;
  // A global_control cannot be changed, only replaced; the new one is in force
  // before the old one goes, so the limit never jumps to the ceiling between.
  std::unique_ptr<::tbb::global_control> next;
  if (target < ceiling_)
    next = std::make_unique<::tbb::global_control>(::tbb::global_control::max_allowed_parallelism, target);
  control_.swap(next);
  limit_ = target;
  return limit_;
}

void concurrency_throttle::release() noexcept {
  control_.reset();
  limit_ = ceiling_;
}

}  // namespace rubato::tbb
