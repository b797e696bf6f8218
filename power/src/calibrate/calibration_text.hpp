// How calibrate's lines and profile sources write numbers: one spelling for
// every figure it prints or writes.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace rubato::calibration_text {

// `v` to `digits` significant digits (%g).
inline std::string num(double v, int digits = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// A frequency in whole MHz: "2600 MHz".
inline std::string mhz(double hz) { return std::to_string(std::lround(hz / 1e6)) + " MHz"; }

}  // namespace rubato::calibration_text
