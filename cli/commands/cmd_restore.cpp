// `rubato restore [--state FILE]`: puts back cpufreq settings a killed rubato
// process left behind (docs/design.md "Restore and safety"), and says what it did.
#include <cstdio>

#include "commands/args.hpp"
#include "commands/commands.hpp"
#include "rubato/core/config/settings.hpp"
#include "rubato/power/state/restore_saved_state.hpp"
#include "rubato/power/session/run_identity.hpp"
#include "rubato/power/state/state_file.hpp"

namespace rubato::cli {

const CommandSpec& restore_spec() {
  static const CommandSpec spec{
      "restore",
      "put cpufreq settings back from the state a killed rubato process left",
      "",
      "",
      {
          {"state", kWhatToRun, "the state file to restore from", "FILE",
           "every state file in RUBATO_STATE_DIR whose process is gone", "a rubato state file"},
      },
      "RUBATO_STATE_DIR and RUBATO_SYSFS_ROOT apply.",
  };
  return spec;
}

namespace {
struct RestoreOptions {
  std::optional<std::string> state_file;
};

RestoreOptions setup(const std::vector<std::string>& argv) {
  Args a(argv, restore_spec());
  if (!a.positionals().empty()) throw UsageError("unexpected argument '" + a.positionals().front() + "'");
  return {a.value("state")};
}
}  // namespace

int run_restore(const std::vector<std::string>& argv) {
  const RestoreOptions o = setup(argv);
  Diagnostics diag;
  const Settings settings = load_settings(read_process_environment(), diag);
  for (const auto& line : diag.lines) std::fprintf(stderr, "%s\n", line.c_str());
  const std::string dir = settings.state_dir.empty() ? default_state_dir() : settings.state_dir;
  const auto results = restore_saved_states(o.state_file, dir, settings.sysfs_root);
  if (results.empty()) {
    std::printf("nothing to restore: no state files in %s\n", dir.empty() ? "(no state directory)" : dir.c_str());
    return 0;
  }
  int status = 0;
  for (const auto& r : results) {
    if (r.skipped) {
      std::printf("%s: %s\n", r.file.c_str(), r.why.c_str());
      if (r.why.rfind("refused", 0) == 0) status = 1;
      continue;
    }
    for (const auto& line : r.outcome.restored) std::printf("restored %s\n", line.c_str());
    for (const auto& line : r.outcome.failed) std::printf("FAILED   %s\n", line.c_str());
    if (!r.outcome.ok()) {
      std::printf("%s kept for another try\n", r.file.c_str());
      status = 1;
    }
  }
  return status;
}

}  // namespace rubato::cli
