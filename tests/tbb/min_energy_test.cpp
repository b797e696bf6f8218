// min-energy through the oneTBB observer: the session starts its controller
// when it opens (the observer's start_controllers then does nothing more),
// and the uncore level it records follows the work's sensitivity.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "fib.hpp"
#include "ground_truth.hpp"
#include "rubato/tbb/task_group.hpp"

namespace {

// Runs fib under min-energy for at least `ms` (dry run, Cuttlefish's machine)
// and returns the highest uncore frequency decided while workers ran (0: none).
double uncore_while_working(const std::string& uncore_share, int ms, rubato::Report& report) {
  const rubato::Environment env = rubato::test::quiet_env({{"RUBATO_POLICY", "min-energy"},
                                                           {"RUBATO_MIN_ENERGY_LOOP", "open"},
                                                           {"RUBATO_PROFILE", "haswell-e5-2650v3"},
                                                           {"RUBATO_UNCORE_SENSITIVITY", uncore_share},
                                                           {"RUBATO_CONTROL_INTERVAL", "1ms"}});
  long total = 0;
  report = rubato::test::run_observed(2, env, [&] {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < end) total += rubato::test::fib<rubato::tbb::task_group>(12);
  });
  CHECK(total > 0);
  double hz = 0;
  for (const auto& e : report.frequency_pairs)
    if (e.working > 0) hz = std::max(hz, e.uncore_hz);
  return hz;
}

// The same, run longer each time (50 ms, then 4 times longer, at most 12.8 s)
// until the controller made a decision while workers ran: its thread, a
// 1 ms period, can be kept off the CPU for all of a short run on a loaded
// machine, and a run without such a decision checks nothing.
double uncore_once_decided(const std::string& uncore_share, rubato::Report& report) {
  double hz = 0;
  for (int ms = 50; ms <= 12800 && hz == 0; ms *= 4) hz = uncore_while_working(uncore_share, ms, report);
  return hz;
}

}  // namespace

TEST_CASE("Tbb.MinEnergy.UncoreFollowsTheWorksSensitivity", "[tbb][min-energy]") {
  rubato::Report memory, compute;
  const double memory_hz = uncore_once_decided("0.9", memory);
  const double compute_hz = uncore_once_decided("0", compute);
  CHECK(memory.policy == "min-energy");
  CHECK(memory.parameters.at("uncore_sensitivity_source") == "settings");
  CHECK(memory.parameters.at("uncore_control") == "modeled");
  CHECK(memory_hz >= 2.0e9);   // at or near the knee (2.195 GHz)
  CHECK(compute_hz == 1.2e9);  // the lowest level
  for (const auto& e : memory.frequency_pairs) CHECK(e.model == "modeled:haswell-e5-2650v3");
}
