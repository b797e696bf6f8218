// Small helpers shared by the two TBB benchmarks: wall time, medians, a
// calibrated busy loop and argument parsing of `--name value` pairs.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace rubato::bench {

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// Compute-bound work the optimiser cannot drop (xorshift steps). Not inlined:
// every variant then runs the same machine code, and the calibration times it.
// Inlined into each variant's task, the loop's placement alone made one
// variant's coarse tasks 6 % slower than another's.
[[gnu::noinline]] inline std::uint64_t churn(std::uint64_t steps, std::uint64_t seed) {
  std::uint64_t x = seed | 1;
  for (std::uint64_t i = 0; i < steps; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

// Steps of churn() that take about `seconds` on this core (median of 5 probes).
inline std::uint64_t calibrate_churn(double seconds) {
  std::vector<double> per_step;
  volatile std::uint64_t sink = 0;
  for (int i = 0; i < 5; ++i) {
    const std::uint64_t probe = 2'000'000;
    const double t0 = now_s();
    sink = sink + churn(probe, static_cast<std::uint64_t>(i) + 1);
    per_step.push_back((now_s() - t0) / static_cast<double>(probe));
  }
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(seconds / median(per_step)));
}

// `--name value` options; unknown names are an error.
class Args {
 public:
  Args(int argc, char** argv, std::vector<std::string> known) : known_(std::move(known)) {
    for (int i = 1; i < argc; ++i) {
      const std::string name = argv[i];
      if (name.rfind("--", 0) != 0 || i + 1 >= argc ||
          std::find(known_.begin(), known_.end(), name.substr(2)) == known_.end())
        throw std::invalid_argument("unknown or incomplete option '" + name + "'");
      values_.emplace_back(name.substr(2), argv[++i]);
    }
  }
  std::string text(const std::string& name, const std::string& fallback) const {
    for (const auto& [k, v] : values_)
      if (k == name) return v;
    return fallback;
  }
  double number(const std::string& name, double fallback) const {
    for (const auto& [k, v] : values_)
      if (k == name) return std::stod(v);
    return fallback;
  }

 private:
  std::vector<std::string> known_;
  std::vector<std::pair<std::string, std::string>> values_;
};

}  // namespace rubato::bench
