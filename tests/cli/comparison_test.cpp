#include <catch2/catch.hpp>

#include <cmath>

#include "cli_test_support.hpp"
#include "render/compare_output.hpp"
#include "analysis/comparison.hpp"
#include "experiment/run_index.hpp"
#include "analysis/run_records.hpp"

using namespace rubato;
using namespace rubato::cli;
using rubato::test::make_report;
using rubato::test::ScratchDir;
using rubato::test::write_file;

namespace {

void put(const ScratchDir& d, const std::string& name, const Report& r) { write_file(d.path() / name, to_json(r)); }

const PolicyResult& policy_of(const Comparison& c, const std::string& p) {
  REQUIRE(c.workloads.size() >= 1);
  const PolicyResult* found = c.workloads.front().find(p);
  REQUIRE(found);
  return *found;
}

}  // namespace

TEST_CASE("Cli.Compare.MeansSkipAndNormalisation", "[cli][compare]") {
  ScratchDir d;
  // Trials 0 and 1 are warm-up (dropped by skip 2): give them absurd values so a
  // wrong skip shows in the means.
  const double base_t[] = {100, 100, 1.0, 1.2, 1.1};
  const double base_e[] = {900, 900, 10, 12, 11};
  const double herm_t[] = {100, 100, 1.1, 1.3, 1.2};
  const double herm_e[] = {900, 900, 9, 10, 11};
  for (int t = 0; t < 5; ++t) {
    put(d, "b" + std::to_string(t) + ".json", make_report("./knn -n 5", "baseline", 2, t, base_t[t], base_e[t]));
    put(d, "h" + std::to_string(t) + ".json", make_report("./knn -n 5", "hermes", 2, t, herm_t[t], herm_e[t]));
  }
  const Comparison c = compare_runs(load_run_records({d.str()}), {2, "baseline"});
  REQUIRE(c.workloads.size() == 1);
  CHECK(c.workloads[0].workers == 2);
  CHECK(c.workloads[0].policies.front().policy == "baseline");  // baseline listed first
  const PolicyResult& b = policy_of(c, "baseline");
  const PolicyResult& h = policy_of(c, "hermes");
  CHECK(b.used == 3);
  CHECK(b.skipped == 2);
  CHECK(b.time_s.mean == Approx(1.1));
  CHECK(b.energy_j.mean == Approx(11.0));
  CHECK(b.energy_source == "modeled:test");
  // EDP per trial: 10, 14.4, 12.1 -> mean 12.1667
  CHECK(b.edp.mean == Approx((10.0 + 14.4 + 12.1) / 3));
  CHECK(h.time_s.mean == Approx(1.2));
  CHECK(h.energy_j.mean == Approx(10.0));
  // energy saving = 1 - 10/11 = 9.09 %, time loss = 1.2/1.1 - 1 = 9.09 %
  REQUIRE(h.energy_saving_pct());
  CHECK(h.energy_saving_pct()->value == Approx(100.0 / 11));
  CHECK(h.time_loss_pct()->value == Approx(100.0 / 11));
  // hermes EDP per trial: 9.9, 13, 13.2 -> 12.0333
  CHECK(h.edp_ratio->value == Approx(((9.9 + 13 + 13.2) / 3) / ((10.0 + 14.4 + 12.1) / 3)));
  CHECK(std::isfinite(h.time_ratio->ci95));
  CHECK_FALSE(b.time_ratio);  // the reference is not normalised to itself
  // steals: 10 per worker x 2; busy share 75 / 25 %
  CHECK(h.steals.mean == Approx(20));
  CHECK(h.transitions.mean == Approx(4));
  REQUIRE(h.level_share.size() == 2);
  CHECK(h.level_share[0] == Approx(0.75));
  const std::string text = comparison_text(c);
  CHECK(text.find("knn -n 5 — 2 workers") != std::string::npos);
  INFO(text);
  CHECK(text.find("(reference)") != std::string::npos);
  CHECK(text.find("20 ± 0") != std::string::npos);  // steals: identical in every trial
  CHECK(text.find("modeled:test") != std::string::npos);
}

