#include "rubato/power/state/restore_saved_state.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "rubato/power/state/cpufreq_restore.hpp"
#include "rubato/power/state/state_file.hpp"

namespace rubato {
namespace {

bool process_alive(std::int64_t pid) {
  if (pid <= 0 || pid == static_cast<std::int64_t>(getpid())) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

SavedStateResult restore_one(const std::string& path, bool explicit_file, const std::string& sysfs_root) {
  SavedStateResult r;
  r.file = path;
  std::string why;
  const auto state = read_state_file(path, why);
  if (!state || !validate_state(*state, sysfs_root, why)) {
    r.skipped = true;
    r.why = "refused: " + why;
    return r;
  }
  if (!explicit_file && process_alive(state->pid)) {
    r.skipped = true;
    r.why = "process " + std::to_string(state->pid) + " is still running and restores at its exit (--state forces)";
    return r;
  }
  CpufreqRestorePlan plan(*state, path);
  plan.restore_now();
  r.outcome = plan.outcome();
  return r;
}

}  // namespace

std::vector<SavedStateResult> restore_saved_states(const std::optional<std::string>& state_file,
                                                   const std::string& state_dir, const std::string& sysfs_root) {
  std::vector<SavedStateResult> out;
  if (state_file) {
    out.push_back(restore_one(*state_file, true, sysfs_root));
    return out;
  }
  const std::string dir = state_dir.empty() ? default_state_dir() : state_dir;
  for (const auto& path : list_state_files(dir)) out.push_back(restore_one(path, false, sysfs_root));
  return out;
}

}  // namespace rubato
