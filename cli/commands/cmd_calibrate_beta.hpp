// `rubato calibrate --beta -- PROGRAM ARGS`: how much of a program's time
// scales with the core clock (b_c, β) and, where the machine lets rubato set
// the uncore (intel_uncore_frequency), with the uncore clock (b_u), measured
// by timing the program at the fastest and slowest settings
// (docs/calibrate.md). The options are the command's (cmd_calibrate.cpp).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/file_io.hpp"
#include "rubato/power/calibrate/calibration.hpp"

namespace rubato::cli {

struct CalibrateOptions {
  CalibrationOptions measure;
  std::string out;
  bool beta = false;
  bool uncore_probe = false;  // the program after -- is the uncore probe
  int runs = 5;
  double timeout_s = 0;
  std::vector<std::string> program;
  // RUBATO_PROFILE / RUBATO_PROFILE_DIR: the machine model whose memory-bandwidth
  // knee turns an uncore slowdown into b_u (rubato/core/model/time_model.hpp).
  std::string profile = "auto";
  std::string profile_dir;
};

inline void write_or_throw(const std::string& path, const std::string& text) {
  if (!write_file_atomically(path, text)) throw std::runtime_error("cannot write " + path);
}

// Runs the measurement and prints / writes the result; the exit status.
int measure_sensitivities(const CalibrateOptions& o);

}  // namespace rubato::cli
