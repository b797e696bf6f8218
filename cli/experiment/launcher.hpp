// `rubato run --launcher "mpirun -np 4"`: each trial is one launch through
// the given command, with the tool's environment passed to every rank the
// way that launcher documents it (Open MPI `-x NAME=VALUE`, MPICH / Intel MPI
// (Hydra) `-genv NAME VALUE`, Slurm `--export=ALL,NAME=VALUE`). Pure
// functions, except the --version probe that tells an `mpirun` apart.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "experiment/process.hpp"

namespace rubato::cli {

enum class LauncherKind {
  open_mpi,  // mpirun / mpiexec / orterun / prterun of Open MPI: -x NAME=VALUE
  mpich,     // Hydra (MPICH, Intel MPI, MVAPICH2's mpiexec): -genv NAME VALUE
  slurm,     // srun: --export=ALL,NAME=VALUE
  inherit,   // anything else: the variables are only set in the launcher's own environment
};

const char* to_string(LauncherKind k);
// "openmpi", "mpich", "slurm", "inherit"; nullopt otherwise.
std::optional<LauncherKind> launcher_kind_from_name(const std::string& name);
// "openmpi | mpich | slurm | inherit": what --launcher-kind accepts.
std::string launcher_kind_names();

struct Launcher {
  std::string text;               // as given
  std::vector<std::string> argv;  // split like a shell would (quotes, backslashes; no expansion)
  LauncherKind kind = LauncherKind::inherit;
  std::string kind_why;      // how the kind was found ("srun", "mpirun --version says Open MPI", ...)
  std::optional<int> ranks;  // from -np / -n / --ntasks / -N x --ntasks-per-node, when given
};

// Splits a command line as a POSIX shell would split words ('…', "…", \x), without
// expansions; throws std::invalid_argument on an unterminated quote.
std::vector<std::string> split_command_words(const std::string& text);

// The kind from the program's name alone (srun, orterun, mpiexec.hydra,
// mpirun.openmpi, …); nullopt for a plain mpirun / mpiexec, which needs `version_text`.
std::optional<LauncherKind> kind_from_name(const std::string& program);
// The kind from `<launcher> --version` output; nullopt when it names no known MPI.
std::optional<LauncherKind> kind_from_version(const std::string& version_text);
// How many ranks the launcher line asks for, when it says so plainly.
std::optional<int> requested_ranks(const std::vector<std::string>& argv);

// Parses `text`; the kind is `forced` when given, else from the name, else by
// running `<launcher> --version` (10 s at most). Throws UsageError when empty or unparsable.
Launcher make_launcher(const std::string& text, std::optional<LauncherKind> forced);

// What the ranks must get: `env` (the run's own variables), then every RUBATO_*
// and OMP_* variable of `ours` (rubato's environment) that `env` does not set:
// ranks on other nodes do not inherit the launcher's environment (Open MPI, Hydra
// without -genvall).
EnvOverrides rank_environment(const EnvOverrides& env, const EnvOverrides& ours);

// The command one trial runs: the launcher, its options for `env`, then the program.
std::vector<std::string> launch_command(const Launcher& l, const EnvOverrides& env,
                                        const std::vector<std::string>& program);

}  // namespace rubato::cli
