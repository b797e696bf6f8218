// Helpers for the CLI tests: a scratch directory and synthetic reports.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

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

// Runs `call()` with stdout captured in a file; returns {its result, stdout}
// (the `rubato model` tests call the command's entry point in process).
template <typename Call>
std::pair<int, std::string> run_with_stdout_captured(Call&& call) {
  ScratchDir dir;
  const std::string path = dir.str() + "/out.txt";
  std::fflush(stdout);
  const int saved = dup(STDOUT_FILENO);
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  dup2(fd, STDOUT_FILENO);
  close(fd);
  const auto put_back = [&] {
    std::fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
  };
  int rc = -1;
  try {
    rc = call();
  } catch (...) {
    put_back();
    throw;
  }
  put_back();
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return {rc, text.str()};
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
