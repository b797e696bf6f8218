// Memory-bus contention by the EFS model ([EFS] §3.1): the segments running
// at one instant with solo utilisations b_1..b_n get the utilisations u_i that
// solve Eq. 10 (core's efs::predict_utilisations) and run at speed
// Slowdown_i = u_i / b_i (Eq. 11). Segments with b_i = 0 do not use the bus and
// run at full speed. Solutions are cached by the sorted set of b_i, so a run
// whose running set takes few distinct shapes solves Eq. 10 once per shape.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "rubato/sim/contention.hpp"

namespace rubato::sim {

class EfsContention final : public ContentionModel {
 public:
  // Distinct running sets remembered; beyond it the cache starts over.
  static constexpr std::size_t kCacheLimit = 4096;

  bool active() const noexcept override { return true; }
  // Throws std::runtime_error when Eq. 10 has no solution for the set (Newton
  // did not converge), naming the set.
  void speeds(std::span<const double> solo_bus, std::span<double> speeds) const override;
  // b clamped to [0, efs::kMaxSoloUtilisation]: Eq. 10 needs b_i < 1.
  double solo_in_model(double solo_bus) const noexcept override;

  std::uint64_t solves() const noexcept { return solves_; }    // Eq. 10 systems solved
  std::uint64_t lookups() const noexcept { return lookups_; }  // sets answered from the cache

 private:
  mutable std::map<std::vector<double>, std::vector<double>> cache_;  // sorted b -> speeds in that order
  mutable std::vector<double> key_;
  mutable std::vector<std::size_t> order_;
  mutable std::uint64_t solves_ = 0, lookups_ = 0;
};

}  // namespace rubato::sim
