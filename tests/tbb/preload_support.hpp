// Starting unmodified oneTBB programs under librubato_tbb_preload.so and reading
// what they leave: the preload tests' shared helpers (preload_test.cpp,
// preload_trace_test.cpp).
#pragma once

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "ground_truth.hpp"
#include "rubato/core/io/report.hpp"

namespace rubato::test::preload {

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RUBATO_SANITIZED_TEST_BUILD 1
#endif
#endif

// The preload on the dry-run back-end, errors only, then `extra` (which wins).
inline EnvList preload_env(const EnvList& extra = {}) {
  EnvList env = {{"LD_PRELOAD", RUBATO_TBB_PRELOAD_LIBRARY}, {"RUBATO_BACKEND", "dry-run"}, {"RUBATO_LOG", "error"}};
#ifdef RUBATO_SANITIZED_TEST_BUILD
  // In sanitizer builds the preload is instrumented and needs the program's
  // runtime; the sanitizer's symbolizer, a child process, inherits LD_PRELOAD
  // and cannot start. Reports there stay unsymbolized (module + offset, which
  // is what the libtbb suppressions match) instead of failing the run.
  for (const char* name : {"TSAN_OPTIONS", "ASAN_OPTIONS"}) {
    const char* before = std::getenv(name);
    env.emplace_back(name, std::string(before ? before : "") + " symbolize=0");
  }
#endif
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

// Runs `argv` in the test's environment plus `env`, stdout to `out` and stderr
// to `err` (discarded when empty); the exit code, -1 when it did not exit.
inline int run(const std::vector<std::string>& argv, const EnvList& env, const std::string& out,
               const std::string& err = "") {
  SpawnOptions o;
  o.env = env;
  o.base = BaseEnv::inherited;
  o.out_path = out;
  o.err_path = err.empty() ? "/dev/null" : err;
  const ProgramResult r = run_program(argv, o, 240);
  return r.exited ? r.exit_code : -1;
}

inline Report read_report(const std::string& path) {
  const std::string text = read_file(path);
  std::remove(path.c_str());
  REQUIRE_FALSE(text.empty());
  std::string error;
  auto r = report_from_json(text, error);
  INFO(error);
  REQUIRE(r);
  return *r;
}

// Totals over the workers (ground_truth.hpp), each busy only while alive.
inline ReportTotals totals(const Report& r) {
  for (const auto& w : r.workers) CHECK(w.busy_s <= w.alive_s + 1e-6);
  return rubato::test::totals(r);
}

inline bool has_note(const Report& r, const std::string& start) {
  for (const auto& n : r.notes)
    if (n.rfind(start, 0) == 0) return true;
  return false;
}

// The tasks the report says had not ended when it was taken ("tbb: N tasks
// started on other threads had not ended ..."); 0 without that note.
inline std::uint64_t tasks_not_ended(const Report& r) {
  const std::string tail = " tasks started on other threads had not ended";
  for (const auto& n : r.notes)
    if (n.rfind("tbb: ", 0) == 0 && n.find(tail) != std::string::npos) return std::stoull(n.substr(5));
  return 0;
}

// name -> value from the ground-truth file ("tasks N" lines).
inline std::map<std::string, long> read_truth(const std::string& path) {
  std::map<std::string, long> out;
  std::ifstream in(path);
  std::string key;
  long value = 0;
  while (in >> key >> value) out[key] = value;
  std::remove(path.c_str());
  return out;
}

}  // namespace rubato::test::preload
