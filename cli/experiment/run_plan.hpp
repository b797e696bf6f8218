// What `rubato run` runs, in which order, where each run's files go and what
// environment each run gets. Pure functions, so the order and the variables
// are unit-tested without running anything.
#pragma once

#include <string>
#include <vector>

#include "experiment/process.hpp"

namespace rubato::cli {

struct RunSpec {
  int trial = 0;  // 0-based
  std::string policy;
  int workers = 0;
};

// Trial-major: every trial runs every worker count and every policy once
// before the next trial starts, and the policy order rotates by one each trial,
// so slow drift (thermal, other load) and warm-up hit every policy alike.
std::vector<RunSpec> interleaved_plan(const std::vector<std::string>& policies, const std::vector<int>& workers,
                                      int trials);

// "w2/hermes/trial-03" (policy characters outside [A-Za-z0-9.+-] become '_').
std::string run_directory(const RunSpec& run);

// Replaces "{workers}" in the program's arguments (for programs that take their
// thread count on the command line, e.g. TBB ones).
std::vector<std::string> substitute_workers(const std::vector<std::string>& argv, int workers);

// The program and its arguments as one line (arguments with spaces quoted).
std::string command_line(const std::vector<std::string>& argv);

struct ToolSetup {
  std::string ompt_tool;  // absolute path of librubato_ompt.so, "" when none
  std::string backend;    // "" leaves RUBATO_BACKEND as it is
  std::string profile;    // "" leaves RUBATO_PROFILE as it is
};

// OMP_TOOL_LIBRARIES (OpenMP programs load the tool), OMP_NUM_THREADS,
// RUBATO_POLICY, RUBATO_REPORT and, when asked for, RUBATO_BACKEND /
// RUBATO_PROFILE and RUBATO_TRACE (a non-empty `trace_pattern`). TBB programs
// link the observer and read the same RUBATO_*.
EnvOverrides run_environment(const RunSpec& run, const ToolSetup& tool, const std::string& report_pattern,
                             const std::string& trace_pattern = "");

}  // namespace rubato::cli
