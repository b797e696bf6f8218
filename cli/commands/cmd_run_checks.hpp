// `rubato run`'s values, checked before the first trial: every option and
// every RUBATO_* setting the trials would read that can be checked here,
// against the tables that define them (the frequency back-end registry, the
// profile directories, core/config's option table, the counter sources). A
// trial's tool keeps going on a value it cannot use — a misspelt back-end
// runs as a dry run, an unknown profile as the generic one — which is right
// for a program, but an experiment would then run every trial on something
// else; so `rubato run` refuses such a value (usage error, exit status 2)
// and names the option or variable, the value and what is accepted.
#pragma once

#include <string>
#include <vector>

#include "rubato/core/config/settings.hpp"
#include "rubato/power/machine/machine_info.hpp"

namespace rubato::cli {

struct RunValues {
  std::string backend;      // --backend, "" when not given
  std::string profile;      // --profile, "" when not given
  bool launched = false;    // --launcher: the ranks may run on other nodes, where other back-ends may work
  Environment environment;  // rubato's own, which the trials inherit
};

struct TrialSetup {
  Settings settings;                  // what every trial reads (each run sets RUBATO_POLICY and RUBATO_REPORT)
  MachineInfo machine;                // this machine under those settings
  std::vector<std::string> warnings;  // what may still work elsewhere (--launcher), said before the first trial
};

// Throws UsageError, one line per value refused.
TrialSetup check_run_values(const RunValues& values);

// What --backend accepts, from the back-end registry: "auto | sysfs | ...".
std::string backend_names();

}  // namespace rubato::cli
