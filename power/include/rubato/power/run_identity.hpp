// Who this run is, for report tags: host, MPI / Slurm rank, pid, start time,
// command line. Merged reports from several nodes are told apart by these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rubato/core/settings.hpp"

namespace rubato {

struct RunIdentity {
  std::string host;
  std::optional<int> rank;  // PMI_RANK, OMPI_COMM_WORLD_RANK or SLURM_PROCID
  std::int64_t pid = 0;
  std::string started_at;   // ISO 8601 UTC
  std::string command;      // /proc/self/cmdline, arguments joined by spaces
};

RunIdentity current_run_identity(const Environment& env);
// This process's environment as (name, value) pairs, for Session::open and load_settings.
Environment read_process_environment();
// The first of PMI_RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID holding a non-negative integer.
std::optional<int> rank_from_environment(const Environment& env);

}  // namespace rubato
