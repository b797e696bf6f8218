#include <catch2/catch.hpp>

#include "engine_fixture.hpp"
#include "rubato/core/io/report.hpp"

using namespace rubato;

TEST_CASE("Report.Json.RoundTrip", "[core][report]") {
  test::EngineFixture f(test::options_for(TempoPolicy::hermes, 2, 4));
  f.engine.worker_begin(0);
  f.engine.worker_begin(1);
  f.engine.push(0);
  f.engine.steal(1, 0);
  f.engine.task_begin(1);
  f.clock.advance(2'000'000);
  f.engine.task_end(1);
  Report r;
  r.tool_version = "test";
  r.host = "h";
  r.rank = 3;
  r.backend = "emulated";
  r.profile = "generic";
  r.wall_s = 1.5;
  r.energy = {true, 12.5, "modeled:generic", ""};
  r.notes.push_back("a note");
  r.external["likwid.energy_j"] = 3.0;
  r.workload = "./bench_knn -n 1000";
  r.trial = 4;
  r.exit_status = 3;
  fill_from_engine(r, f.engine);
  std::string err;
  auto back = report_from_json(to_json(r), err);
  REQUIRE(back);
  CHECK(err.empty());
  CHECK(back->policy == "hermes");
  CHECK(back->rank == 3);
  CHECK(back->energy.source == "modeled:generic");
  CHECK(back->energy.joules == 12.5);
  REQUIRE(back->workers.size() == 2);
  CHECK(back->workers[1].steals == 1);
  CHECK(back->workers[0].stolen_from == 1);
  CHECK(back->workers[1].busy_s_at_level.at(1) == Approx(0.002));
  CHECK(back->external.at("likwid.energy_j") == 3.0);
  CHECK(back->workload == "./bench_knn -n 1000");
  CHECK(back->trial == 4);
  CHECK(back->exit_status == 3);
  CHECK(to_json(*back) == to_json(r));
}

TEST_CASE("Report.Json.ErrorsNameOffsetOrField", "[core][report]") {
  std::string err;
  CHECK_FALSE(report_from_json("{\"schema_version\": 1, ", err));
  CHECK(err.find("offset") != std::string::npos);
  CHECK_FALSE(report_from_json("[1,2]", err));
  CHECK(err.find("offset 0") != std::string::npos);
  CHECK_FALSE(report_from_json(R"({"schema_version": 99, "policy": {"name": "x"}, "wall_s": 1})", err));
  CHECK(err.find("schema_version 99") != std::string::npos);
  CHECK_FALSE(report_from_json(R"({"schema_version": 1, "policy": {"name": "x"}, "wall_s": "slow"})", err));
  CHECK(err.find("wall_s") != std::string::npos);
  CHECK_FALSE(report_from_json(
      R"({"schema_version": 1, "policy": {"name": "x"}, "wall_s": 1, "workers": [{"id": 0, "steals": -1}]})", err));
  CHECK(err.find("workers[0].steals") != std::string::npos);
  CHECK_FALSE(report_from_json(R"({"schema_version": 1, "policy": {"name": "x"}, "wall_s": 1, "trial": -2})", err));
  CHECK(err.find("trial") != std::string::npos);
  // An energy figure without its source is refused (honesty rule).
  CHECK_FALSE(report_from_json(
      R"({"schema_version": 1, "policy": {"name": "x"}, "wall_s": 1, "energy": {"available": true, "joules": 3, "source": ""}})",
      err));
  CHECK(err.find("source") != std::string::npos);
  // A number too large for a double: refused with where it is, not thrown
  // (found by fuzzing; it used to escape and terminate the reader).
  CHECK_FALSE(report_from_json(R"({"schema_version": 1, "wall_s": 6.21e529})", err));
  CHECK(err.rfind("offset 32: not valid JSON", 0) == 0);
}

TEST_CASE("Report.Path.Patterns", "[core][report]") {
  CHECK(expand_path_pattern("r-%p-%h-%r.json", 42, "node1", 7) == "r-42-node1-7.json");
  CHECK(expand_path_pattern("r-%r.json", 42, "n", std::nullopt) == "r-0.json");
  CHECK(expand_path_pattern("100%%-%x%", 1, "n", std::nullopt) == "100%-%x%");
}

// How the run ended: written when known, read back, optional.
TEST_CASE("Report.Json.EndedRoundTripsAndIsOptional", "[core][report]") {
  Report r;
  r.ended = "signal SIGTERM";
  std::string err;
  auto back = report_from_json(to_json(r), err);
  REQUIRE(back);
  CHECK(back->ended == "signal SIGTERM");
  r.ended.clear();  // a report of an older version has no "ended"
  const std::string old = to_json(r);
  CHECK(old.find("\"ended\"") == std::string::npos);
  back = report_from_json(old, err);
  REQUIRE(back);
  CHECK(err.empty());
  CHECK(back->ended.empty());
}

TEST_CASE("Report.Json.ExitStatusLeftOutWhenNotKnown", "[core][report]") {
  Report r;
  r.exit_status = 128 + 15;
  std::string err;
  auto back = report_from_json(to_json(r), err);
  REQUIRE(back);
  CHECK(back->exit_status == 143);
  r.exit_status.reset();  // the front-end could not know how the program ended
  const std::string unknown = to_json(r);
  CHECK(unknown.find("\"exit_status\"") == std::string::npos);  // never a guessed 0
  back = report_from_json(unknown, err);
  REQUIRE(back);
  CHECK_FALSE(back->exit_status.has_value());
  // No shell reports a status outside 0..255.
  std::string bad = to_json(r);
  bad.insert(bad.rfind('}'), ", \"exit_status\": 300");
  CHECK_FALSE(report_from_json(bad, err));
  CHECK(err.find("exit_status") != std::string::npos);
}