TEST_CASE("Cli.Compare.FailedRunsKeptNotAveraged", "[cli][compare]") {
  ScratchDir d;
  for (int t = 0; t < 3; ++t) put(d, "b" + std::to_string(t) + ".json", make_report("./p", "baseline", 1, t, 1.0, 5.0));
  Report failed = make_report("./p", "baseline", 1, 3, 50.0, 500.0);
  failed.exit_status = 3;
  put(d, "b3.json", failed);
  write_file(d.path() / "broken.json", "{\"schema_version\": 1,\n \"wall_s\": oops}");
  const Comparison c = compare_runs(load_run_records({d.str()}), {0, "baseline"});
  const PolicyResult& b = policy_of(c, "baseline");
  CHECK(b.used == 3);
  CHECK(b.failed == 1);
  CHECK(b.time_s.mean == Approx(1.0));
  REQUIRE(c.failed.size() == 2);
  bool exit_listed = false, broken_listed = false;
  for (const auto& f : c.failed) {
    exit_listed |= f.reason.find("exit status 3") != std::string::npos && f.trial == 3;
    broken_listed |= f.reason.find("broken.json") != std::string::npos && f.reason.find("offset") != std::string::npos;
  }
  CHECK(exit_listed);
  CHECK(broken_listed);
  CHECK(comparison_text(c).find("failed runs (kept, not averaged): 2") != std::string::npos);
}

TEST_CASE("Cli.Compare.IndexStubsAndIdentityOfUnreadableReports", "[cli][compare]") {
  ScratchDir d;
  RunIndex index;
  index.workload = "./p";
  index.trials = 2;
  for (int t = 0; t < 2; ++t) {
    RunEntry e;
    e.trial = t;
    e.policy = "hermes";
    e.workers = 2;
    e.dir = "w2/hermes/trial-" + std::to_string(t);
    if (t == 0) {
      e.reports = {e.dir + "/report.r0.json"};
      write_file(d.path() / e.reports[0], "{\"schema_version\": 1, \"policy\": ");  // truncated by a crash
      e.exit_status = 139;
    } else {
      e.error = "timed out after 5 s";
      e.exit_status = 143;
    }
    index.runs.push_back(e);
  }
  write_file(d.path() / "rubato-index.json", index_to_json(index));
  const auto records = load_run_records({d.str()});
  REQUIRE(records.size() == 2);
  for (const auto& r : records) {
    CHECK(r.policy == "hermes");  // identity comes from the index even without a readable report
    CHECK(r.workers == 2);
    CHECK_FALSE(r.ok());
  }
  const Comparison c = compare_runs(records, {0, "baseline"});
  const PolicyResult& h = policy_of(c, "hermes");
  CHECK(h.failed == 2);
  CHECK(h.used == 0);
  bool timed_out = false;
  for (const auto& f : c.failed) timed_out |= f.reason.find("timed out") != std::string::npos;
  CHECK(timed_out);
}

TEST_CASE("Cli.Compare.SkipComesFromTheRunsIndexUnlessGiven", "[cli][compare]") {
  // rubato run --skip 1: compare and report drop one first trial, as the run
  // said, unless --skip is given on their own command line.
  ScratchDir d;
  RunIndex index;
  index.workload = "./p";
  index.trials = 4;
  index.skip = 1;
  for (int t = 0; t < 4; ++t) {
    RunEntry e;
    e.trial = t;
    e.policy = "baseline";
    e.workers = 2;
    e.dir = "w2/baseline/trial-" + std::to_string(t);
    e.reports = {e.dir + "/report.json"};
    write_file(d.path() / e.reports[0], to_json(make_report("./p", "baseline", 2, t, 1.0 + t, 10.0)));
    index.runs.push_back(e);
  }
  write_file(d.path() / "rubato-index.json", index_to_json(index));
  const auto records = load_run_records({d.str()});
  CompareOptions from_index;  // the command line's default, not given
  const Comparison c = compare_runs(records, from_index);
  CHECK(c.skip == 1);
  CHECK(policy_of(c, "baseline").skipped == 1);
  CHECK(policy_of(c, "baseline").used == 3);
  CompareOptions given;
  given.skip = 2;
  given.skip_given = true;
  const Comparison g = compare_runs(records, given);
  CHECK(g.skip == 2);
  CHECK(policy_of(g, "baseline").skipped == 2);
}

