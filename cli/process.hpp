// Runs one program for `rubato run`: its own process group (so a timeout or
// Ctrl-C reaches everything it started, e.g. mpirun's ranks), environment
// overrides on top of ours, stdout and stderr to files.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace rubato::cli {

using EnvOverrides = std::vector<std::pair<std::string, std::string>>;

struct ChildResult {
  bool started = false;
  std::string error;       // why it did not start
  int exit_status = 0;     // exit code, or 128 + signal
  bool timed_out = false;
  bool interrupted = false;  // rubato got SIGINT / SIGTERM while it ran (passed on to the child)
  double elapsed_s = 0;
};

// `timeout_s` <= 0: no limit. On timeout: SIGTERM to the group, SIGKILL 2 s later.
ChildResult run_child(const std::vector<std::string>& argv, const EnvOverrides& env, const std::string& stdout_path,
                      const std::string& stderr_path, double timeout_s);

// Passes SIGINT / SIGTERM on to the running child's group instead of leaving
// it orphaned; `interrupt_requested` says whether one arrived.
void install_interrupt_forwarding();
bool interrupt_requested();

}  // namespace rubato::cli
