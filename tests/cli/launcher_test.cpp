// `rubato run --launcher`: the launch line each launcher gets, the
// ranks it asks for, the index that records it, and how `rubato compare`
// merges a trial's ranks node by node.
#include <catch2/catch.hpp>

#include "cli_test_support.hpp"
#include "analysis/comparison.hpp"
#include "render/compare_output.hpp"
#include "experiment/launcher.hpp"
#include "experiment/run_harvest.hpp"
#include "experiment/run_index.hpp"
#include "analysis/run_records.hpp"

using namespace rubato;
using namespace rubato::cli;
using rubato::test::make_report;
using rubato::test::ScratchDir;

namespace {

void put_report(const ScratchDir& d, const std::string& name, const Report& r) {
  rubato::test::write_file(d.path() / name, to_json(r));
}

const PolicyResult& launched_policy(const Comparison& c, const std::string& policy) {
  REQUIRE(c.workloads.size() == 1);
  const PolicyResult* p = c.workloads[0].find(policy);
  REQUIRE(p != nullptr);
  return *p;
}

// Rank `r` on `host`: modeled energy `cores + uncore`, the uncore kept apart as the tool does.
Report modeled_rank(const std::string& policy, int trial, int r, const std::string& host, double wall, double cores,
                    std::optional<double> uncore) {
  Report rep = make_report("./hybrid", policy, 2, trial, wall, cores + uncore.value_or(0), "modeled:p");
  rep.rank = r;
  rep.host = host;
  rep.external[kModeledEnergyKey] = rep.energy.joules;
  if (uncore) rep.external[kModeledUncoreKey] = *uncore;
  for (auto& w : rep.workers) w.tasks_completed = 7;
  return rep;
}

}  // namespace

TEST_CASE("Cli.Launcher.SplitsLikeAShell", "[cli][launcher]") {
  CHECK(split_command_words("mpirun  -np 4 --map-by 'ppr:1:node' -x \"A=b c\" a\\ b") ==
        std::vector<std::string>{"mpirun", "-np", "4", "--map-by", "ppr:1:node", "-x", "A=b c", "a b"});
  CHECK(split_command_words("  ").empty());
  CHECK_THROWS(split_command_words("srun 'unterminated"));
}

TEST_CASE("Cli.Launcher.KindFromNameAndVersion", "[cli][launcher]") {
  CHECK(kind_from_name("/usr/bin/srun") == LauncherKind::slurm);
  CHECK(kind_from_name("mpirun.openmpi") == LauncherKind::open_mpi);
  CHECK(kind_from_name("orterun") == LauncherKind::open_mpi);
  CHECK(kind_from_name("mpiexec.hydra") == LauncherKind::mpich);
  CHECK(kind_from_name("mpirun.mpich") == LauncherKind::mpich);
  CHECK_FALSE(kind_from_name("mpirun").has_value());  // which MPI? ask it
  CHECK(kind_from_version("mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/") ==
        LauncherKind::open_mpi);
  CHECK(kind_from_version("HYDRA build details:\n    Version:                                 4.0.2") ==
        LauncherKind::mpich);
  CHECK(kind_from_version("Intel(R) MPI Library for Linux* OS, Version 2021.6") == LauncherKind::mpich);
  CHECK_FALSE(kind_from_version("usage: mylauncher [options]").has_value());
  CHECK(launcher_kind_from_name("slurm") == LauncherKind::slurm);
  CHECK_FALSE(launcher_kind_from_name("pbs").has_value());
}

TEST_CASE("Cli.Launcher.RequestedRanks", "[cli][launcher]") {
  CHECK(requested_ranks({"mpirun", "-np", "4", "--oversubscribe"}) == 4);
  CHECK(requested_ranks({"mpiexec", "-n", "3"}) == 3);
  CHECK(requested_ranks({"srun", "--ntasks=8"}) == 8);
  CHECK(requested_ranks({"srun", "-N", "2", "--ntasks-per-node=2"}) == 4);
  CHECK(requested_ranks({"srun", "--nodes=3", "--ntasks-per-node", "2", "--cpu-bind=cores"}) == 6);
  CHECK_FALSE(requested_ranks({"srun", "-N", "2"}).has_value());    // one task per node unless told: not assumed
  CHECK_FALSE(requested_ranks({"mpirun", "-N", "2"}).has_value());  // Open MPI's -N: per node, nodes unknown
  CHECK_FALSE(requested_ranks({"mpirun", "-np", "zero"}).has_value());
}

