// Checks, from a rubato report of an OpenMP program run under min-energy with
// the DVFS emulator on the haswell-e5-2650v3 profile (work told it is
// memory-bound), that the emulator applied the uncore level min-energy set
// to the uncore-sensitive part of the work (docs/min-energy.md "For the
// emulator"):
//
//   emulator_uncore_check <report.json>
//
// The emulator's note gives the stretch that came from the uncore and the
// CPU time of the segments it stretched; per second of that CPU time it must
// be b_u·(g(f_u) − 1) of the one time model (rubato/core/model/
// time_model.hpp) at a level min-energy decided below the memory-bandwidth
// knee: more than 0, at least the least of those and at most the most
// (each segment's part rounded to the ns: half a ns per segment of slack).
// No wall-clock time is checked. Exit 0 when it holds, 1 when it does not,
// 2 on bad input.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>

#include "read_report.hpp"
#include "rubato/core/io/report.hpp"
#include "rubato/core/model/time_model.hpp"

namespace {

// haswell-e5-2650v3 (power/profiles): the fastest uncore level and the knee.
constexpr double kReferenceUncoreHz = 3.0e9;
constexpr double kKneeHz = 2.195e9;

struct EmulatorNotes {
  double asked_s = 0;  // all the stretch the emulator asked for
  unsigned long long segments = 0;
  double uncore_asked_s = 0;  // the uncore's part of it
  double uncore_cpu_s = 0;    // the CPU time of the segments stretched with an uncore part
  double uncore_ghz = 0;      // time-weighted uncore level
};

std::optional<EmulatorNotes> emulator_notes(const rubato::Report& r) {
  EmulatorNotes n;
  int found = 0;
  double timed_s = 0;
  for (const std::string& line : r.notes) {
    std::printf("note: %s\n", line.c_str());
    if (std::sscanf(line.c_str(), "emulator: asked for %lf s of stretch over %llu segments", &n.asked_s, &n.segments) ==
        2)
      ++found;
    if (std::sscanf(line.c_str(),
                    "emulator uncore: %lf s of the stretch asked came from the uncore, b_u*(g(f_u)-1) of %lf s of "
                    "segment CPU time; segments ran %lf s at an uncore level set by min-energy, %lf GHz",
                    &n.uncore_asked_s, &n.uncore_cpu_s, &timed_s, &n.uncore_ghz) == 4)
      ++found;
  }
  if (found == 2) return n;
  return std::nullopt;
}

// b_u (g(f_u) − 1) at each uncore level min-energy decided below the knee: the least and the most.
bool uncore_extra_range(const rubato::Report& r, double& least, double& most) {
  const rubato::ReferenceSetting reference{0, kReferenceUncoreHz, kKneeHz};
  least = 1e9;
  most = 0;
  for (const auto& e : r.frequency_pairs) {
    std::printf("decision: t %.4f s, %d working, %d waiting, b_c %.3f, b_u %.3f: core %.2f GHz, uncore %.2f GHz\n",
                e.t_s, e.working, e.waiting, e.core_sensitivity, e.uncore_sensitivity, e.core_hz / 1e9,
                e.uncore_hz / 1e9);
    if (!(e.uncore_hz > 0) || e.uncore_hz >= kKneeHz) continue;
    const double extra = e.uncore_sensitivity * (rubato::uncore_time_stretch(e.uncore_hz, reference) - 1.0);
    least = std::min(least, extra);
    most = std::max(most, extra);
  }
  return most > 0;
}

int check(const rubato::Report& r) {
  if (r.policy != "min-energy" || r.profile != "haswell-e5-2650v3" || r.backend != "emulated") {
    std::printf("FAIL: policy %s on profile %s with back-end %s\n", r.policy.c_str(), r.profile.c_str(),
                r.backend.c_str());
    return 1;
  }
  const auto n = emulator_notes(r);
  if (!n) {
    std::printf("FAIL: no emulator note, or no emulator uncore note\n");
    return 1;
  }
  double least = 0, most = 0;
  if (!uncore_extra_range(r, least, most)) {
    std::printf("FAIL: min-energy decided no uncore level below the knee (%.3f GHz)\n", kKneeHz / 1e9);
    return 1;
  }
  const double rounding_s = 0.5e-9 * static_cast<double>(n->segments);
  std::printf("uncore: %.9f s over %.9f s of CPU time (%.5f a second; the decisions' model: %.5f..%.5f), %.4f GHz\n",
              n->uncore_asked_s, n->uncore_cpu_s, n->uncore_cpu_s > 0 ? n->uncore_asked_s / n->uncore_cpu_s : 0.0,
              least, most, n->uncore_ghz);
  if (!(n->uncore_asked_s > 0) || !(n->uncore_cpu_s > 0)) {
    std::printf("FAIL: the emulator added no time for the uncore\n");
    return 1;
  }
  if (n->uncore_asked_s > n->asked_s + rounding_s) {
    std::printf("FAIL: the uncore's part %.9f s exceeds the whole stretch %.9f s\n", n->uncore_asked_s, n->asked_s);
    return 1;
  }
  if (n->uncore_asked_s < least * n->uncore_cpu_s - rounding_s ||
      n->uncore_asked_s > most * n->uncore_cpu_s + rounding_s) {
    std::printf("FAIL: the uncore's part is not b_u (g(f_u) - 1) of the CPU time at the levels decided\n");
    return 1;
  }
  std::printf("OK\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: emulator_uncore_check <report.json>\n");
    return 2;
  }
  const auto report = rubato::test::read_report_or_say(argv[1]);
  if (!report) return 2;
  try {
    return check(*report);
  } catch (const std::exception& e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
}
