// A simulated run's report: the real report format, labelled as simulated,
// and the same bytes for the same seed.
#include <catch2/catch.hpp>

#include "rubato/core/io/report.hpp"
#include "rubato/sim/sim_report.hpp"
#include "sim_fixture.hpp"

using namespace rubato;
using namespace rubato::sim;
using namespace rubato::sim::test;

namespace {
std::string run_json(const std::string& policy_text, std::uint64_t seed, SpawnModel model = SpawnModel::cilk) {
  const MachineProfile p = two_level_profile(8);
  const Program prog = program("fib:16:work=100ns,loop:2e4:grain=16:iter=40ns:jitter=0.5", 2e9);
  SimOptions o = options(p, 6, policy_text);
  o.seed = seed;
  o.model = model;
  o.engine.sample_interval_ns = 2000;
  Simulation s(o, prog);
  s.run();
  return to_json(make_report(s, prog.description, "test"));
}
}  // namespace

TEST_CASE("Sim.Report.LabelsAndRoundTrip", "[sim][report]") {
  const MachineProfile p = two_level_profile(4);
  const Program prog = program("fib:12", 2e9);
  Simulation s(options(p, 3, "hermes"), prog);
  CHECK_THROWS_AS(make_report(s, "fib:12", "x"), std::logic_error);
  const SimResult& r = s.run();
  const Report rep = make_report(s, "fib:12", "rubato simulate --dag fib:12");
  CHECK(rep.frontend == "sim");
  CHECK(rep.backend == "simulated");
  CHECK(rep.energy.available);
  CHECK(rep.energy.source == "simulated:test-2level");
  CHECK(rep.energy.joules == r.energy_j);
  CHECK(rep.policy == "hermes");
  CHECK(rep.workers_requested == 3);
  CHECK(rep.wall_s == static_cast<double>(r.makespan_ns) * 1e-9);
  REQUIRE(rep.workers.size() == 3);
  std::uint64_t completed = 0;
  for (const auto& w : rep.workers) completed += w.tasks_completed;
  CHECK(completed == r.tasks);
  CHECK(rep.workers[2].core == 2);
  std::string error;
  const auto back = report_from_json(to_json(rep), error);
  REQUIRE(back);
  CHECK(back->energy.source == rep.energy.source);
  CHECK(back->external.at("sim.tasks") == static_cast<double>(r.tasks));
}

TEST_CASE("Sim.Determinism.SameSeedSameBytes", "[sim][determinism]") {
  for (const char* pol : {"baseline", "hermes", "workload"}) {
    for (SpawnModel m : {SpawnModel::cilk, SpawnModel::omp}) {
      INFO(pol << " " << to_string(m));
      const std::string a = run_json(pol, 7, m);
      CHECK(a == run_json(pol, 7, m));
      CHECK(a != run_json(pol, 8, m));  // the seed does drive victim selection
    }
  }
}
