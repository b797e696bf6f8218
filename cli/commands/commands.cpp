#include "commands/commands.hpp"

namespace rubato::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {config_spec, run_config},         {info_spec, run_info},         {restore_spec, run_restore},
      {calibrate_spec, run_calibrate},   {compare_spec, run_compare},   {run_spec, run_run},
      {report_spec, run_report},         {simulate_spec, run_simulate}, {model_spec, run_model},
      {completion_spec, run_completion}, {trace_spec, run_trace},
  };
  return table;
}

}  // namespace rubato::cli
