// The lazily generated DAGs: the number of tasks each kind creates, and a
// frontier that stays small while the DAG is large.
#include <catch2/catch.hpp>

#include "sim_fixture.hpp"

using namespace rubato;
using namespace rubato::sim;
using namespace rubato::sim::test;

namespace {
std::uint64_t fib_calls(int n) { return n < 2 ? 1 : fib_calls(n - 1) + fib_calls(n - 2) + 1; }

SimResult run(const std::string& spec, std::size_t workers, SpawnModel model = SpawnModel::cilk) {
  const MachineProfile p = two_level_profile(8);
  const Program prog = program(spec, 2e9);
  SimOptions o = options(p, workers, "baseline");
  o.model = model;
  Simulation s(o, prog);
  return s.run();
}
}  // namespace

TEST_CASE("Sim.Synthetic.TaskCounts", "[sim][dag]") {
  for (SpawnModel m : {SpawnModel::cilk, SpawnModel::omp}) {
    INFO(to_string(m));
    CHECK(run("fib:15", 3, m).tasks == fib_calls(15));
    // Binary split of 1024 iterations down to grain 8: 128 leaves, 127 inner nodes.
    CHECK(run("loop:1024:grain=8", 3, m).tasks == 255);
    // Halving 1000 stops at ranges of 7 or 8 (<= 10): also 128 leaves.
    CHECK(run("loop:1000:grain=10", 3, m).tasks == 255);
    // Linear split: one root and 100 chunks.
    CHECK(run("loop:1000:grain=10:split=linear", 3, m).tasks == 101);
    // Depth 3, fanout 3: 1 + 3 + 9 + 27.
    CHECK(run("dc:depth=3:fanout=3:leaf=1us", 3, m).tasks == 40);
    CHECK(run("chain:7:work=1us", 3, m).tasks == 8);
    // Two phases under a sequence root.
    CHECK(run("chain:7:work=1us,serial:5us", 3, m).tasks == 1 + 8 + 1);
    CHECK(run("serial:5us:rep=4", 3, m).tasks == 1 + 4);
  }
}

TEST_CASE("Sim.Synthetic.SplitIsUnevenButCoversAllItems", "[sim][dag]") {
  // Every leaf holds at most `grain` items and the items add up: total leaf
  // work is n x item whatever the skew, so one worker takes n x item + partitions.
  const MachineProfile p = two_level_profile(1);
  const Program prog = program("split:1000:grain=10:item=1us:part=0ns:skew=0.9", 2e9);
  Simulation s(options(p, 1, "baseline"), prog);
  CHECK(s.run().makespan_ns == 1000 * 1000);
}

TEST_CASE("Sim.Synthetic.MemoryFollowsTheFrontier", "[sim][dag][memory]") {
  for (std::size_t workers : {1u, 4u, 8u}) {
    INFO(workers << " workers");
    const SimResult fib = run("fib:22:work=20ns", workers);
    CHECK(fib.tasks == fib_calls(22));
    // Work first: each worker's frames form one root-to-leaf path, plus suspended frames.
    CHECK(fib.peak_live_frames < 2 * workers * 23 + 16);
    const SimResult loop = run("loop:262144:grain=1:iter=5ns", workers);
    CHECK(loop.tasks == 2 * 262144 - 1);
    CHECK(loop.peak_live_frames < 2 * workers * 20 + 16);
  }
}
