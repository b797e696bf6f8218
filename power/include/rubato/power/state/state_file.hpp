// Save and restore, step 1 of 4 (then cpufreq_restore, restore_guard,
// restore_saved_state; docs/design.md "Restore and safety").
//
// The saved machine state: before the first change, the exact bytes of every
// cpufreq file rubato may write, per policy, go to a state file in a private
// directory, so that a normal exit, a fatal signal or `rubato restore` after
// kill -9 can put them back.
//
// The directory is /run/rubato when root, $XDG_RUNTIME_DIR/rubato otherwise
// (RUBATO_STATE_DIR overrides): mode 0700, owned by us, never followed through
// a symlink; files are created O_EXCL|O_NOFOLLOW, mode 0600.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rubato {

// The files of a cpufreq policy rubato writes, in the order they are saved.
// The userspace method writes the governor and scaling_setspeed; the pinning
// method (intel_pstate / amd-pstate in active mode) only the two limits. Both
// save all four: restore writes back only the files that differ, so exactly
// the ones that were touched.
inline constexpr const char* kCpufreqControlFiles[] = {"scaling_governor", "scaling_min_freq", "scaling_max_freq",
                                                       "scaling_setspeed"};
// The files of an intel_uncore_frequency domain rubato writes
// (Documentation/admin-guide/pm/intel_uncore_frequency_scaling.rst).
inline constexpr const char* kUncoreControlFiles[] = {"min_freq_khz", "max_freq_khz"};

enum class SavedKind { cpufreq, uncore };

struct SavedPolicy {
  std::string dir;                   // absolute policy (or uncore domain) directory
  std::vector<std::string> content;  // exact bytes, one per control file of its kind
  SavedKind kind = SavedKind::cpufreq;
};

// The control files of `kind`, in save order.
std::span<const char* const> control_files(SavedKind kind) noexcept;

struct MachineState {
  std::string sysfs_root;
  std::int64_t pid = 0;
  std::string backend;
  std::vector<SavedPolicy> policies;
};

// "" when neither root nor XDG_RUNTIME_DIR gives a place.
std::string default_state_dir();
// Creates `dir` (0700) or checks an existing one: a real directory (not a
// symlink), owned by the effective user, not accessible to group or others.
bool prepare_state_dir(const std::string& dir, std::string& why);

std::string encode_state(const MachineState& s);
std::optional<MachineState> decode_state(std::string_view text, std::string& why);
// Every policy directory must lie in `sysfs_root`'s cpufreq tree
// (devices/system/cpu/cpufreq/policyN or devices/system/cpu/cpuN/cpufreq),
// every uncore directory in its intel_uncore_frequency tree
// (devices/system/cpu/intel_uncore_frequency/package_NN_die_NN or uncoreNN),
// the state's root must be `sysfs_root`, and contents must be short and printable.
bool validate_state(const MachineState& s, const std::string& sysfs_root, std::string& why);

// Writes `<dir>/<prefix>-<pid>.state` exclusively; `path` receives its name.
bool write_state_file(const std::string& dir, const MachineState& s, std::string& path, std::string& why,
                      std::string_view prefix = "cpufreq");
// Reads without following symlinks; refuses files owned by another user.
std::optional<MachineState> read_state_file(const std::string& path, std::string& why);
std::vector<std::string> list_state_files(const std::string& dir);

}  // namespace rubato
