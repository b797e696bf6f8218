// The uncore probe of `rubato calibrate` (docs/calibrate.md): uncore-bound work
// timed at each uncore level at the fastest core frequency — the built-in
// streaming triad (memory_probe.hpp) or a program (--uncore-probe) — in
// rounds, each timing every level once and starting one level later than the
// round before, after one warm-up run at the fastest level; per level the
// least time is kept (load only ever adds time). The curve t(fu) / t(fu_max)
// is fitted for the knee (knee_fit.hpp). At the fastest level the counters
// (RUBATO_COUNTERS) give the probe's memory-transaction rate, where they count
// memory transactions.
#pragma once

#include <functional>
#include <string>

#include "rubato/power/calibrate/calibration.hpp"

namespace rubato {

// Fills r.probe (the runs, the least time per level of r.uncore_hz, the fit,
// the rate); a probe that fails is recorded there (r.probe.failed). false +
// `error` only when a stop was requested or the uncore could not be set.
bool measure_uncore_probe(const CalibrationOptions& o, const Topology& t, CalibrationUncore& uncore,
                          CalibrationResult& r, const std::function<void(const std::string&)>& say, std::string& error);

}  // namespace rubato
