// Save and restore, step 4 of 4 (reads state_file's file, runs
// cpufreq_restore's plan).
//
// `rubato restore`: puts back machine state that a process left behind in a
// state file (it was killed with SIGKILL, or its own restore failed).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rubato/power/frequency/frequency_control.hpp"

namespace rubato {

struct SavedStateResult {
  std::string file;
  bool skipped = false;  // not restored on purpose (its process still runs) or refused (invalid)
  std::string why;       // for skipped / refused files
  RestoreOutcome outcome;
};

// Restores `state_file`, or every state file in `state_dir` ("" = the default
// directory) when none is given. Files are validated against `sysfs_root`
// (paths must lie in its cpufreq tree). Without an explicit file, a state
// whose process is still alive is skipped: that process restores it itself.
// A restored file is deleted; one with a failed policy is kept for a retry.
std::vector<SavedStateResult> restore_saved_states(const std::optional<std::string>& state_file,
                                                   const std::string& state_dir, const std::string& sysfs_root);

}  // namespace rubato
