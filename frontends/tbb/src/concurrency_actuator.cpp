#include "concurrency_actuator.hpp"

#include <algorithm>

namespace rubato::tbb::detail {

void ConcurrencyActuator::apply(std::span<const std::uint8_t> parked, double) noexcept {
  if (released_) return;
  const auto held =
      static_cast<std::size_t>(std::count_if(parked.begin(), parked.end(), [](std::uint8_t p) { return p != 0; }));
  const std::size_t ceiling = throttle_.ceiling();
  try {
    throttle_.set_limit(held >= ceiling ? 1 : ceiling - held);
  } catch (...) {
    // oneTBB could not make the control: the program runs unthrottled.
  }
}

void ConcurrencyActuator::release_all() noexcept {
  released_ = true;
  throttle_.release();
}

}  // namespace rubato::tbb::detail
