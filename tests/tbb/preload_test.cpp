// Preload mode: an unmodified oneTBB program run with
// LD_PRELOAD=librubato_tbb_preload.so writes a report that says steals are not
// observed, with its threads' time in the arena; its output is unchanged.
#include <catch2/catch.hpp>

#ifdef RUBATO_TBB_PRELOAD_LIBRARY  // the preload library is not built with sanitizers

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "rubato/core/report.hpp"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int run(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("Tbb.Preload.UnmodifiedProgram", "[tbb]") {
  const std::string report = "tbb_preload_test_report.json";
  const std::string out = "tbb_preload_test_out.txt";
  std::remove(report.c_str());
  const std::string program = RUBATO_TBB_PLAIN_PROGRAM;
  REQUIRE(run(program + " > " + out) == 0);
  const std::string plain_output = read_file(out);
  REQUIRE(run("LD_PRELOAD=" RUBATO_TBB_PRELOAD_LIBRARY " RUBATO_REPORT=" + report +
              " RUBATO_BACKEND=dry-run RUBATO_LOG=error " + program + " > " + out) == 0);
  CHECK(read_file(out) == plain_output);
  std::remove(out.c_str());
  const std::string text = read_file(report);
  std::remove(report.c_str());
  REQUIRE_FALSE(text.empty());
  std::string error;
  const auto r = rubato::report_from_json(text, error);
  REQUIRE(r);
  CHECK(r->frontend == "tbb-preload");
  CHECK_FALSE(r->steals_observed);
  bool says = false;
  for (const auto& n : r->notes) says = says || n == "steals are not observed in preload mode";
  CHECK(says);
  REQUIRE_FALSE(r->workers.empty());
  double busy = 0;
  for (const auto& w : r->workers) {
    CHECK(w.pushes == 0);
    CHECK(w.steals == 0);
    busy += w.busy_s;
  }
  CHECK(busy > 0);
}

TEST_CASE("Tbb.Preload.ProcessesWithoutOneTbbAreLeftAlone", "[tbb]") {
  const std::string report = "tbb_preload_shell_report.json";
  std::remove(report.c_str());
  // /bin/true does not use oneTBB: no session, no report.
  REQUIRE(run("LD_PRELOAD=" RUBATO_TBB_PRELOAD_LIBRARY " RUBATO_REPORT=" + report + " /bin/true") == 0);
  std::FILE* f = std::fopen(report.c_str(), "r");
  CHECK(f == nullptr);
  if (f) std::fclose(f);
}

#endif  // RUBATO_TBB_PRELOAD_LIBRARY
