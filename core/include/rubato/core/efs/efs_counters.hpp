// EFS bus utilisation from counters ([EFS] §3.2, Eqs. 17–19): the bus
// service rate µ and the chip's and each core's share of it over an interval.
// The counter names the paper used (Sandy Bridge) are in the comments; the
// power/ counter sources supply whatever their CPU calls them.
//
// Reconstructed from the garbled PDF text:
//   Eq. 17  µ = transfers/s · bus width (bits) / (cache line (bytes) · 8)
//           [1.333 GT/s · 64 bit / (64 B · 8) = 166,625,000 accesses/s; §5.1 measured 150 M]
//   Eq. 18  U = accesses_p / (µ Δt)        (accesses_p: UNC_ARB_TRK_REQUEST.ALL)
//   Eq. 19  u_i = (reads_ci + writes_p · reads_ci / (accesses_p − writes_p)) / (µ Δt)
//           (reads_ci: OFFCORE_RESPONSE.ALL_READS.LLC_MISS.DRAM on core i;
//            writes_p: UNC_ARB_TRK_REQUEST.EVICTIONS — chip writes shared out like the reads)
#pragma once

#include <span>
#include <vector>

namespace rubato::efs {

// Eq. 17.
double bus_accesses_per_s(double transfers_per_s, double bus_width_bits, double cache_line_bytes) noexcept;

// What the counters counted over one interval of interval_s seconds.
struct BusCounts {
  double interval_s = 0;
  double chip_accesses = 0;        // accesses_p: every access from the chip to memory
  double chip_writes = 0;          // writes_p
  std::vector<double> core_reads;  // reads_ci, one per core (or per thread)
};

// Eq. 18 (0 when µ·Δt is not positive).
double chip_utilisation(double chip_accesses, double accesses_per_s, double interval_s) noexcept;
// Eq. 19: chip writes attributed in proportion to the core's share of the chip's
// reads (accesses_p − writes_p); none when the chip saw no reads.
double core_utilisation(double core_reads, double chip_accesses, double chip_writes, double accesses_per_s,
                        double interval_s) noexcept;

// Eqs. 18–19 and, for each core, its solo utilisation by Eq. 9.
struct BusUtilisation {
  double total = 0;              // U
  std::vector<double> per_core;  // u_i
  std::vector<double> solo;      // b_i (Eq. 9)
};
BusUtilisation measure_bus(const BusCounts& counts, double accesses_per_s);

}  // namespace rubato::efs
