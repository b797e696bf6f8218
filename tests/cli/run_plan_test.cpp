#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "cli_test_support.hpp"
#include "experiment/process.hpp"
#include "experiment/progress.hpp"
#include "experiment/run_plan.hpp"
#include "experiment/tool_locator.hpp"

using namespace rubato::cli;

TEST_CASE("Cli.Run.PlanInterleavesAndRotatesPolicies", "[cli][run]") {
  const auto plan = interleaved_plan({"baseline", "workpath", "hermes"}, {1, 2}, 3);
  REQUIRE(plan.size() == 18);
  std::vector<std::string> first_of_trial;
  std::map<std::string, int> first_count;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (i % 3 == 0) ++first_count[plan[i].policy];    // which policy opens each (trial, workers) round
    CHECK(plan[i].trial == static_cast<int>(i / 6));  // every trial completes before the next
    CHECK(plan[i].workers == (i % 6 < 3 ? 1 : 2));
  }
  // Each policy opens a round equally often: warm-up and drift are shared.
  CHECK(first_count["baseline"] == 2);
  CHECK(first_count["workpath"] == 2);
  CHECK(first_count["hermes"] == 2);
  CHECK(plan[6].policy == "workpath");
  CHECK(plan[12].policy == "hermes");
}

TEST_CASE("Cli.Run.DirectoriesSubstitutionAndEnvironment", "[cli][run]") {
  CHECK(run_directory({3, "hermes", 2}) == "w2/hermes/trial-03");
  CHECK(run_directory({12, "fixed:1.6GHz", 4}) == "w4/fixed_1.6GHz/trial-12");
  CHECK(substitute_workers({"./k", "--threads={workers}", "{workers}{workers}"}, 4) ==
        std::vector<std::string>{"./k", "--threads=4", "44"});
  CHECK(command_line({"./k", "-n", "a b", ""}) == "./k -n 'a b' ''");
  const auto env =
      run_environment({0, "hermes", 2}, {"/abs/librubato_ompt.so", "emulated", "opteron-6378"}, "/r/x.json");
  std::map<std::string, std::string> m(env.begin(), env.end());
  CHECK(m.at("OMP_TOOL_LIBRARIES") == "/abs/librubato_ompt.so");
  CHECK(m.at("OMP_NUM_THREADS") == "2");
  CHECK(m.at("RUBATO_POLICY") == "hermes");
  CHECK(m.at("RUBATO_REPORT") == "/r/x.json");
  CHECK(m.at("RUBATO_BACKEND") == "emulated");
  CHECK(m.at("RUBATO_PROFILE") == "opteron-6378");
  const auto bare = run_environment({0, "baseline", 1}, {}, "/r/y.json");
  std::map<std::string, std::string> b(bare.begin(), bare.end());
  CHECK(b.count("OMP_TOOL_LIBRARIES") == 0);  // no tool found: nothing to load
  CHECK(b.count("RUBATO_BACKEND") == 0);      // left to the user's environment
}

TEST_CASE("Cli.Run.ProgressText", "[cli][run]") {
  CHECK(format_duration(5.4) == "5s");
  CHECK(format_duration(185) == "3m05s");
  CHECK(format_duration(3725) == "1h02m");
  CHECK(format_duration(-1) == "?");
  const std::string line = progress_bar_line(5, 20, {2, "hermes", 2}, 20, 75, 10);
  CHECK(line == "[##........] 5/20  trial 3/20  hermes  2 workers  ETA 1m15s");
}

TEST_CASE("Cli.Run.ChildExitStatusTimeoutAndStartFailure", "[cli][run]") {
  rubato::test::ScratchDir d;
  const std::string out = (d.path() / "out").string(), err = (d.path() / "err").string();
  auto r = run_child({"/bin/sh", "-c", "echo hi; echo oops >&2; echo $RUBATO_POLICY; exit 3"},
                     {{"RUBATO_POLICY", "workload"}}, out, err, 0);
  CHECK(r.started);
  CHECK(r.exit_status == 3);
  std::ifstream o(out);
  std::string l1, l2;
  std::getline(o, l1);
  std::getline(o, l2);
  CHECK(l1 == "hi");
  CHECK(l2 == "workload");
  r = run_child({"/bin/sh", "-c", "kill -9 $$"}, {}, out, err, 0);
  CHECK(r.exit_status == 128 + 9);
  // The timeout reaches the whole group: the shell and the sleep it started.
  r = run_child({"/bin/sh", "-c", "sleep 30; exit 0"}, {}, out, err, 0.3);
  CHECK(r.timed_out);
  CHECK(r.exit_status == 128 + 15);
  CHECK(r.elapsed_s < 10);
  r = run_child({"/definitely/not/here"}, {}, out, err, 0);
  CHECK_FALSE(r.started);
  CHECK(r.error.find("/definitely/not/here") != std::string::npos);
}

TEST_CASE("Cli.Run.ToolCandidatesNextToTheBinary", "[cli][run]") {
  const auto c = ompt_tool_candidates("/opt/rubato/bin");
  REQUIRE(c.size() >= 2);
  CHECK(c[0] == "/opt/rubato/frontends/ompt/librubato_ompt.so");  // build tree layout
  CHECK(std::find(c.begin(), c.end(), "/opt/rubato/lib/librubato_ompt.so") != c.end());
  rubato::test::ScratchDir d;
  std::filesystem::create_directories(d.path() / "bin");
  CHECK_FALSE(find_ompt_tool((d.path() / "bin").string()));
  rubato::test::write_file(d.path() / "lib" / "librubato_ompt.so", "");
  const auto found = find_ompt_tool((d.path() / "bin").string());
  REQUIRE(found);
  CHECK(std::filesystem::path(*found).is_absolute());
}
