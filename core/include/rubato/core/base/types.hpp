// Small vocabulary types shared by every part of rubato.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rubato {

using WorkerId = std::uint32_t;
using DomainId = std::uint32_t;

// Tempo level: 0 is the fastest frequency in use, N-1 the slowest ([HERMES] §3.4).
using Level = int;

inline constexpr WorkerId kNoWorker = 0xffffffffu;
inline constexpr std::size_t kCacheLine = 64;

// The most tempo levels (frequencies) and workload thresholds rubato keeps per worker.
// Fixed so that per-worker state needs no allocation.
inline constexpr int kMaxLevels = 8;
inline constexpr int kMaxThresholds = 8;

}  // namespace rubato
