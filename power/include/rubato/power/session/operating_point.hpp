// Where the min-energy controller says the run is: the uncore frequency now
// and the work's sensitivities now, written by the controller thread and
// read by any thread (the emulator, at a segment's end, to stretch the
// uncore-sensitive part of the work). Relaxed atomics; the two shares go
// into one word so that a reader never mixes two decisions.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>

#include "rubato/core/model/work_sensitivity.hpp"

namespace rubato {

class OperatingPoint {
 public:
  // The uncore frequency in force (Hz); 0: not controlled here (the hardware decides).
  double uncore_hz() const noexcept { return uncore_hz_.load(std::memory_order_relaxed); }
  // The fastest uncore level, which the time model's shares are relative to; 0: no uncore lever.
  double reference_uncore_hz() const noexcept { return reference_uncore_hz_.load(std::memory_order_relaxed); }
  // The work's sensitivities the last decision used; b_c 1, b_u 0 before the first.
  WorkSensitivity sensitivity() const noexcept {
    const std::uint64_t word = shares_.load(std::memory_order_relaxed);
    return {std::bit_cast<float>(static_cast<std::uint32_t>(word >> 32)),
            std::bit_cast<float>(static_cast<std::uint32_t>(word))};
  }

  void set_uncore_hz(double hz) noexcept { uncore_hz_.store(hz, std::memory_order_relaxed); }
  void set_reference_uncore_hz(double hz) noexcept { reference_uncore_hz_.store(hz, std::memory_order_relaxed); }
  void set_sensitivity(const WorkSensitivity& s) noexcept { shares_.store(pack(s), std::memory_order_relaxed); }

 private:
  static std::uint64_t pack(const WorkSensitivity& s) noexcept {
    return (std::uint64_t{std::bit_cast<std::uint32_t>(static_cast<float>(s.core))} << 32) |
           std::bit_cast<std::uint32_t>(static_cast<float>(s.uncore));
  }
  std::atomic<double> uncore_hz_{0};
  std::atomic<double> reference_uncore_hz_{0};
  std::atomic<std::uint64_t> shares_{pack({1.0, 0.0})};
};

}  // namespace rubato
