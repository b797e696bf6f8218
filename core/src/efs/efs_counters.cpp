#include "rubato/core/efs/efs_counters.hpp"

#include "rubato/core/efs/efs_model.hpp"

namespace rubato::efs {

double bus_accesses_per_s(double transfers_per_s, double bus_width_bits, double cache_line_bytes) noexcept {
  return cache_line_bytes > 0 ? transfers_per_s * bus_width_bits / (cache_line_bytes * 8) : 0;
}

double chip_utilisation(double chip_accesses, double accesses_per_s, double interval_s) noexcept {
  const double capacity = accesses_per_s * interval_s;
  return capacity > 0 ? chip_accesses / capacity : 0;
}

double core_utilisation(double core_reads, double chip_accesses, double chip_writes, double accesses_per_s,
                        double interval_s) noexcept {
  const double capacity = accesses_per_s * interval_s;
  if (!(capacity > 0)) return 0;
  const double chip_reads = chip_accesses - chip_writes;
  const double writes_share = chip_reads > 0 ? chip_writes * core_reads / chip_reads : 0;
  return (core_reads + writes_share) / capacity;
}

BusUtilisation measure_bus(const BusCounts& counts, double accesses_per_s) {
  BusUtilisation out;
  out.total = chip_utilisation(counts.chip_accesses, accesses_per_s, counts.interval_s);
  for (double reads : counts.core_reads) {
    const double u =
        core_utilisation(reads, counts.chip_accesses, counts.chip_writes, accesses_per_s, counts.interval_s);
    out.per_core.push_back(u);
    out.solo.push_back(solo_utilisation(u, out.total));
  }
  return out;
}

}  // namespace rubato::efs
