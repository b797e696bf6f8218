// Memory-bus contention by the EFS model ([EFS] §3.1, Eqs. 10-11) and the
// efs throttling policy (§4) in the simulator, on the i5-2500 profile (the
// machine [EFS] measured: µ and P0..P4 of Eq. 25).
#include <catch2/catch.hpp>

#include <numeric>
#include <string>

#include "rubato/core/efs/efs_model.hpp"
#include "rubato/core/tempo/tempo_ladder.hpp"
#include "rubato/sim/efs_contention.hpp"
#include "rubato/sim/sim_report.hpp"
#include "sim_fixture.hpp"

using namespace rubato;
using namespace rubato::sim;
using namespace rubato::sim::test;

namespace {

MachineProfile i5_2500() {
  std::string error;
  auto p = load_profile("i5-2500", std::vector<std::string>{RUBATO_TEST_PROFILES_DIR}, error);
  if (!p) throw std::runtime_error(error);
  return *p;
}

struct MemRun {
  MemRun(const std::string& spec, std::size_t workers, const std::string& policy_text)
      : profile(i5_2500()), prog(program(spec, profile.frequencies_hz.front(), profile.beta)) {
    opt.profile = profile;
    opt.workers = workers;
    opt.engine.policy = policy(policy_text);
    opt.engine.ladder =
        TempoLadder::paper_default(profile.frequencies_hz);  // the CLI's default (18 levels is too many)
    opt.contention = &contention;
  }
  const SimResult& run() {
    sim = std::make_unique<Simulation>(opt, prog);
    return sim->run();
  }
  double seconds() const { return static_cast<double>(sim->result().makespan_ns) * 1e-9; }
  // Time-weighted mean number of workers running a task segment.
  double mean_busy() const {
    const auto& h = sim->result().busy_count_ns;
    double total = 0, weighted = 0;
    for (std::size_t n = 0; n < h.size(); ++n) {
      total += static_cast<double>(h[n]);
      weighted += static_cast<double>(n * h[n]);
    }
    return weighted / total;
  }
  double throttled_s() const {
    double t = 0;
    for (const auto& core : sim->result().core_time)
      for (const CoreTime& c : core) t += static_cast<double>(c.halted_ns) * 1e-9;
    return t;
  }
  EfsContention contention;
  MachineProfile profile;
  Program prog;
  SimOptions opt;
  std::unique_ptr<Simulation> sim;
};

// Eq. 11 for n identical threads of solo utilisation b, from core's model.
double eq11_slowdown(double b, std::size_t n) {
  const std::vector<double> solo(n, b);
  const efs::UtilisationPrediction p = efs::predict_utilisations(solo);
  REQUIRE(p.ok());
  return efs::slowdowns(solo, p.u).front();
}

}  // namespace

TEST_CASE("Sim.EfsContention.FourHighSoloSlowAsEq11", "[sim][efs]") {
  // Four tasks of 1 s solo at b = 0.9 run together for 1 s / slowdown.
  MemRun r("mem:4:solo=0.9:work=1s", 4, "baseline");
  r.run();
  const double expected = 1.0 / eq11_slowdown(0.9, 4);
  CHECK(expected > 3.0);  // the bus, not the cores, bounds them
  CHECK(r.seconds() == Approx(expected).epsilon(0.01));
  CHECK(r.mean_busy() == Approx(4).epsilon(0.01));
  CHECK(r.contention.solves() >= 1);
}