TEST_CASE("Cli.Compare.MixedEnergySourcesAreNotAveraged", "[cli][compare]") {
  ScratchDir d;
  put(d, "a.json", make_report("./p", "baseline", 1, 0, 1.0, 5.0, "modeled:x"));
  put(d, "b.json", make_report("./p", "baseline", 1, 1, 1.0, 6.0, "measured:rapl"));
  put(d, "c.json", make_report("./p", "hermes", 1, 0, 1.0, 4.0, "measured:rapl"));
  put(d, "e.json", make_report("./p", "hermes", 1, 1, 1.0, 4.0, "measured:rapl"));
  const Comparison c = compare_runs(load_run_records({d.str()}), {0, "baseline"});
  const PolicyResult& b = policy_of(c, "baseline");
  const PolicyResult& h = policy_of(c, "hermes");
  CHECK(b.energy_source.empty());
  CHECK(b.energy_note.find("differ") != std::string::npos);
  CHECK(h.energy_source == "measured:rapl");
  CHECK_FALSE(h.energy_ratio);  // nothing to normalise against
  CHECK(h.time_ratio);
  CHECK(h.normalise_note.find("energy not normalised") != std::string::npos);
}

TEST_CASE("Cli.Compare.MultiRankMerge", "[cli][compare]") {
  ScratchDir d;
  // Trial 0 ran as 3 ranks on 2 nodes. Measured energy is the node meter each
  // rank saw (counted once per node); time is the slowest rank's.
  auto rank = [&](int r, const std::string& host, double wall, double joules, const std::string& source) {
    Report rep = make_report("./mpi_app", "hermes", 2, 0, wall, joules, source);
    rep.rank = r;
    rep.host = host;
    return rep;
  };
  put(d, "m0.json", rank(0, "n1", 2.0, 100, "measured:rapl"));
  put(d, "m1.json", rank(1, "n1", 2.5, 104, "measured:rapl"));
  put(d, "m2.json", rank(2, "n2", 1.5, 80, "measured:rapl"));
  put(d, "s0.json", rank(0, "n1", 2.0, 10, "modeled:p"));
  put(d, "s1.json", rank(1, "n1", 3.0, 11, "modeled:p"));
  {
    Report a = rank(0, "n1", 2.0, 10, "modeled:p");
    a.policy = "baseline";
    put(d, "s2.json", a);
  }
  const Comparison c = compare_runs(load_run_records({d.str()}), {0, "hermes"});
  const PolicyResult& h = policy_of(c, "hermes");
  REQUIRE(h.trials.size() == 1);
  // Energy sources differ between the two sets (same trial number): the trial is
  // one run of 5 ranks; sources mixed -> not averaged.
  CHECK(h.trials[0].ranks == 5);
  CHECK_FALSE(h.trials[0].energy_available);

  ScratchDir d2;
  put(d2, "m0.json", rank(0, "n1", 2.0, 100, "measured:rapl"));
  put(d2, "m1.json", rank(1, "n1", 2.5, 104, "measured:rapl"));
  put(d2, "m2.json", rank(2, "n2", 1.5, 80, "measured:rapl"));
  const Comparison c2 = compare_runs(load_run_records({d2.str()}), {0, "baseline"});
  const TrialResult& t = policy_of(c2, "hermes").trials.at(0);
  CHECK(t.ranks == 3);
  CHECK(t.hosts == 2);
  CHECK(t.time_s == Approx(2.5));
  CHECK(t.energy_j == Approx(104 + 80));
  CHECK(t.steals == 3 * 2 * 10);

  ScratchDir d3;
  put(d3, "s0.json", rank(0, "n1", 2.0, 10, "modeled:p"));
  put(d3, "s1.json", rank(1, "n1", 3.0, 11, "modeled:p"));
  const Comparison c3 = compare_runs(load_run_records({d3.str()}), {0, "baseline"});
  CHECK(policy_of(c3, "hermes").trials.at(0).energy_j == Approx(21));  // modeled: each rank's own cores
}

TEST_CASE("Cli.Compare.ReportsWithoutTrialNumbersOrderByStart", "[cli][compare]") {
  ScratchDir d;
  for (int i = 0; i < 4; ++i) {
    Report r = make_report("", "baseline", 1, 0, 1.0 + i, 2.0);
    r.trial.reset();
    r.workload.clear();
    r.command = "./sim_app";
    r.started_at = "2024-01-01T00:00:0" + std::to_string(i) + "Z";
    put(d, "r" + std::to_string(3 - i) + ".json", r);
  }
  const Comparison c = compare_runs(load_run_records({d.str()}), {2, "baseline"});
  const PolicyResult& b = policy_of(c, "baseline");
  CHECK(c.workloads[0].workload == "./sim_app");
  CHECK(b.used == 2);
  CHECK(b.time_s.mean == Approx(3.5));  // the two started last
}

