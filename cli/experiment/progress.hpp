// Progress of `rubato run` on stderr: a redrawn bar on a terminal (run i of n,
// trial, policy, workers, ETA), one plain line per finished run otherwise.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

#include "experiment/run_plan.hpp"

namespace rubato::cli {

// "1h02m", "3m05s", "42s", "?" for a negative or unknown duration.
std::string format_duration(double seconds);

// The bar's text (no carriage return), `width` characters of bar.
std::string progress_bar_line(std::size_t done, std::size_t total, const RunSpec& next, int trials, double eta_s,
                              int width = 24);

class Progress {
 public:
  Progress(std::size_t total, int trials, bool terminal, std::FILE* out);
  void starting(std::size_t index, const RunSpec& run);
  // `outcome`: "1.234 s, exit 0" or why it failed; `failed` lines stay visible on a terminal.
  void finished(std::size_t index, const RunSpec& run, double elapsed_s, const std::string& outcome, bool failed);
  void close();

 private:
  std::size_t total_;
  int trials_;
  bool terminal_;
  std::FILE* out_;
  double spent_s_ = 0;
  std::size_t finished_ = 0;
  bool bar_drawn_ = false;
};

}  // namespace rubato::cli
