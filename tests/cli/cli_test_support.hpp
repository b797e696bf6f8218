// Helpers for the CLI tests: a scratch directory and synthetic reports.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "rubato/core/io/report.hpp"
#include "temp_dir.hpp"

namespace rubato::test {

// tests/support's TempDir, seen as a std::filesystem::path (the cli tests
// join paths with operator/).
class ScratchDir : public TempDir {
 public:
  std::filesystem::path path() const { return TempDir::path(); }
  std::string str() const { return TempDir::path(); }
};

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// A report as the OMPT tool would write it after `rubato run` labelled it.
inline Report make_report(const std::string& workload, const std::string& policy, int workers, int trial, double wall_s,
                          std::optional<double> joules, const std::string& source = "modeled:test") {
  Report r;
  r.tool_version = "test";
  r.host = "node0";
  r.workload = workload;
  r.command = workload;
  r.trial = trial;
  r.policy = policy;
  r.backend = "emulated";
  r.profile = "test";
  r.workers_requested = workers;
  r.wall_s = wall_s;
  if (joules) r.energy = {true, *joules, source, ""};
  else r.energy = {false, 0, "", "no meter"};
  for (int w = 0; w < workers; ++w) {
    WorkerReport wr;
    wr.id = static_cast<WorkerId>(w);
    wr.steals = 10;
    wr.busy_s_at_level = {wall_s * 0.75, wall_s * 0.25};
    r.workers.push_back(wr);
  }
  DomainReport d;
  d.transitions = 4;
  r.domains.push_back(d);
  return r;
}

}  // namespace rubato::test
