// The DAG spec language: what it accepts, and errors that say which token and what was expected.
#include <catch2/catch.hpp>

#include "rubato/sim/dag_spec.hpp"

using namespace rubato::sim;

namespace {
std::string error_of(const std::string& text) {
  std::string error;
  const auto spec = parse_dag_spec(text, error);
  REQUIRE_FALSE(spec);
  return error;
}
}  // namespace

TEST_CASE("Sim.DagSpec.ExampleSpecs", "[sim][dag]") {
  std::string error;
  auto fib = parse_dag_spec("fib:30", error);
  REQUIRE(fib);
  REQUIRE(fib->phases.size() == 1);
  CHECK(fib->phases[0].kind == PhaseKind::fib);
  CHECK(fib->phases[0].n == 30);

  auto loop = parse_dag_spec("loop:1e6:grain=1000", error);
  REQUIRE(loop);
  CHECK(loop->phases[0].n == 1000000);
  CHECK(loop->phases[0].grain == 1000);
  CHECK_FALSE(loop->phases[0].linear);

  auto dc = parse_dag_spec("dc:depth=20:leaf=10us", error);
  REQUIRE(dc);
  CHECK(dc->phases[0].depth == 20);
  CHECK(dc->phases[0].work.ns == 10000);
}

TEST_CASE("Sim.DagSpec.UnitsAndCommonKeys", "[sim][dag]") {
  std::string error;
  auto s = parse_dag_spec("chain:5:work=3kcyc:beta=0.25:bus=0.5:jitter=0.1:seed=7:rep=3, serial:1.5ms", error);
  REQUIRE(s);
  REQUIRE(s->phases.size() == 2);
  const PhaseSpec& c = s->phases[0];
  CHECK(c.work.cycles == 3000);
  CHECK(c.work.ns_at(3e9) == Approx(1000));
  CHECK(*c.beta == 0.25);
  CHECK(c.bus == 0.5);
  CHECK(c.jitter == 0.1);
  CHECK(c.seed == 7);
  CHECK(c.rep == 3);
  CHECK(s->phases[1].kind == PhaseKind::serial);
  CHECK(s->phases[1].work.ns == 1.5e6);
}

TEST_CASE("Sim.DagSpec.PbbsPresetsParse", "[sim][dag]") {
  for (const auto& name : pbbs_preset_names()) {
    std::string error;
    auto s = parse_dag_spec("pbbs:" + name + ":seed=3", error);
    INFO(name << ": " << error);
    REQUIRE(s);
    CHECK(s->phases.size() >= 2);
    for (const auto& p : s->phases) CHECK(p.seed == 3);
  }
}

TEST_CASE("Sim.DagSpec.ErrorsNameTokenAndExpectation", "[sim][dag]") {
  auto e = error_of("loop:1e6:grian=10");
  CHECK_THAT(e, Catch::Contains("'grian'") && Catch::Contains("grain"));
  e = error_of("fib:x");
  CHECK_THAT(e, Catch::Contains("'x'") && Catch::Contains("number"));
  e = error_of("dc:depth=20:leaf=10");
  CHECK_THAT(e, Catch::Contains("'10'") && Catch::Contains("unit"));
  e = error_of("fib:30,,loop:10");
  CHECK_THAT(e, Catch::Contains("phase 2") && Catch::Contains("empty"));
  e = error_of("heap:3");
  CHECK_THAT(e, Catch::Contains("'heap'") && Catch::Contains("fib, loop"));
  e = error_of("pbbs:foo");
  CHECK_THAT(e, Catch::Contains("'foo'") && Catch::Contains("knn"));
  e = error_of("loop:10:split=wide");
  CHECK_THAT(e, Catch::Contains("'wide'") && Catch::Contains("binary or linear"));
  e = error_of("loop");
  CHECK_THAT(e, Catch::Contains("<kind>:<N>"));
  e = error_of("");
  CHECK_THAT(e, Catch::Contains("empty"));
}

TEST_CASE("Sim.DagSpec.MemInstances", "[sim][dag]") {
  std::string error;
  auto s = parse_dag_spec("mem:tasks=4:solo=0.9:work=2s", error);
  REQUIRE(s);
  CHECK(s->phases[0].kind == PhaseKind::mem);
  CHECK(s->phases[0].n == 4);
  CHECK(s->phases[0].bus == 0.9);
  CHECK(s->phases[0].work.ns == 2e9);
  s = parse_dag_spec("mem:3", error);  // defaults: 1 s each, the whole bus
  REQUIRE(s);
  CHECK(s->phases[0].n == 3);
  CHECK(s->phases[0].bus == 1.0);
  CHECK(s->phases[0].work.ns == 1e9);
  s = parse_dag_spec("fib:10:solo=0.4", error);  // solo= is bus= on every kind
  REQUIRE(s);
  CHECK(s->phases[0].bus == 0.4);
  CHECK_THAT(error_of("mem:4:solo=1.5"), Catch::Contains("'1.5'") && Catch::Contains("[0, 1]"));
  CHECK_THAT(error_of("mem:4:grain=2"), Catch::Contains("'grain'") && Catch::Contains("tasks, work, solo"));
  CHECK_THAT(error_of("mem:work=1s"), Catch::Contains("<kind>:<N>"));
}
