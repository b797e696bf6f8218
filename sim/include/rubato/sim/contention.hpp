// Memory-bus contention between running tasks: the seam where the EFS model
// ([EFS] §3, Eqs. 9-11) plugs into the simulator. A model maps the
// solo bus utilisations b_i of the segments running at one instant to each
// one's speed relative to running alone ([EFS] Eq. 11: u_i / b_i).
#pragma once

#include <span>

namespace rubato::sim {

class ContentionModel {
 public:
  virtual ~ContentionModel() = default;
  // False when every speed is always 1: the simulator then skips recomputing
  // speeds whenever the set of running segments changes (O(workers) each time).
  virtual bool active() const noexcept = 0;
  // speeds[i] in (0, 1] for the segment with solo utilisation solo_bus[i].
  virtual void speeds(std::span<const double> solo_bus, std::span<double> speeds) const = 0;
  // The solo utilisation the model actually uses for `solo_bus` (a model may
  // clamp it to its range); a segment running at speed s then occupies
  // s * solo_in_model(b) of the bus ([EFS] Eq. 4: u_i = b_i t_solo / t_parallel),
  // which is what the simulated memory counters count.
  virtual double solo_in_model(double solo_bus) const noexcept { return solo_bus; }
};

// No shared bottleneck: every task runs as fast as alone.
class NoContention final : public ContentionModel {
 public:
  bool active() const noexcept override { return false; }
  void speeds(std::span<const double>, std::span<double> out) const override {
    for (double& s : out) s = 1.0;
  }
};

}  // namespace rubato::sim
