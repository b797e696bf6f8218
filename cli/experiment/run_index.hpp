// The index `rubato run` keeps next to its reports (rubato-index.json): what
// was run, and one entry per run with its exit status and the reports it
// wrote. A run that wrote no report still has its entry, so `rubato compare`
// lists it as failed instead of silently losing it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rubato::cli {

inline constexpr std::string_view kIndexFileName = "rubato-index.json";

struct RunEntry {
  int trial = 0;       // 0-based
  std::string policy;  // canonical policy name
  int workers = 0;
  std::string dir;                   // the run's directory, relative to the index
  std::vector<std::string> reports;  // report files it wrote, relative to the index
  int exit_status = 0;               // the program's; 128 + signal when killed
  double elapsed_s = 0;              // as seen by rubato run
  std::string error;                 // why the run failed, empty when it did not
};

struct RunIndex {
  std::string workload;              // program and arguments, before {workers} substitution
  std::vector<std::string> command;  // argv as given
  std::string started_at;            // ISO 8601 UTC
  std::vector<std::string> policies;
  std::vector<int> workers;
  int trials = 0;
  int skip = 0;
  std::string backend;  // as requested ("" = the tool's own choice)
  std::string profile;  // as requested
  std::string likwid_group;
  std::string tool;  // OMP_TOOL_LIBRARIES given to the program ("" = none found)
  // --launcher: each trial was one launch through this command ("" = the program ran directly);
  // the kind says how the tool's variables were passed (openmpi, mpich, slurm, inherit);
  // ranks: what the launcher line asked for (0 = not known). Every rank's report is in its run's `reports`.
  std::string launcher;
  std::string launcher_kind;
  int launcher_ranks = 0;
  std::vector<RunEntry> runs;
};

std::string index_to_json(const RunIndex& index);
// nullopt and `error` ("offset N: ..." or "field 'runs[2].trial': ...") when malformed.
std::optional<RunIndex> index_from_json(std::string_view text, std::string& error);

}  // namespace rubato::cli
