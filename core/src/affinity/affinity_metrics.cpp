#include "rubato/core/affinity/affinity_metrics.hpp"

#include <algorithm>

namespace rubato::affinity {

namespace {

std::optional<double> ratio(const std::optional<double>& num, const std::optional<double>& den) {
  if (!num || !den || !(*den > 0)) return std::nullopt;
  return *num / *den;
}

}  // namespace

IntervalMetrics synthesise(const IntervalSample& sample) {
  IntervalMetrics out;
  const std::size_t cores = sample.core_frequency_hz.size();
  out.cores.resize(cores);
  // Per core: Σ misses, Σ FP ops and the instructions each was counted over.
  struct Sums {
    double misses = 0, miss_instructions = 0, fp = 0, fp_instructions = 0;
    bool has_misses = false, has_fp = false;
  };
  std::vector<Sums> sums(cores);
  for (std::size_t c = 0; c < cores; ++c) out.cores[c].frequency_hz = sample.core_frequency_hz[c];

  for (const ThreadSample& t : sample.threads) {
    if (t.core < 0 || static_cast<std::size_t>(t.core) >= cores) continue;
    const auto c = static_cast<std::size_t>(t.core);
    ThreadMetrics m;
    m.id = t.id;
    m.core = t.core;
    const double elapsed_cycles = sample.elapsed_s * sample.core_frequency_hz[c];
    if (t.busy_cycles && elapsed_cycles > 0) m.utilisation = *t.busy_cycles / elapsed_cycles;  // §IV.A
    else if (sample.elapsed_s > 0) m.utilisation = t.busy_s / sample.elapsed_s;                // utilisation-only mode
    // Turbo can run a core above the frequency the governor reports.
    m.utilisation = std::clamp(m.utilisation, 0.0, 1.0);
    m.miss_rate = ratio(t.llc_misses, t.instructions);
    if (t.llc_misses && sample.elapsed_s > 0) m.misses_per_s = *t.llc_misses / sample.elapsed_s;
    m.fp_intensity = ratio(t.fp_ops, t.instructions);

    CoreMetrics& core = out.cores[c];
    core.utilisation = std::min(1.0, core.utilisation + m.utilisation);
    ++core.threads;
    if (m.miss_rate) {
      sums[c].misses += *t.llc_misses;
      sums[c].miss_instructions += *t.instructions;
      sums[c].has_misses = true;
    }
    if (m.fp_intensity) {
      sums[c].fp += *t.fp_ops;
      sums[c].fp_instructions += *t.instructions;
      sums[c].has_fp = true;
    }
    out.threads.push_back(m);
  }
  for (std::size_t c = 0; c < cores; ++c) {
    if (sums[c].has_misses) out.cores[c].miss_rate = sums[c].misses / sums[c].miss_instructions;
    if (sums[c].has_fp) out.cores[c].fp_intensity = sums[c].fp / sums[c].fp_instructions;
  }
  return out;
}

}  // namespace rubato::affinity
