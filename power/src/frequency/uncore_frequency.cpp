#include "rubato/power/frequency/uncore_frequency.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "rubato/power/state/restore_guard.hpp"
#include "rubato/power/state/state_file.hpp"
#include "os/sysfs_file.hpp"

namespace rubato {

UncoreFrequency::UncoreFrequency(Topology topology, std::string state_dir)
    : topology_(std::move(topology)), state_dir_(state_dir.empty() ? default_state_dir() : std::move(state_dir)) {}

UncoreFrequency::~UncoreFrequency() { restore(); }

bool UncoreFrequency::usable(std::string& why) {
  if (topology_.uncore_domains.empty()) {
    why = "no intel_uncore_frequency domains under " + topology_.sysfs_root +
          "/devices/system/cpu/intel_uncore_frequency (Intel only; modprobe intel_uncore_frequency, or "
          "intel_uncore_frequency_tpmi on newer Xeons)";
    return false;
  }
  for (const auto& u : topology_.uncore_domains)
    for (const char* f : kUncoreControlFiles)
      if (::access((u.dir + "/" + f).c_str(), W_OK) != 0) {
        why = u.dir + "/" + f + " is not writable (needs root)";
        return false;
      }
  if (prepare_state_dir(state_dir_, why)) return true;
  why = "cannot save machine state: " + why;
  return false;
}

bool UncoreFrequency::save(std::string& why) {
  if (plan_) return true;
  if (topology_.uncore_domains.empty()) {
    why = "no intel_uncore_frequency domains";
    return false;
  }
  if (!prepare_state_dir(state_dir_, why)) return false;
  MachineState state;
  state.sysfs_root = topology_.sysfs_root;
  state.pid = static_cast<std::int64_t>(getpid());
  state.backend = "uncore";
  for (const auto& u : topology_.uncore_domains) {
    SavedPolicy saved{u.dir, {}, SavedKind::uncore};
    for (const char* f : kUncoreControlFiles) {
      char buf[128];
      const long n = read_small((u.dir + "/" + f).c_str(), buf, sizeof buf);
      if (n < 0) {
        why = "cannot read " + u.dir + "/" + f;
        return false;
      }
      saved.content.emplace_back(buf, static_cast<std::size_t>(n));
    }
    state.policies.push_back(std::move(saved));
  }
  if (!validate_state(state, topology_.sysfs_root, why) ||
      !write_state_file(state_dir_, state, state_path_, why, "uncore"))
    return false;
  plan_ = std::make_unique<CpufreqRestorePlan>(state, state_path_);
  arm_restore(plan_.get());
  return true;
}

// min <= max after each write: raise max first when going up, lower min
// first when going down. When the second write fails, the first is undone.
bool UncoreFrequency::write_limits(const UncoreDomainInfo& u, long long khz, std::string& why) {
  const std::string min_path = u.dir + "/min_freq_khz", max_path = u.dir + "/max_freq_khz";
  const long long current_max = read_khz(max_path);
  const bool up = current_max >= 0 && khz > current_max;
  const std::string& first = up ? max_path : min_path;
  const std::string& second = up ? min_path : max_path;
  std::string before;
  const bool have_before = read_sysfs_value(first, before);
  const std::string text = std::to_string(khz);
  if (!write_text(first, text)) {
    why = first + ": cannot write " + text + " kHz";
    return false;
  }
  if (write_text(second, text)) return true;
  if (have_before) write_text(first, before);
  why = second + ": cannot write " + text + " kHz";
  return false;
}

double UncoreFrequency::set_domain(std::size_t i, double hz, std::string& why) {
  if (i >= topology_.uncore_domains.size()) {
    why = "no uncore domain " + std::to_string(i) + " (" + std::to_string(topology_.uncore_domains.size()) + " here)";
    return 0;
  }
  if (!save(why)) return 0;
  if (!plan_->begin_write()) {
    why = "the uncore limits were already given back";
    return 0;
  }
  const UncoreDomainInfo& u = topology_.uncore_domains[i];
  const long long lo = std::llround(u.initial_min_hz / 1e3), hi = std::llround(u.initial_max_hz / 1e3);
  const long long khz = std::clamp(std::llround(hz / 1e3), lo, std::max(lo, hi));
  const bool written = write_limits(u, khz, why);
  plan_->end_write();
  return written ? static_cast<double>(khz) * 1e3 : 0;
}

bool UncoreFrequency::pin(double hz, std::string& why) {
  if (pinned_hz_ > 0) {
    why = "the uncore is already pinned";
    return false;
  }
  if (!save(why)) return false;
  for (std::size_t i = 0; i < topology_.uncore_domains.size(); ++i) {
    const double set = set_domain(i, hz, why);
    if (set == 0) {
      restore();
      return false;
    }
    if (pinned_hz_ == 0) pinned_hz_ = set;
  }
  return true;
}

RestoreOutcome UncoreFrequency::restore() noexcept {
  if (!plan_ || restored_) return {};
  restored_ = true;
  return restore_and_disarm(*plan_, state_path_);
}

}  // namespace rubato
