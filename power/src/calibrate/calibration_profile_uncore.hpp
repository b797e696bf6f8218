// The uncore part of what `rubato calibrate` writes (docs/calibrate.md): the
// uncore_power ladder, memory_bandwidth_knee_hz and
// memory_transaction_rate_saturated_per_s, each with its source, where they
// were measured, and the probe's curve (FILE.uncore-probe.csv).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "rubato/power/calibrate/calibration.hpp"

namespace rubato {

// Adds what r measured of the uncore to the profile `j` and its `sources`;
// `name` the profile's (the probe's CSV is <name>.uncore-probe.csv beside it),
// `measured` the sources' common start.
void add_uncore_fields(const CalibrationResult& r, const std::string& name, const std::string& measured,
                       nlohmann::json& j, nlohmann::json& sources);

}  // namespace rubato
