// After each run, `rubato run` collects the reports it wrote (one per process,
// several under MPI) and labels them: exit status, trial, workload, and the
// likwid-perfctr figures when the trial was wrapped.
#pragma once

#include <string>
#include <vector>

#include "experiment/run_plan.hpp"

namespace rubato::cli {

// The RUBATO_REPORT pattern of a run: <run dir>/report.r%r.json (%r: MPI rank, 0 without MPI);
// launched through an MPI / Slurm launcher: <run dir>/report.r%r.%h.json (ranks on several nodes).
std::string report_pattern(const std::string& run_dir, bool launched = false);

struct RunLabel {
  RunSpec run;
  std::string workload;  // program and arguments before {workers} substitution
  std::string command;   // as run
  int exit_status = 0;
  std::string likwid_csv;  // "" when not wrapped in likwid-perfctr
  bool launched = false;   // started through --launcher: one report per rank, ranks distinct
  int expected_ranks = 0;  // what the launcher line asked for (0: not known)
  // For every report of the trial (e.g. what --export-traces could not do).
  std::vector<std::string> notes{};
};

struct Harvest {
  std::vector<std::string> reports;   // paths relative to `base`
  std::string error;                  // "" when every report was read; else why not
  std::vector<std::string> warnings;  // e.g. likwid output missing
  double wall_s = 0;                  // the slowest report's
  int ranks = 0;                      // distinct ranks among the reports (a report without one is rank 0)
  int hosts = 0;                      // distinct hosts among them
};

// `base`: the results directory; `run_dir`: the run's directory relative to it.
Harvest harvest_run(const std::string& base, const std::string& run_dir, const RunLabel& label);

}  // namespace rubato::cli
