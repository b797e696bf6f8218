// Dry run: records the engine's decisions and changes nothing. The program
// runs at whatever speed the machine gives it.
#pragma once

#include "rubato/power/frequency/domain_records.hpp"
#include "rubato/power/frequency/frequency_control.hpp"

namespace rubato {

class DryRunFrequency final : public FrequencyControl {
 public:
  std::string_view name() const noexcept override { return "dry-run"; }
  bool usable(std::string&) override { return true; }
  bool save(const DomainPlan& plan, std::string&) override {
    domains_.reset(plan.cpus_of_domain.size());
    return true;
  }
  RestoreOutcome restore() noexcept override { return {}; }
  bool changes_speed() const noexcept override { return false; }
  // Decisions recorded (a dry run "applies" every change by writing nothing).
  std::uint64_t applied_transitions(DomainId d) const noexcept override { return domains_.applied(d); }
  void domain_level_changed(DomainId domain, Level level, double hz, std::uint64_t) noexcept override {
    domains_.apply_at_once(domain, level, hz);
  }
  Level last_level(DomainId d) const noexcept { return domains_.valid(d) ? domains_.level(d) : -1; }

 private:
  DomainRecords domains_;
};

}  // namespace rubato