TEST_CASE("Cli.Launcher.PassesTheEnvironmentAsEachLauncherDocuments", "[cli][launcher]") {
  const EnvOverrides env{
      {"OMP_NUM_THREADS", "2"}, {"RUBATO_POLICY", "hermes"}, {"RUBATO_REPORT", "/r/report.r%r.%h.json"}};
  const std::vector<std::string> program{"./app", "--n", "10"};
  Launcher l;
  l.argv = {"mpirun", "-np", "2"};
  l.kind = LauncherKind::open_mpi;
  CHECK(launch_command(l, env, program) ==
        std::vector<std::string>{"mpirun", "-np", "2", "-x", "OMP_NUM_THREADS=2", "-x", "RUBATO_POLICY=hermes", "-x",
                                 "RUBATO_REPORT=/r/report.r%r.%h.json", "./app", "--n", "10"});
  l.kind = LauncherKind::mpich;
  CHECK(launch_command(l, {{"RUBATO_POLICY", "hermes"}}, program) ==
        std::vector<std::string>{"mpirun", "-np", "2", "-genv", "RUBATO_POLICY", "hermes", "./app", "--n", "10"});
  l.argv = {"srun", "-N", "2"};
  l.kind = LauncherKind::slurm;
  CHECK(launch_command(l, {{"RUBATO_POLICY", "hermes"}, {"ODD", "a,b"}}, program) ==
        std::vector<std::string>{"srun", "-N", "2", "--export=ALL,RUBATO_POLICY=hermes", "./app", "--n", "10"});
  l.kind = LauncherKind::inherit;
  CHECK(launch_command(l, env, program) == std::vector<std::string>{"srun", "-N", "2", "./app", "--n", "10"});
  // Ranks on other nodes do not inherit the launcher's environment: RUBATO_* and OMP_* travel too.
  CHECK(rank_environment({{"RUBATO_POLICY", "hermes"}}, {{"RUBATO_POLICY", "baseline"},
                                                         {"RUBATO_STATE_DIR", "/var/tmp/s"},
                                                         {"OMP_PLACES", "cores"},
                                                         {"HOME", "/root"}}) ==
        EnvOverrides{{"RUBATO_POLICY", "hermes"}, {"RUBATO_STATE_DIR", "/var/tmp/s"}, {"OMP_PLACES", "cores"}});
  CHECK(report_pattern("/r/w2/hermes/trial-00", true) == "/r/w2/hermes/trial-00/report.r%r.%h.json");
  CHECK(report_pattern("/r/w2/hermes/trial-00") == "/r/w2/hermes/trial-00/report.r%r.json");
}

TEST_CASE("Cli.Launcher.IndexRecordsTheLauncher", "[cli][launcher]") {
  RunIndex index;
  index.launcher = "srun -N 2 --ntasks-per-node=2";
  index.launcher_kind = "slurm";
  index.launcher_ranks = 4;
  index.runs.push_back({0,
                        "hermes",
                        2,
                        "w2/hermes/trial-00",
                        {"w2/hermes/trial-00/report.r0.n1.json", "w2/hermes/trial-00/report.r1.n1.json"},
                        0,
                        1.0,
                        ""});
  std::string error;
  const auto back = index_from_json(index_to_json(index), error);
  REQUIRE(back);
  CHECK(back->launcher == index.launcher);
  CHECK(back->launcher_kind == "slurm");
  CHECK(back->launcher_ranks == 4);
  CHECK(back->runs.at(0).reports.size() == 2);
  // An index from before --launcher still reads.
  const auto old = index_from_json(R"({"rubato_index": 1, "workload": "./a", "runs": []})", error);
  REQUIRE(old);
  CHECK(old->launcher.empty());
}

TEST_CASE("Cli.Launcher.HarvestWantsEveryRanksReport", "[cli][launcher]") {
  ScratchDir d;
  auto label = [](int expected) {
    RunLabel l{{0, "hermes", 2}, "./hybrid", "./hybrid", 0, ""};
    l.launched = true;
    l.expected_ranks = expected;
    return l;
  };
  put_report(d, "t/report.r0.n1.json", modeled_rank("hermes", 0, 0, "n1", 1.0, 2.0, 1.0));
  put_report(d, "t/report.r2.n1.json", modeled_rank("hermes", 0, 2, "n1", 1.0, 2.0, 1.0));
  CHECK(harvest_run(d.str(), "t", label(3)).error == "reports from 2 of 3 ranks (none from rank 1)");
  CHECK(harvest_run(d.str(), "t", label(0)).error == "no report from rank 1");
  put_report(d, "t/report.r1.n2.json", modeled_rank("hermes", 0, 1, "n2", 1.0, 2.0, 1.0));
  const Harvest h = harvest_run(d.str(), "t", label(3));
  CHECK(h.error.empty());
  CHECK(h.ranks == 3);
  CHECK(h.hosts == 2);
  CHECK(harvest_run(d.str(), "t", label(4)).error == "reports from 3 of 4 ranks (none from rank 3)");
}

