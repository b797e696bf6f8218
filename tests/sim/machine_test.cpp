// Worker placement on a profile's cores and clock domains.
#include <catch2/catch.hpp>

#include "sim_fixture.hpp"

using namespace rubato;
using namespace rubato::sim;

namespace {
MachineProfile paired(int cores) {
  MachineProfile p;
  p.name = "paired";
  p.cores = cores;
  p.cores_per_domain = 2;
  p.frequencies_hz = {2e9};
  return p;
}
}  // namespace

TEST_CASE("Sim.Placement.SpreadUsesOneCorePerDomainFirst", "[sim][machine]") {
  // [HERMES] §4.1: no two workers shared a clock domain while there were domains to spare.
  CHECK(place_workers(paired(8), 3, Placement::spread) == std::vector<int>{0, 2, 4});
  CHECK(place_workers(paired(8), 6, Placement::spread) == std::vector<int>{0, 2, 4, 6, 1, 3});
  CHECK(place_workers(paired(7), 7, Placement::spread) == std::vector<int>{0, 2, 4, 6, 1, 3, 5});
  CHECK(place_workers(paired(8), 3, Placement::compact) == std::vector<int>{0, 1, 2});
  CHECK(domain_of_core(paired(8), 5) == 2);
}

TEST_CASE("Sim.Placement.TooManyWorkers", "[sim][machine]") {
  CHECK_THROWS_WITH(place_workers(paired(4), 5, Placement::spread), Catch::Contains("4 cores"));
  CHECK_THROWS(place_workers(paired(4), 0, Placement::spread));
}

TEST_CASE("Sim.Placement.SharedDomainRunsAtFastestRequest", "[sim][machine][dvfs]") {
  // Compact placement on a 2-cores-per-domain machine: the two workers share a
  // domain, so the thief's slower request never takes effect (docs/design.md
  // "The engine": a domain runs at the fastest tempo any of its workers asks for).
  test::Fib2Case c("workpath");
  c.opt.profile.cores_per_domain = 2;
  c.opt.placement = Placement::compact;
  const SimResult& r = c.run();
  CHECK(r.makespan_ns == 16000);  // as at f_max throughout
  CHECK(r.applied_transitions == std::vector<std::uint64_t>{0});
}
