#include "experiment/run_plan.hpp"

#include <cctype>
#include <cstdio>

namespace rubato::cli {

std::vector<RunSpec> interleaved_plan(const std::vector<std::string>& policies, const std::vector<int>& workers,
                                      int trials) {
  std::vector<RunSpec> plan;
  const std::size_t p = policies.size();
  for (int t = 0; t < trials; ++t)
    for (int w : workers)
      for (std::size_t i = 0; i < p; ++i) plan.push_back({t, policies[(i + static_cast<std::size_t>(t)) % p], w});
  return plan;
}

std::string run_directory(const RunSpec& run) {
  std::string policy;
  for (char c : run.policy)
    policy += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-' ? c : '_';
  char trial[32];
  std::snprintf(trial, sizeof trial, "trial-%02d", run.trial);
  return "w" + std::to_string(run.workers) + "/" + policy + "/" + trial;
}

std::vector<std::string> substitute_workers(const std::vector<std::string>& argv, int workers) {
  static const std::string placeholder = "{workers}";
  std::vector<std::string> out = argv;
  for (std::string& a : out)
    for (auto at = a.find(placeholder); at != std::string::npos; at = a.find(placeholder, at))
      a.replace(at, placeholder.size(), std::to_string(workers));
  return out;
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    out += a.find_first_of(" \t\"'") == std::string::npos && !a.empty() ? a : "'" + a + "'";
  }
  return out;
}

EnvOverrides run_environment(const RunSpec& run, const ToolSetup& tool, const std::string& report_pattern,
                             const std::string& trace_pattern) {
  EnvOverrides env;
  if (!tool.ompt_tool.empty()) env.emplace_back("OMP_TOOL_LIBRARIES", tool.ompt_tool);
  env.emplace_back("OMP_NUM_THREADS", std::to_string(run.workers));
  env.emplace_back("RUBATO_POLICY", run.policy);
  env.emplace_back("RUBATO_REPORT", report_pattern);
  if (!tool.backend.empty()) env.emplace_back("RUBATO_BACKEND", tool.backend);
  if (!tool.profile.empty()) env.emplace_back("RUBATO_PROFILE", tool.profile);
  if (!trace_pattern.empty()) env.emplace_back("RUBATO_TRACE", trace_pattern);
  return env;
}

}  // namespace rubato::cli
