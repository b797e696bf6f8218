#include "rubato/power/calibrate/calibration_uncore.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "rubato/power/frequency/uncore_frequency.hpp"
#include "calibrate/calibration_text.hpp"
#include "calibrate/sample_median.hpp"
#include "os/sysfs_file.hpp"

namespace rubato {

namespace {

using calibration_text::mhz;

constexpr double kUncoreStepHz = 100e6;
constexpr int kDefaultLevels = 7;

}  // namespace

CalibrationUncore::CalibrationUncore(const Topology& t, std::string state_dir)
    : driver_(std::make_unique<UncoreFrequency>(t, std::move(state_dir))) {
  for (std::size_t d = 0; d < t.uncore_domains.size(); ++d) {
    const auto& u = t.uncore_domains[d];
    slowest_hz_ = d == 0 ? u.initial_min_hz : std::max(slowest_hz_, u.initial_min_hz);
    fastest_hz_ = d == 0 ? u.initial_max_hz : std::min(fastest_hz_, u.initial_max_hz);
  }
}

CalibrationUncore::~CalibrationUncore() { end(); }

bool CalibrationUncore::usable(std::string& why) {
  if (!driver_->usable(why)) return false;
  if (fastest_hz_ > slowest_hz_) return true;
  why =
      "the intel_uncore_frequency domains offer no common range to move in (initial_min_freq_khz .. "
      "initial_max_freq_khz)";
  return false;
}

bool CalibrationUncore::set(double hz, std::string& why) {
  for (std::size_t d = 0; d < driver_->domains(); ++d)
    if (driver_->set_domain(d, hz, why) <= 0) {
      why = "setting the uncore to " + mhz(hz) + " failed: " + why;
      return false;
    }
  return true;
}

double CalibrationUncore::current_hz() const {
  if (driver_->domains() == 0) return 0;
  const long long khz = read_khz(driver_->domain(0).dir + "/current_freq_khz");
  return khz > 0 ? static_cast<double>(khz) * 1e3 : 0;
}

RestoreOutcome CalibrationUncore::end() noexcept { return driver_ ? driver_->restore() : RestoreOutcome{}; }

std::vector<double> default_uncore_levels(double min_hz, double max_hz) {
  if (!(max_hz > min_hz) || !(min_hz > 0)) return {};
  const long steps = std::lround((max_hz - min_hz) / kUncoreStepHz);
  const long n = std::clamp<long>(steps + 1, 2, kDefaultLevels);
  std::vector<double> levels;
  for (long i = 0; i < n; ++i) {
    const double at = max_hz - (max_hz - min_hz) * static_cast<double>(i) / static_cast<double>(n - 1);
    levels.push_back(std::clamp(std::round(at / kUncoreStepHz) * kUncoreStepHz, min_hz, max_hz));
  }
  levels.front() = max_hz;
  levels.back() = min_hz;
  std::sort(levels.begin(), levels.end(), std::greater<>());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  return levels;
}

bool plan_uncore_levels(const std::vector<double>& asked, double min_hz, double max_hz, std::vector<double>& levels,
                        std::string& error) {
  if (asked.empty()) {
    levels = default_uncore_levels(min_hz, max_hz);
  } else {
    for (double hz : asked)
      if (hz < min_hz * 0.9995 || hz > max_hz * 1.0005) {
        error = "--uncore-freqs: " + mhz(hz) + " is outside the uncore's range " + mhz(min_hz) + ".." + mhz(max_hz);
        return false;
      }
    levels = asked;
    std::sort(levels.begin(), levels.end(), std::greater<>());
    levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  }
  if (levels.size() < 2) {
    error = "--uncore-freqs: need two uncore levels or more (have " + std::to_string(levels.size()) + ")";
    return false;
  }
  return true;
}

double UncoreProbeResult::rate_per_s() const { return median_of(rates_per_s); }

double uncore_additivity_deviation(const std::vector<UncoreLadderPoint>& ladder) {
  double mean = 0;
  for (const auto& p : ladder) mean += p.per_busy_cpu_w / static_cast<double>(ladder.size());
  if (!(std::fabs(mean) > 1e-9)) return 0;
  double worst = 0;
  for (const auto& p : ladder) worst = std::max(worst, std::fabs(p.per_busy_cpu_w - mean) / std::fabs(mean));
  return worst;
}

}  // namespace rubato