TEST_CASE("Cli.Compare.ModeledUncoreOncePerNode", "[cli][compare][launcher]") {
  ScratchDir d;
  // Two ranks on n1, one on n2: each node's uncore once (the longest rank's), every rank's cores.
  put_report(d, "a.json", modeled_rank("hermes", 0, 0, "n1", 2.0, 10, 4.0));
  put_report(d, "b.json", modeled_rank("hermes", 0, 1, "n1", 2.5, 12, 5.0));
  put_report(d, "c.json", modeled_rank("hermes", 0, 2, "n2", 1.5, 8, 3.0));
  const Comparison c = compare_runs(load_run_records({d.str()}), {0, "hermes"});
  const TrialResult& t = launched_policy(c, "hermes").trials.at(0);
  CHECK(t.ranks == 3);
  CHECK(t.hosts == 2);
  CHECK(t.time_s == Approx(2.5));
  CHECK(t.energy_j == Approx((5.0 + 10 + 12) + (3.0 + 8)));
  CHECK(t.energy_j < 14 + 17 + 11);  // never once per rank
  CHECK(t.steals == 3 * 2 * 10);
  CHECK(t.tasks == 3 * 2 * 7);
  CHECK(t.external.at(kModeledEnergyKey) == Approx(t.energy_j));
  CHECK(t.external.at(kModeledUncoreKey) == Approx(5.0 + 3.0));
  CHECK(nodes_ranks_text(c.workloads[0]) == "2 nodes, 3 ranks");
  CHECK(c.refused.empty());
  const std::string text = comparison_text(c);
  CHECK(text.find("— 2 nodes, 3 ranks") != std::string::npos);
}

TEST_CASE("Cli.Compare.MeasuredBesideModeledOncePerNode", "[cli][compare][launcher]") {
  ScratchDir d;
  // A measured figure (the node's RAPL, read by both ranks) with the model kept beside it.
  for (int r = 0; r < 2; ++r) {
    Report rep = modeled_rank("hermes", 0, r, "n1", 1.0 + r, 6, 2.0 + r);
    rep.energy = {true, 30.0 + r, "measured:rapl", ""};
    put_report(d, "m" + std::to_string(r) + ".json", rep);
  }
  const Comparison c = compare_runs(load_run_records({d.str()}), {0, "hermes"});
  const TrialResult& t = launched_policy(c, "hermes").trials.at(0);
  CHECK(t.energy_source == "measured:rapl");
  CHECK(t.energy_j == Approx(31.0));                               // the node's counter once
  CHECK(t.external.at(kModeledEnergyKey) == Approx(3.0 + 6 + 6));  // its uncore once, both ranks' cores
}

TEST_CASE("Cli.Compare.OldModeledReportsStillMerge", "[cli][compare][launcher]") {
  ScratchDir d;
  // Reports without the uncore part (older rubato versions wrote none): summed whole, and said so.
  put_report(d, "a.json", modeled_rank("hermes", 0, 0, "n1", 2.0, 10, std::nullopt));
  put_report(d, "b.json", modeled_rank("hermes", 0, 1, "n1", 3.0, 11, std::nullopt));
  const Comparison c = compare_runs(load_run_records({d.str()}), {0, "hermes"});
  CHECK(launched_policy(c, "hermes").trials.at(0).energy_j == Approx(21));
  bool said = false;
  for (const auto& n : c.notes) said |= n.find("uncore counts once per rank") != std::string::npos;
  CHECK(said);
}

TEST_CASE("Cli.Compare.RefusesDifferentNodeCounts", "[cli][compare][launcher]") {
  ScratchDir d;
  put_report(d, "b0.json", modeled_rank("baseline", 0, 0, "n1", 1.0, 5, 1.0));
  put_report(d, "b1.json", modeled_rank("baseline", 0, 1, "n1", 1.0, 5, 1.0));
  put_report(d, "h0.json", modeled_rank("hermes", 0, 0, "n1", 1.0, 5, 1.0));
  put_report(d, "h1.json", modeled_rank("hermes", 0, 1, "n2", 1.0, 5, 1.0));
  const Comparison c = compare_runs(load_run_records({d.str()}), {0, "baseline"});
  REQUIRE(c.refused.size() == 1);
  CHECK(c.refused[0] ==
        "./hybrid [2 workers]: trials ran on different numbers of nodes (baseline 1, hermes 2); "
        "not compared: compare the runs of each node count separately");
  // A single-process run is 1 node, 1 rank: its title stays as it was.
  ScratchDir s;
  put_report(s, "x.json", make_report("./plain", "baseline", 2, 0, 1.0, 3.0));
  const Comparison single = compare_runs(load_run_records({s.str()}), {0, "baseline"});
  CHECK(single.refused.empty());
  CHECK(nodes_ranks_text(single.workloads.at(0)) == "1 node, 1 rank");
  CHECK(workload_table(single, single.workloads[0]).title == "plain — 2 workers");
}
