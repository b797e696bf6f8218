// Who this run is, for report tags: host, MPI / Slurm rank, pid, start time,
// command line. Merged reports from several nodes are told apart by these.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "rubato/core/config/settings.hpp"

namespace rubato {

struct RunIdentity {
  std::string host;
  std::optional<int> rank;  // see rank_from_environment
  std::int64_t pid = 0;
  std::string started_at;  // ISO 8601 UTC
  std::string command;     // /proc/self/cmdline when the library was loaded, arguments joined by spaces
};

// The command line read when this library was loaded, before the program
// could rewrite its argv (when loaded with the program: LD_PRELOAD or linked).
const std::string& command_at_load() noexcept;

RunIdentity current_run_identity(const Environment& env);
// This process's environment as (name, value) pairs, for Session::open and load_settings.
Environment read_process_environment();
// The first of PMI_RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID, PMIX_RANK, MV2_COMM_WORLD_RANK holding a
// non-negative integer (MPICH / Hydra, Open MPI, Slurm, PMIx, MVAPICH2); none: not started by a launcher.
std::optional<int> rank_from_environment(const Environment& env);

}  // namespace rubato