namespace {
// A leaf of f.a reference-ns of work, and a root spawning leaves of 1 s and 2 s.
class Leaf final : public Shape {
 public:
  explicit Leaf(double bus) : Shape(WorkClass{1.0, bus}) {}
  Step next(Frame& f) const override { return f.pc++ == 0 ? Step::work(static_cast<double>(f.a)) : Step::ret(); }
};
class TwoLeaves final : public Shape {
 public:
  explicit TwoLeaves(const Shape* leaf) : Shape(WorkClass{}), leaf_(leaf) {}
  Step next(Frame& f) const override {
    switch (f.pc++) {
      case 0: return Step::spawn(leaf_, 1'000'000'000);
      case 1: return Step::spawn(leaf_, 2'000'000'000);
      case 2: return Step::sync();
      default: return Step::ret();
    }
  }

 private:
  const Shape* leaf_;
};
}  // namespace

TEST_CASE("Sim.EfsContention.RecomputedWhenSetChanges", "[sim][efs]") {
  // Both at Eq. 11's slowdown s until the 1 s task is done (1/s), then the
  // other, which has done 1 s of its 2 s, runs alone at full speed: 1/s + 1.
  Program prog;
  prog.shapes.push_back(std::make_unique<Leaf>(0.9));
  prog.shapes.push_back(std::make_unique<TwoLeaves>(prog.shapes[0].get()));
  prog.root = prog.shapes[1].get();
  MemRun r("serial:1ns", 2, "baseline");
  Simulation sim(r.opt, prog);
  const SimResult& res = sim.run();
  const double s = eq11_slowdown(0.9, 2);
  CHECK(static_cast<double>(res.makespan_ns) * 1e-9 == Approx(1 / s + 1).epsilon(1e-4));
}

TEST_CASE("Sim.EfsContention.LowSoloBarelySlows", "[sim][efs]") {
  MemRun r("mem:4:solo=0.1:work=1s", 4, "baseline");
  r.run();
  CHECK(r.seconds() == Approx(1.0 / eq11_slowdown(0.1, 4)).epsilon(0.01));
  CHECK(r.seconds() < 1.06);
}

TEST_CASE("Sim.EfsContention.ComputeTasksUnaffected", "[sim][efs]") {
  // solo=0: the bus is not used, so four tasks take their solo time.
  MemRun r("mem:4:solo=0:work=1s", 4, "baseline");
  r.run();
  CHECK(r.seconds() == Approx(1.0).epsilon(1e-4));
  CHECK(r.contention.solves() == 0);
}

TEST_CASE("Sim.EfsContention.MixedSetOrderIndependent", "[sim][efs]") {
  EfsContention c;
  const std::vector<double> a{0.2, 0.9, 0.5}, b{0.5, 0.2, 0.9};
  std::vector<double> sa(3), sb(3);
  c.speeds(a, sa);
  c.speeds(b, sb);
  CHECK(c.solves() == 1);  // the second set is the first, reordered: answered from the cache
  CHECK(c.lookups() == 1);
  CHECK(sa[0] == sb[1]);
  CHECK(sa[1] == sb[2]);
  CHECK(sa[2] == sb[0]);
  // Each is Eq. 11 of core's Eq. 10 solution for the set.
  const efs::UtilisationPrediction p = efs::predict_utilisations(a);
  REQUIRE(p.ok());
  const std::vector<double> eq11 = efs::slowdowns(a, p.u);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(sa[i] == Approx(eq11[i]).epsilon(1e-9));
}

TEST_CASE("Sim.Efs.MaxBandwidthRunsFewerAndSavesEnergy", "[sim][efs]") {
  MemRun base("mem:4:work=500ms", 4, "baseline");
  base.run();
  MemRun efs("mem:4:work=500ms", 4, "efs");
  efs.run();
  CHECK(base.mean_busy() > 3.9);
  CHECK(efs.mean_busy() < 2.0);
  CHECK(efs.throttled_s() > 0.5);
  CHECK_FALSE(efs.sim->result().throttle_events.empty());
  CHECK(efs.sim->result().control_steps > 10);
  // Energy: the profile's model and [EFS] Eq. 13 both drop.
  CHECK(efs.sim->result().energy_j < 0.9 * base.sim->result().energy_j);
  REQUIRE(efs.sim->result().eq13_energy_j > 0);
  CHECK(efs.sim->result().eq13_energy_j < 0.9 * base.sim->result().eq13_energy_j);
  // The same work gets done, in no more time than the saturated bus allows.
  CHECK(efs.sim->result().tasks == base.sim->result().tasks);
  CHECK(efs.seconds() < 1.1 * base.seconds());
}

TEST_CASE("Sim.Efs.LowBandwidthNotThrottled", "[sim][efs]") {
  MemRun r("mem:4:solo=0.05:work=200ms", 4, "efs");
  r.run();
  CHECK(r.throttled_s() == 0);
  CHECK(r.mean_busy() > 3.9);
}

TEST_CASE("Sim.Efs.TaskModeParksAtSchedulingPoints", "[sim][efs]") {
  // Many short memory-bound tasks: workers stop between tasks, the rest of
  // the loop is still done by whoever runs.
  MemRun r("loop:2000:grain=1:iter=1ms:solo=0.95", 4, "hermes+efs");
  r.opt.throttle = ThrottleMode::task;
  r.run();
  MemRun base("loop:2000:grain=1:iter=1ms:solo=0.95", 4, "hermes");
  base.run();
  CHECK(r.sim->result().tasks == base.sim->result().tasks);
  CHECK(r.throttled_s() > 0);
  CHECK(r.mean_busy() < base.mean_busy() - 1);
  CHECK(r.sim->result().eq13_energy_j < base.sim->result().eq13_energy_j);
}

TEST_CASE("Sim.Efs.SameSeedSameBytes", "[sim][efs]") {
  const std::string spec = "fib:18:work=20us:solo=0.7,mem:4:work=50ms";
  auto json_of = [&](std::uint64_t seed) {
    MemRun r(spec, 4, "hermes+efs");
    r.opt.seed = seed;
    r.opt.control_interval_s = 1e-3;
    r.run();
    return to_json(make_report(*r.sim, spec, "test"));
  };
  const std::string a = json_of(7);
  CHECK(a == json_of(7));
  CHECK(a != json_of(8));  // another seed: recorded, and other victims
  CHECK(a.find("\"throttled_s\"") != std::string::npos);
}

TEST_CASE("Sim.Efs.NeedsProfileNumbers", "[sim][efs]") {
  SimOptions o = options(two_level_profile(4), 4, "efs");
  const Program p = program("mem:4:work=1ms", 2e9);
  CHECK_THROWS_WITH(Simulation(o, p), Catch::Contains("memory_accesses_per_s"));
}
