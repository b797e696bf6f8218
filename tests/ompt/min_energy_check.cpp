// Checks, from two rubato reports of the same OpenMP program under
// min-energy on the haswell-e5-2650v3 profile — one told the work is
// memory-bound (RUBATO_UNCORE_SENSITIVITY high), one that it is not (0) —
// that the uncore level min-energy reported follows the sensitivity:
//
//   min_energy_check <memory-bound report.json> <compute-bound report.json>
//
// Each must show decisions made while workers ran, from the settings, with
// their ratios labelled by the profile's model. Memory-bound: the uncore at
// 2 GHz or above (the knee is 2.195 GHz: below it the work slows as
// knee / f); compute-bound: the lowest level, 1.2 GHz. Exit 0 when the
// check holds, 1 when it does not, 2 on bad input.
#include <cstdio>
#include <string>

#include "read_report.hpp"
#include "rubato/core/io/report.hpp"

namespace {

constexpr double kLowestUncoreHz = 1.2e9;
constexpr double kMemoryBoundAtLeastHz = 2.0e9;

// The decisions made while workers ran; prints them.
std::vector<rubato::FrequencyPairEvent> working_decisions(const rubato::Report& r, const char* label) {
  std::vector<rubato::FrequencyPairEvent> out;
  for (const auto& e : r.frequency_pairs) {
    std::printf(
        "%s: t %.4f s, %d working, %d waiting, b_c %.3f (%s), b_u %.3f (%s): core %.2f GHz, uncore %.2f GHz, "
        "time x%.4f, energy x%.4f (%s), %s\n",
        label, e.t_s, e.working, e.waiting, e.core_sensitivity, e.core_sensitivity_source.c_str(), e.uncore_sensitivity,
        e.uncore_sensitivity_source.c_str(), e.core_hz / 1e9, e.uncore_hz / 1e9, e.time_factor, e.energy_ratio,
        e.model.c_str(), e.reason.c_str());
    if (e.working > 0) out.push_back(e);
  }
  return out;
}

int check_common(const rubato::Report& r, const char* label) {
  if (r.policy != "min-energy" || r.profile != "haswell-e5-2650v3") {
    std::printf("FAIL: %s: policy %s on profile %s\n", label, r.policy.c_str(), r.profile.c_str());
    return 1;
  }
  for (const auto& e : r.frequency_pairs)
    if (e.model != "modeled:haswell-e5-2650v3" || e.uncore_sensitivity_source != "settings") {
      std::printf("FAIL: %s: a decision from '%s' by '%s'\n", label, e.uncore_sensitivity_source.c_str(),
                  e.model.c_str());
      return 1;
    }
  return 0;
}

int check(const rubato::Report& memory, const rubato::Report& compute) {
  if (check_common(memory, "memory-bound") || check_common(compute, "compute-bound")) return 1;
  const auto high = working_decisions(memory, "memory-bound");
  const auto low = working_decisions(compute, "compute-bound");
  if (high.empty() || low.empty()) {
    std::printf("FAIL: no decision while workers ran (memory-bound %zu, compute-bound %zu)\n", high.size(), low.size());
    return 1;
  }
  for (const auto& e : high)
    if (e.uncore_hz < kMemoryBoundAtLeastHz) {
      std::printf("FAIL: memory-bound work with the uncore at %.2f GHz\n", e.uncore_hz / 1e9);
      return 1;
    }
  for (const auto& e : low)
    if (e.uncore_hz != kLowestUncoreHz) {
      std::printf("FAIL: compute-bound work with the uncore at %.2f GHz, not the lowest level\n", e.uncore_hz / 1e9);
      return 1;
    }
  const double high_hz = std::stod(memory.parameters.at("min_energy_uncore_hz_time_weighted"));
  const double low_hz = std::stod(compute.parameters.at("min_energy_uncore_hz_time_weighted"));
  std::printf("time-weighted uncore: memory-bound %.3f GHz, compute-bound %.3f GHz\n", high_hz / 1e9, low_hz / 1e9);
  if (!(high_hz > low_hz)) {
    std::printf("FAIL: the memory-bound run's uncore was not higher over time\n");
    return 1;
  }
  std::printf("OK\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: min_energy_check <memory-bound report.json> <compute-bound report.json>\n");
    return 2;
  }
  const auto memory = rubato::test::read_report_or_say(argv[1]);
  const auto compute = rubato::test::read_report_or_say(argv[2]);
  if (!memory || !compute) return 2;
  try {
    return check(*memory, *compute);
  } catch (const std::exception& e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
}
