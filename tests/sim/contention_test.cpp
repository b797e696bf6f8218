// The contention seam: a model that slows concurrent memory-bound segments
// changes the timeline exactly as its speeds say.
#include <catch2/catch.hpp>

#include <numeric>

#include "sim_fixture.hpp"

using namespace rubato;
using namespace rubato::sim;
using namespace rubato::sim::test;

namespace {
// One memory bus of capacity 1: when the running segments ask for more in
// total, each gets capacity / demand of its solo speed.
class SharedBus final : public ContentionModel {
 public:
  bool active() const noexcept override { return true; }
  void speeds(std::span<const double> bus, std::span<double> out) const override {
    const double demand = std::accumulate(bus.begin(), bus.end(), 0.0);
    for (double& s : out) s = demand > 1 ? 1 / demand : 1;
  }
};
}  // namespace

TEST_CASE("Sim.Contention.NoneByDefault", "[sim][contention]") {
  NoContention none;
  CHECK_FALSE(none.active());
}

TEST_CASE("Sim.Contention.SharedBusStretchesOverlap", "[sim][contention]") {
  // fib:2 as in the timeline tests, every task using the whole bus alone.
  // node 0-4 alone; fib(1) on w0 from 4; fib(0) on w1 from 6: both at half
  // speed. w0 has 8 us left at 6 -> done at 22, when w1 has 2 us left -> 24.
  SharedBus bus;
  Fib2Case memory("baseline", ":bus=1");
  memory.opt.contention = &bus;
  CHECK(memory.run().makespan_ns == 24000);

  // Tasks that use no bandwidth are not slowed.
  Fib2Case compute("baseline", ":bus=0");
  compute.opt.contention = &bus;
  CHECK(compute.run().makespan_ns == 16000);
}
