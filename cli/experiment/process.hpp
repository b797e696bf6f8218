// Runs one program for `rubato run`: its own process group (so a timeout or
// Ctrl-C reaches everything it started, e.g. mpirun's ranks), environment
// overrides on top of ours, stdout and stderr to files.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace rubato::cli {

using EnvOverrides = std::vector<std::pair<std::string, std::string>>;

struct ChildResult {
  bool started = false;
  std::string error;    // why it did not start
  int exit_status = 0;  // exit code, or 128 + signal
  bool timed_out = false;
  bool interrupted = false;  // rubato got SIGINT / SIGTERM while it ran (passed on to the child)
  double elapsed_s = 0;
  double cpu_s = 0;  // user + system time of the child's threads and the children it waited for
};

// `timeout_s` <= 0: no limit. On timeout: SIGTERM to the group, SIGKILL 2 s later.
ChildResult run_child(const std::vector<std::string>& argv, const EnvOverrides& env, const std::string& stdout_path,
                      const std::string& stderr_path, double timeout_s);

// Starts a program in its own process group (pid = group id), stdin from
// /dev/null, stdout and stderr to the files; -1 and `error` when it cannot start.
pid_t spawn_child(const std::vector<std::string>& argv, const EnvOverrides& env, const std::string& stdout_path,
                  const std::string& stderr_path, std::string& error);
// A waitpid status as run_child reports it: the exit code, or 128 + signal.
int exit_status_code(int wait_status);

// Passes SIGINT / SIGTERM on to the running child's group instead of leaving
// it orphaned; `interrupt_requested` says whether one arrived.
void install_interrupt_forwarding();
bool interrupt_requested();
// The first of them that arrived (SIGINT or SIGTERM), 0 when none did.
int interrupt_signal();

// The process groups of a running --mix (efs may have stopped any of them):
// forwarded signals reach each and continue it; if rubato itself ends —
// exit, or a fatal or hang-up signal — every registered group is continued
// first. unregister continues the group once more. false: too many programs.
bool register_mix_group(pid_t pgid);
void unregister_mix_group(pid_t pgid);

}  // namespace rubato::cli
