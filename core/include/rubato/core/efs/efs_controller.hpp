// The `efs` policy's periodic controller ([EFS] §4): every control interval,
// from that interval's counter readings, it estimates each running target's
// solo bus utilisation (Eqs. 18-19 → Eq. 9), predicts the next interval's
// (Eq. 20), and chooses the targets that run next: as EFS's task selection
// (§4.2, Fig. 5) one target after another, each admitted only while the
// admission threshold of the targets already chosen (Eqs. 10 + 16) lies above
// its predicted solo utilisation — one more running target must lower the
// energy per work (Eqs. 14-15) — and the longest starved waiting target
// (§4.3, Eqs. 21-23) runs first whatever the bus says. A target is a worker of
// a task runtime or a whole program of a `rubato run --mix`.
//
// Pure: the caller passes the readings and the time (a manual clock in tests,
// a replayed series, or the live counter sources in power/).
//
// Mapping EFS's CFS vocabulary onto targets:
//  - a target's vruntime is the CPU time it received (its measured busy time,
//    or the interval when the source does not measure it);
//  - workers each wait in their own queue (nc = 1: starvation is global only,
//    Eq. 23); the programs of a mix wait in one shared queue, as the threads of
//    one CFS core (Eq. 22 applies, and the least-vruntime waiting program is the
//    only starvation candidate), with a timeslice of t_period(np) (Eq. 21);
//  - one running target per core (§3.1): at most `cores` run at once;
//  - a running target that did not run (busy below `min_busy_fraction` of the
//    interval: an idle worker) is not counted on the bus and is left running.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rubato/core/counters/counter_sample.hpp"
#include "rubato/core/efs/efs_model.hpp"
#include "rubato/core/efs/efs_predictor.hpp"
#include "rubato/core/efs/efs_starvation.hpp"

namespace rubato::efs {

struct ControllerParams {
  double accesses_per_s = 0;                           // µ (Eq. 17): the profile's memory_accesses_per_s
  std::vector<double> power_w;                         // P0..Pn (Eq. 13)
  int cores = 1;                                       // most targets running at once (capped by the power table)
  double control_interval_s = 0.01;                    // the controller's period (bounds how late a decision can come)
  double predictor_window_s = kPaperPredictorWindowS;  // t0 (Eq. 20)
  StarvationParams starvation;                         // cl, cg (Eqs. 21-23)
  bool shared_queue = false;       // targets wait in one queue (programs of a mix); false: one each (workers)
  bool pooled_work = false;        // targets take work from one pool (a runtime's workers): a waiting
                                   // target's prediction follows what the running ones measured
  double min_busy_fraction = 0.1;  // below this share of the interval a running target was idle
  double alpha = 1.0;              // Eq. 12
};

struct TargetChange {
  std::uint64_t id = 0;
  bool parked = false;  // true: stops running; false: runs again
  std::string reason;
};

struct ControlStep {
  bool measured = false;       // this interval had the chip's memory accesses (U is known)
  double bus_utilisation = 0;  // U (Eq. 18)
  std::size_t running = 0;     // targets chosen to run
  std::size_t waiting = 0;     // targets held back
  std::vector<TargetChange> changes;
};

class EfsController {
 public:
  // Throws std::invalid_argument when µ is not positive, the power table is
  // invalid (efs_model.hpp) or has no P1, or cores < 1.
  explicit EfsController(ControllerParams params);

  // A target appears (running, with the initial prediction 1/cores, §4.1) or goes.
  void add_target(std::uint64_t id, double now_s);
  void remove_target(std::uint64_t id);

  // One control interval ended at now_s; `sample` holds its readings (thread
  // ids = target ids). Returns which targets start or stop waiting, and why.
  ControlStep step(const counters::CounterSample& sample, double now_s);

  bool parked(std::uint64_t id) const noexcept;
  std::optional<double> prediction(std::uint64_t id) const noexcept;  // B (Eq. 20)
  std::vector<std::uint64_t> target_ids() const;
  // The longest a parked target may wait on its own, for actuators: the global
  // starvation threshold (Eq. 23), the Eq. 24 bound on top, and two intervals
  // for the controller to notice and act.
  double wait_bound_s() const noexcept;
  const ControllerParams& params() const noexcept { return params_; }

 private:
  struct Target {
    std::uint64_t id = 0;
    SoloBandwidthPredictor predictor{kPaperPredictorWindowS, 1.0};
    bool parked = false;
    bool idle = false;  // running but did not run last interval
    double vruntime_s = 0;
    double parked_since_s = 0;   // when it last stopped running
    double running_since_s = 0;  // when it last started running
    double forced_until_s = -1;  // starvation timeslice (§4.3) ends
  };

  void measure(const counters::CounterSample& sample, double interval_s, ControlStep& out);
  std::vector<std::size_t> candidate_order(double now_s);
  std::string admission_reason(const std::vector<double>& chosen, double candidate, bool& admit) const;

  ControllerParams params_;
  PowerTable power_;
  std::vector<Target> targets_;
  std::optional<double> last_step_s_;
};

}  // namespace rubato::efs
