// Helpers for the CLI tests: a scratch directory and synthetic reports.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "rubato/core/io/report.hpp"

namespace rubato::test {

// A fresh directory under $TMPDIR, removed at scope end.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "rubato-cli-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }

 private:
  std::filesystem::path path_;
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
