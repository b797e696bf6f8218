// The DVFS emulator (DESIGN.md "Emulator"): where frequency cannot be changed,
// a worker at frequency f follows each task segment of length d with
// d·β·(f_max/f − 1) of busy work on the same thread, so the program really runs
// slower and the scheduler really reacts. It is a model, and reports say so:
// energy comes from the power model, counting the stretched busy time at f.
#pragma once

#include <atomic>
#include <memory>

#include "rubato/power/domain_records.hpp"
#include "rubato/power/frequency_control.hpp"

namespace rubato {

// The busy time (ns) that stretches a segment of `duration_ns` run at the
// fastest frequency `max_hz` into one at `hz`: d·β·(max_hz/hz − 1), 0 when hz >= max_hz.
std::uint64_t emulated_stretch_ns(std::uint64_t duration_ns, double hz, double max_hz, double beta) noexcept;

// Spins on the calling thread until `ns` have passed (busy, never sleeps).
void burn_busy_ns(std::uint64_t ns) noexcept;

class EmulatedFrequency final : public FrequencyControl {
 public:
  // `machine_max_hz`: the machine's fastest frequency (the speed the host
  // really runs at), not the ladder's, so that `fixed:<f>` is slowed too.
  EmulatedFrequency(double beta, double machine_max_hz);

  std::string_view name() const noexcept override { return "emulated"; }
  bool usable(std::string& why) override;
  bool save(const DomainPlan& plan, std::string& why) override;
  RestoreOutcome restore() noexcept override { return {}; }
  bool changes_speed() const noexcept override { return true; }
  std::uint64_t applied_transitions(DomainId d) const noexcept override { return domains_.applied(d); }
  double added_busy_s(WorkerId w, Level level) const noexcept override;

  void domain_level_changed(DomainId domain, Level level, double hz, std::uint64_t now_ns) noexcept override;
  bool segment_end(WorkerId w, std::uint64_t duration_ns, double hz, double max_hz) noexcept override;
  bool stretches_at(double hz, double max_hz) const noexcept override;

  double beta() const noexcept { return beta_; }
  double machine_max_hz() const noexcept { return max_hz_; }

 private:
  // Written only by the worker itself; read at the end of the run.
  struct alignas(kCacheLine) WorkerSlot {
    std::atomic<std::uint64_t> added_ns[kMaxLevels]{};
  };

  double beta_;
  double max_hz_;
  TempoLadder ladder_{std::vector<double>{1e9}};
  std::size_t workers_ = 0;
  std::unique_ptr<WorkerSlot[]> slots_;
  DomainRecords domains_;
};

}  // namespace rubato
