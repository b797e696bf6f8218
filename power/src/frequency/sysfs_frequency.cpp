#include "rubato/power/frequency/sysfs_frequency.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include "rubato/power/state/restore_guard.hpp"
#include "rubato/power/state/state_file.hpp"
#include "os/sysfs_file.hpp"

namespace rubato {
namespace {

std::string file(const ClockDomainInfo& p, const char* name) { return p.policy_dir + "/" + name; }

// Sets [min, max] keeping min <= max after each write (kernel rule).
bool write_limits(const ClockDomainInfo& p, long long min_khz, long long max_khz) {
  const long long current_max = read_khz(file(p, "scaling_max_freq"));
  const std::string lo = std::to_string(min_khz), hi = std::to_string(max_khz);
  if (current_max >= 0 && min_khz > current_max)
    return write_text(file(p, "scaling_max_freq"), hi) && write_text(file(p, "scaling_min_freq"), lo);
  return write_text(file(p, "scaling_min_freq"), lo) && write_text(file(p, "scaling_max_freq"), hi);
}

}  // namespace

CpufreqMethod cpufreq_method_of(const ClockDomainInfo& p) noexcept {
  if (std::find(p.governors.begin(), p.governors.end(), "userspace") != p.governors.end())
    return CpufreqMethod::setspeed;
  // Active mode: the driver (and the hardware) choose within the limits.
  if (p.driver == "intel_pstate" || p.driver == "amd-pstate-epp") return CpufreqMethod::pin;
  return CpufreqMethod::none;
}

const char* to_string(CpufreqMethod m) noexcept {
  switch (m) {
    case CpufreqMethod::setspeed: return "userspace setspeed";
    case CpufreqMethod::pin: return "pin min=max";
    case CpufreqMethod::none: break;
  }
  return "none";
}

long long cpufreq_target_khz(const ClockDomainInfo& policy, double hz, long long min_khz, long long max_khz) {
  double target = hz;
  if (!policy.available_hz.empty()) {
    target = policy.available_hz.front();
    for (double f : policy.available_hz)
      if (std::fabs(f - hz) < std::fabs(target - hz)) target = f;
  }
  const long long khz = std::llround(target / 1e3);
  return std::clamp(khz, min_khz, std::max(min_khz, max_khz));
}

SysfsFrequency::SysfsFrequency(Topology topology, double min_dwell_s, std::string state_dir, std::string backend_name)
    : name_(std::move(backend_name)),
      topology_(std::move(topology)),
      min_dwell_s_(min_dwell_s),
      state_dir_(state_dir.empty() ? default_state_dir() : std::move(state_dir)) {}

SysfsFrequency::~SysfsFrequency() { restore(); }

bool SysfsFrequency::method_for(const ClockDomainInfo& p, Method& method, std::string& why) const {
  method = cpufreq_method_of(p);
  std::vector<const char*> files;
  if (method == Method::setspeed) {
    files.assign(std::begin(kCpufreqControlFiles), std::end(kCpufreqControlFiles));
  } else if (method == Method::pin) {
    files = {"scaling_min_freq", "scaling_max_freq"};
  } else {
    why = p.policy_dir + ": no userspace governor (driver " + (p.driver.empty() ? "?" : p.driver) + ", governors";
    for (const auto& g : p.governors) why += " " + g;
    why += "): load cpufreq_userspace, or use a driver mode rubato can pin (intel_pstate / amd-pstate active)";
    return false;
  }
  for (const char* f : files)
    if (::access(file(p, f).c_str(), W_OK) != 0) {
      why = file(p, f) + " is not writable (needs root)";
      return false;
    }
  return true;
}

bool SysfsFrequency::usable(std::string& why) {
  if (topology_.clock_domains.empty()) {
    why = "no cpufreq policies under " + topology_.sysfs_root +
          "/devices/system/cpu (no DVFS here: VM or driver missing)";
    if (!topology_.pstate_driver.empty() && topology_.pstate_status == "off")
      why += "; " + topology_.pstate_driver + " status is 'off'";
    return false;
  }
  method_.clear();
  for (const auto& p : topology_.clock_domains) {
    Method m{};
    if (!method_for(p, m, why)) return false;
    method_.push_back(m);
  }
  return usable_state(why);
}

bool SysfsFrequency::usable_state(std::string& why) {
  if (prepare_state_dir(state_dir_, why)) return true;
  why = "cannot save machine state: " + why;
  return false;
}

bool SysfsFrequency::save(const DomainPlan& plan, std::string& why) {
  if (!prepare_state_dir(state_dir_, why)) return false;
  // Engine domain -> policy; only policies that host a domain are touched.
  std::set<int> touched;
  policy_of_domain_.clear();
  for (const auto& cpus : plan.cpus_of_domain) {
    const int p = cpus.empty() ? -1 : topology_.clock_domain_of(cpus.front());
    policy_of_domain_.push_back(p);
    if (p >= 0) touched.insert(p);
  }
  MachineState state;
  state.sysfs_root = topology_.sysfs_root;
  state.pid = static_cast<std::int64_t>(getpid());
  state.backend = name_;
  for (int p : touched) {
    const auto& info = topology_.clock_domains[static_cast<std::size_t>(p)];
    SavedPolicy saved{info.policy_dir, {}};
    for (const char* f : kCpufreqControlFiles) {
      char buf[512];
      const long n = read_small(file(info, f).c_str(), buf, sizeof buf);
      if (n < 0) {
        why = "cannot read " + file(info, f);
        return false;
      }
      saved.content.emplace_back(buf, static_cast<std::size_t>(n));
    }
    state.policies.push_back(std::move(saved));
  }
  if (!validate_state(state, topology_.sysfs_root, why) || !write_state_file(state_dir_, state, state_path_, why))
    return false;
  plan_ = std::make_unique<CpufreqRestorePlan>(state, state_path_);
  arm_restore(plan_.get());

  min_khz_.assign(topology_.clock_domains.size(), 0);
  max_khz_.assign(topology_.clock_domains.size(), 0);
  if (method_.size() != topology_.clock_domains.size()) {
    // save() without usable() (a subclass with its own checks): the method
    // each driver calls for; one that fits none tries setspeed, and a failed
    // write degrades the run to a dry run as any other.
    method_.clear();
    for (const auto& p : topology_.clock_domains) {
      Method m = Method::setspeed;
      std::string ignored;
      if (!method_for(p, m, ignored)) m = Method::setspeed;
      method_.push_back(m);
    }
  }
  for (int p : touched) {
    if (!take_control(static_cast<std::size_t>(p), why)) {
      restore();
      return false;
    }
  }
  records_.reset(plan.cpus_of_domain.size());
  applier_ = std::make_unique<RateLimitedApplier>(records_, min_dwell_s_,
                                                  [this](DomainId d, double hz) { return apply(d, hz); });
  applier_->start();
  return true;
}

// Limits wide enough for the ladder within the hardware's range.
bool SysfsFrequency::widen_limits(std::size_t p, std::string& why) {
  const auto& info = topology_.clock_domains[p];
  long long lo = read_khz(file(info, "scaling_min_freq"));
  long long hi = read_khz(file(info, "scaling_max_freq"));
  if (lo < 0 || hi < 0) {
    why = info.policy_dir + ": scaling_min_freq / scaling_max_freq unreadable";
    return false;
  }
  const long long hw_lo = info.min_hz > 0 ? std::llround(info.min_hz / 1e3) : lo;
  const long long hw_hi = info.max_hz > 0 ? std::llround(info.max_hz / 1e3) : hi;
  if (hw_lo < lo || hw_hi > hi) {
    lo = std::min(lo, hw_lo);
    hi = std::max(hi, hw_hi);
    if (!write_limits(info, lo, hi)) {
      why = info.policy_dir + ": cannot widen scaling_min_freq / scaling_max_freq";
      return false;
    }
  }
  min_khz_[p] = lo;
  max_khz_[p] = hi;
  return true;
}

bool SysfsFrequency::take_control(std::size_t p, std::string& why) {
  if (method_[p] == Method::pin) {
    // Nothing to write yet: the first decision pins both limits. Any
    // frequency in the hardware's range may be pinned.
    const auto& info = topology_.clock_domains[p];
    min_khz_[p] = std::llround(info.min_hz / 1e3);
    max_khz_[p] = std::llround(info.max_hz / 1e3);
    if (min_khz_[p] <= 0 || max_khz_[p] < min_khz_[p]) {
      why = info.policy_dir + ": cpuinfo_min_freq / cpuinfo_max_freq unreadable";
      return false;
    }
    return true;
  }
  if (!widen_limits(p, why)) return false;
  if (!write_text(file(topology_.clock_domains[p], "scaling_governor"), "userspace")) {
    why = topology_.clock_domains[p].policy_dir + ": cannot set the userspace governor";
    return false;
  }
  return true;
}

bool SysfsFrequency::apply(DomainId domain, double hz) {
  if (degraded()) return true;  // a dry run since a write failed
  if (domain >= policy_of_domain_.size() || policy_of_domain_[domain] < 0) return true;
  const auto p = static_cast<std::size_t>(policy_of_domain_[domain]);
  const auto& info = topology_.clock_domains[p];
  if (plan_ && !plan_->begin_write()) return true;  // machine given back (signal): write nothing more
  const bool written = write_frequency(p, cpufreq_target_khz(info, hz, min_khz_[p], max_khz_[p]));
  const int err = errno;
  if (plan_) plan_->end_write();
  if (written) return true;
  // EACCES, EBUSY, EINVAL, ENOENT...: the driver or the system took the file
  // away mid-run. Retrying each decision would repeat the failure (and the
  // message); the run goes on with frequencies where they are.
  degraded_note_ = name_ + ": setting " + info.policy_dir + " failed (" + std::strerror(err) +
                   "); degraded to dry-run: decisions are recorded, frequencies no longer change; the saved "
                   "state is restored at exit";
  degraded_.store(true, std::memory_order_release);
  std::fprintf(stderr, "rubato: %s\n", degraded_note_.c_str());
  return false;
}

std::vector<std::string> SysfsFrequency::run_notes() const {
  if (!degraded()) return {};
  return {degraded_note_};
}

bool SysfsFrequency::write_frequency(std::size_t p, long long khz) {
  if (method_[p] == Method::pin) return write_limits(topology_.clock_domains[p], khz, khz);
  return write_text(file(topology_.clock_domains[p], "scaling_setspeed"), std::to_string(khz));
}

RestoreOutcome SysfsFrequency::restore() noexcept {
  if (applier_) applier_->stop();
  if (!plan_ || restored_) return {};
  restored_ = true;
  return restore_and_disarm(*plan_, state_path_);
}

}  // namespace rubato
