// The subcommands of `rubato`: one file each (cmd_<name>.cpp), each with an
// options struct, a setup (parse) step and a run step.
#pragma once

#include <string>
#include <vector>

namespace rubato::cli {

struct Command {
  const char* name;
  const char* summary;
  const char* usage;
  int (*run)(const std::vector<std::string>& args);
};

// Defined in commands.cpp: the table main dispatches on.
const std::vector<Command>& commands();

int run_config(const std::vector<std::string>& args);
int run_info(const std::vector<std::string>& args);
int run_restore(const std::vector<std::string>& args);
int run_compare(const std::vector<std::string>& args);
int run_run(const std::vector<std::string>& args);
int run_report(const std::vector<std::string>& args);
int run_simulate(const std::vector<std::string>& args);
int run_model(const std::vector<std::string>& args);
int run_calibrate(const std::vector<std::string>& args);

}  // namespace rubato::cli
