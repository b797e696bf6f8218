// memsynth: memory-bound synthetic with a configurable solo memory-bus
// utilisation ([EFS] §3.2), for the contention-aware throttling (efs policy).
#include <cstdio>
#include <iostream>
#include <string>

#include "../common/program.hpp"
#include "memsynth.hpp"

using namespace kernels;

namespace {

const KernelInfo kInfo{
    .name = "memsynth",
    .summary = "pointer chase with register compute between misses; configurable solo bus utilisation ([EFS] §3.2)",
    .n_help = "fragments (one cache miss + compute each)",
    .default_n = 8'000'000,
    .min_n = 1,
    .default_grain = 1 << 15,
    .grain_help = "fragments per task",
    .extras = {{"util", "0.5", "target solo bus utilisation b in (0, 1] ([EFS] Eq. 2), calibrated at start"},
               {"compute", "auto", "LCG iterations per fragment instead of calibrating for --util"},
               {"buffer-mib", "256", "chase buffer size in MiB (keep it well above the LLC)"}},
};

Outcome run(const Options& o, KernelTimer& timer) {
  const std::uint64_t mib = o.integer("buffer-mib");
  if (mib < 1 || mib > (std::uint64_t{1} << 18)) throw UsageError("--buffer-mib must be in 1..262144");
  const bool calibrated = o.text("compute") == "auto";
  const double util = o.real("util");
  if (!(util > 0 && util <= 1)) throw UsageError("--util must be in (0, 1]");

  const memsynth::ChaseBuffer buf(mib << 20, o.seed);
  const memsynth::Calibration cal = memsynth::calibrate(buf);
  memsynth::Plan plan{o.n, o.grain, calibrated ? cal.compute_for(util) : o.integer("compute"), o.seed};
  char line[160];
  std::snprintf(line, sizeof line, "memsynth: latency_ns=%.1f iteration_ns=%.3f compute=%llu predicted_solo_util=%.3f",
                cal.latency_s * 1e9, cal.iteration_s * 1e9, static_cast<unsigned long long>(plan.compute),
                cal.predicted_utilisation(plan.compute));
  std::cerr << line << "\n";

  std::vector<memsynth::TaskResult> results = timer.measure([&] { return memsynth::parallel_run(buf, plan); });

  if (o.inject_fault) results[results.size() / 2].x ^= 1;  // one task's compute went wrong
  CheckResult check;
  Fingerprint f;
  for (std::size_t t = 0; t < results.size(); ++t) {
    f.add(results[t].index_sum);
    if (check.ok && !memsynth::check_task(buf, plan, t, results[t]))
      check = CheckResult::fail("task " + std::to_string(t) + " disagrees with the closed-form replay");
  }
  // The compute count comes from a timing calibration: print the request, not it.
  const std::string mode = calibrated ? "util=" + o.text("util") : "compute=" + o.text("compute");
  return {
      "memsynth: n=" + std::to_string(o.n) + " buffer_mib=" + std::to_string(mib) + " " + mode + " checksum=" + f.hex(),
      check};
}

}  // namespace

const Kernel kernels::kKernel{.info = kInfo, .run = run};
