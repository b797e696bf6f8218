// The subcommands of `rubato`: one file each (cmd_<name>.cpp), each with its
// option table (a CommandSpec: parsing and --help both come from it), an
// options struct, a setup (parse) step and a run step.
#pragma once

#include <string>
#include <vector>

#include "commands/args.hpp"

namespace rubato::cli {

struct Command {
  const CommandSpec& (*spec)();
  int (*run)(const std::vector<std::string>& args);
};

// Defined in commands.cpp: the table main dispatches on.
const std::vector<Command>& commands();

const CommandSpec& config_spec();
const CommandSpec& info_spec();
const CommandSpec& restore_spec();
const CommandSpec& calibrate_spec();
const CommandSpec& compare_spec();
const CommandSpec& run_spec();
const CommandSpec& report_spec();
const CommandSpec& simulate_spec();
const CommandSpec& model_spec();
const CommandSpec& completion_spec();
const CommandSpec& trace_spec();

// --skip and --baseline, as compare and report both take them.
std::vector<OptionSpec> comparison_option_specs();

int run_config(const std::vector<std::string>& args);
int run_info(const std::vector<std::string>& args);
int run_restore(const std::vector<std::string>& args);
int run_compare(const std::vector<std::string>& args);
int run_run(const std::vector<std::string>& args);
int run_report(const std::vector<std::string>& args);
int run_simulate(const std::vector<std::string>& args);
int run_model(const std::vector<std::string>& args);
int run_calibrate(const std::vector<std::string>& args);
int run_completion(const std::vector<std::string>& args);
int run_trace(const std::vector<std::string>& args);

}  // namespace rubato::cli