TEST_CASE("Cli.Compare.CsvAndJsonCarryTheFigures", "[cli][compare]") {
  ScratchDir d;
  for (int t = 0; t < 3; ++t) {
    put(d, "b" + std::to_string(t) + ".json", make_report("./p a,b", "baseline", 1, t, 2.0, 4.0));
    put(d, "w" + std::to_string(t) + ".json", make_report("./p a,b", "workpath", 1, t, 2.0 + t, 3.0));
  }
  const Comparison c = compare_runs(load_run_records({d.str()}), {0, "baseline"});
  const std::string csv = comparison_csv(c);
  CHECK(csv.rfind("workload,workers,policy,", 0) == 0);
  CHECK(csv.find("\"./p a,b\",1,baseline,3,3,0,0,2,0,4,0,modeled:test") != std::string::npos);
  CHECK(csv.find("workpath") != std::string::npos);
  const std::string json = comparison_json(c);
  CHECK(json.find("\"energy_saving_pct\"") != std::string::npos);
  CHECK(json.find("\"value\": 25.0") != std::string::npos);  // 1 - 3/4
}

TEST_CASE("Cli.Compare.Formatting", "[cli][compare]") {
  CHECK(format_mean_ci(1.23456, 0.0123) == "1.235 ± 0.012");
  CHECK(format_mean_ci(345.61, 2.14) == "345.6 ± 2.1");
  CHECK(format_mean_ci(426.2, 25.3) == "426 ± 25");
  CHECK(format_mean_ci(1.23456, NAN) == "1.235");
  CHECK(format_mean_ci(NAN, 1) == "—");
  CHECK(format_mean_ci(20, 0) == "20 ± 0");
  CHECK(format_mean_ci(5.524e-4, 2.9e-6) == "5.524e-04 ± 2.9e-06");
  CHECK(format_mean_ci(2.5e8, 3.1e6) == "2.500e+08 ± 3.1e+06");
  CHECK(display_workload("/a/b/knn_omp -n 5") == "knn_omp -n 5");
  CHECK(display_workload("prog") == "prog");
}

TEST_CASE("Cli.RunIndex.NumberTooLargeIsAnErrorWithItsOffset", "[cli]") {
  std::string err;
  CHECK_FALSE(index_from_json(R"({"rubato_index": 1, "runs": [], "x": 1e999})", err));
  CHECK(err.rfind("offset 37: not valid JSON", 0) == 0);
}

// Waiting (rubato's own, beyond the papers): the waiting figures of every worker, summed per trial and
// averaged per policy, in the table, the CSV and the JSON.
TEST_CASE("Cli.Compare.WaitingColumns", "[cli][compare][slack]") {
  ScratchDir d;
  for (int t = 0; t < 3; ++t) {
    put(d, "b" + std::to_string(t) + ".json", make_report("./p", "baseline", 2, t, 1.0, 10.0));
    Report s = make_report("./p", "slack", 2, t, 1.0, 9.0);
    for (WorkerReport& w : s.workers) {
      w.wait_s = 0.25 + 0.05 * t;  // 0.25, 0.30, 0.35 per worker
      w.wait_slowed_s = 0.2;
      w.slowed_wakeups = 3;
      w.raise_delay_s = 3 * 2e-5;
    }
    put(d, "s" + std::to_string(t) + ".json", s);
  }
  const Comparison c = compare_runs(load_run_records({d.str()}), {0, "baseline"});
  const PolicyResult& s = policy_of(c, "slack");
  CHECK(s.wait_s.mean == Approx(0.6));  // two workers: 0.5, 0.6, 0.7
  CHECK(s.wait_slowed_s.mean == Approx(0.4));
  CHECK(s.slowed_wakeups.mean == Approx(6));
  CHECK(s.raise_delay_s.mean == Approx(2e-5));  // per wake-up
  CHECK(policy_of(c, "baseline").wait_slowed_s.mean == 0);
  const std::string text = comparison_text(c);
  INFO(text);
  CHECK(text.find("slowed wait [s]") != std::string::npos);
  CHECK(text.find("slowed wake-ups") != std::string::npos);
  CHECK(text.find("raise lands") != std::string::npos);
  CHECK(comparison_csv(c).find(",wait_s,wait_slowed_s,slowed_wakeups,raise_delay_s") != std::string::npos);
  CHECK(comparison_json(c).find("\"wait_slowed_s\"") != std::string::npos);
}
