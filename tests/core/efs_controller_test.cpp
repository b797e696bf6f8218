// The efs controller ([EFS] §4) driven through recorded counter series with
// known right answers: a memory-bound phase throttles, its end unthrottles,
// starvation freedom bounds every wait, idle workers are not counted.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "rubato/core/counters/counter_series.hpp"
#include "rubato/core/efs/efs_controller.hpp"

using namespace rubato;
using namespace rubato::efs;
using counters::CounterSample;

namespace {

constexpr double kMu = 150e6;                                       // i5-2500, [EFS] §5.1
constexpr double kInterval = 0.01;                                  // 10 ms: µΔt = 1.5 M accesses
const std::vector<double> kPower = {26.6, 22.6, 12.0, 12.3, 12.3};  // [EFS] Eq. 25

// One interval in which `threads` threads each read `u_each` of the bus (U = threads × u_each).
std::string interval_rows(int index, int threads, double u_each) {
  const double per = u_each * kMu * kInterval;
  std::string rows =
      std::to_string(index) + ",chip," + std::to_string(kInterval) + "," + std::to_string(per * threads) + ",0,\n";
  for (int t = 0; t < threads; ++t)
    rows += std::to_string(index) + "," + std::to_string(t) + ",,,," + std::to_string(per) + "\n";
  return rows;
}

// Phases of (intervals, u_each) for `threads` threads, as a recorded series.
std::vector<CounterSample> series(int threads, const std::vector<std::pair<int, double>>& phases) {
  std::string text = "rubato-counters 1\ninterval,scope,elapsed_s,mem_accesses,mem_writes,mem_reads\n";
  int i = 0;
  for (const auto& [n, u] : phases)
    for (int k = 0; k < n; ++k) text += interval_rows(i++, threads, u);
  std::string error;
  auto s = counters::parse_counter_series(text, "test", error);
  REQUIRE(s);
  return s->intervals;
}

ControllerParams params(bool programs) {
  ControllerParams p;
  p.accesses_per_s = kMu;
  p.power_w = kPower;
  p.cores = 4;
  p.control_interval_s = kInterval;
  p.shared_queue = programs;
  p.pooled_work = !programs;
  return p;
}

// Runs the controller over `samples`; returns each target's parked state after every interval.
struct Run {
  std::vector<std::map<std::uint64_t, bool>> parked;       // per interval
  std::vector<std::map<std::uint64_t, double>> predicted;  // per interval: B (Eq. 20) for the next
  std::vector<TargetChange> changes;
  std::vector<double> change_times;
};

Run drive(EfsController& c, const std::vector<CounterSample>& samples) {
  Run r;
  double now = 0;
  for (const CounterSample& s : samples) {
    now += kInterval;
    const ControlStep step = c.step(s, now);
    for (const auto& ch : step.changes) {
      r.changes.push_back(ch);
      r.change_times.push_back(now);
    }
    std::map<std::uint64_t, bool> state;
    std::map<std::uint64_t, double> predicted;
    for (auto id : c.target_ids()) {
      state[id] = c.parked(id);
      predicted[id] = *c.prediction(id);
    }
    r.parked.push_back(state);
    r.predicted.push_back(predicted);
  }
  return r;
}

int running(const std::map<std::uint64_t, bool>& state) {
  int n = 0;
  for (const auto& [id, p] : state) n += p ? 0 : 1;
  return n;
}

}  // namespace

TEST_CASE("Efs.Controller.MemoryPhaseThrottlesAndItsEndUnthrottles", "[core][efs]") {
  // Two workers: light (u = 0.05 each: solo b = 0.05), memory bound (U = 0.98:
  // solo b ≈ 0.93 each, Eq. 9), light again. Beside b = 0.93 the admission
  // threshold (Eqs. 10 + 16, i5-2500 power) is ≈ 0.42: the second worker waits.
  EfsController c(params(false));
  c.add_target(0, 0);
  c.add_target(1, 0);
  const Run r = drive(c, series(2, {{5, 0.05}, {8, 0.49}, {5, 0.05}}));
  for (int i = 0; i < 5; ++i) CHECK(running(r.parked[i]) == 2);
  // The first memory-bound interval: worker 1 is held back, worker 0 runs.
  CHECK(r.parked[5].at(1));
  CHECK_FALSE(r.parked[5].at(0));
  for (int i = 5; i < 13; ++i) CHECK(running(r.parked[i]) == 1);
  // At the end of the phase both predict the memory-bound solo utilisation.
  CHECK(r.predicted[12].at(0) == Approx(0.926).margin(0.005));
  CHECK(r.predicted[12].at(1) == Approx(0.926).margin(0.005));  // pooled work: follows the running worker
  // After the light phase they predict it again.
  CHECK(*c.prediction(0) == Approx(0.05).margin(0.005));
  CHECK(*c.prediction(1) == Approx(0.05).margin(0.005));
  // The phase ends: the next interval admits worker 1 again.
  for (int i = 13; i < 18; ++i) CHECK(running(r.parked[i]) == 2);
  REQUIRE(r.changes.size() == 2);
  CHECK(r.changes[0].id == 1);
  CHECK(r.changes[0].parked);
  CHECK(r.changes[0].reason.find("not below the admission threshold 0.4") != std::string::npos);
  CHECK_FALSE(r.changes[1].parked);
  CHECK(r.changes[1].reason.find("below the admission threshold") != std::string::npos);
  CHECK(r.change_times[1] == Approx(14 * kInterval));
}

namespace {

// The longest any target waited (parked to resumed, or to the end).
double longest_wait(const Run& r, double end_s) {
  std::map<std::uint64_t, double> parked_at;
  double longest = 0;
  for (std::size_t i = 0; i < r.changes.size(); ++i) {
    const TargetChange& ch = r.changes[i];
    if (ch.parked) parked_at[ch.id] = r.change_times[i];
    else longest = std::max(longest, r.change_times[i] - parked_at.at(ch.id));
  }
  for (const auto& [id, at] : parked_at)
    if (r.parked.back().at(id)) longest = std::max(longest, end_s - at);
  return longest;
}

int starved_resumes(const Run& r) {
  int n = 0;
  for (const TargetChange& ch : r.changes) n += !ch.parked && ch.reason.find("starved") != std::string::npos ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("Efs.Controller.StarvationBoundRespected", "[core][efs]") {
  // A memory-bound phase of 1 s: one worker at a time may run. The waiting one
  // becomes starved after t_global = 5 × 18 ms (Eq. 23, np = 2) and runs at
  // once (§4.3): no wait exceeds t_global plus the control interval.
  EfsController two(params(false));
  two.add_target(0, 0);
  two.add_target(1, 0);
  const Run r2 = drive(two, series(2, {{100, 0.49}}));
  CHECK(longest_wait(r2, 100 * kInterval) <= global_threshold_s(2) + kInterval + 1e-9);
  CHECK(starved_resumes(r2) >= 8);  // they take turns every ~100 ms
  for (const auto& state : r2.parked) CHECK(running(state) >= 1);

  // Three workers, one slot: two can be starved at once and both run (starvation
  // trumps the bus); every wait stays within the bound actuators enforce.
  EfsController three(params(false));
  for (std::uint64_t w = 0; w < 3; ++w) three.add_target(w, 0);
  const Run r3 = drive(three, series(3, {{100, 0.32}}));
  CHECK(longest_wait(r3, 100 * kInterval) <= three.wait_bound_s());
  CHECK(three.wait_bound_s() == Approx(global_threshold_s(3) + max_wait_s(3) + 2 * kInterval));
  CHECK(starved_resumes(r3) >= 8);
  for (const auto& state : r3.parked) CHECK(running(state) >= 1);
}

TEST_CASE("Efs.Controller.FourMaxBandwidthProgramsRunOneAtATime", "[core][efs]") {
  // [EFS] §5.2 / Fig. 7: four instances of a max-bandwidth program; EFS
  // keeps one active at any time, and every instance gets its turns.
  EfsController c(params(true));
  for (std::uint64_t p = 0; p < 4; ++p) c.add_target(p, 0);
  const Run r = drive(c, series(4, {{200, 0.245}}));  // U = 0.98: each alone is b ≈ 0.98
  std::map<std::uint64_t, int> ran;
  for (std::size_t i = 1; i < r.parked.size(); ++i) {
    CHECK(running(r.parked[i]) == 1);
    for (const auto& [id, p] : r.parked[i]) ran[id] += p ? 0 : 1;
  }
  REQUIRE(ran.size() == 4);
  for (const auto& [id, n] : ran) CHECK(n >= 30);  // of 199 intervals: fair shares, none starved
}

TEST_CASE("Efs.Controller.LightProgramsAllRun", "[core][efs]") {
  EfsController c(params(true));
  for (std::uint64_t p = 0; p < 4; ++p) c.add_target(p, 0);
  const Run r = drive(c, series(4, {{30, 0.02}}));
  for (const auto& state : r.parked) CHECK(running(state) == 4);
  CHECK(r.changes.empty());
}

TEST_CASE("Efs.Controller.IdleWorkerIsNotCountedOnTheBus", "[core][efs]") {
  // Worker 1 sleeps (busy 0): it is not runnable, neither parked nor counted,
  // so worker 0's heavy use of the bus holds nobody back.
  EfsController c(params(false));
  c.add_target(0, 0);
  c.add_target(1, 0);
  CounterSample s;
  s.elapsed_s = kInterval;
  s.chip.mem_accesses = 0.95 * kMu * kInterval;
  auto& w0 = s.thread_or_add(0);
  w0.mem_reads = *s.chip.mem_accesses;
  w0.busy_s = kInterval;
  s.thread_or_add(1).busy_s = 0.0;
  for (int i = 1; i <= 5; ++i) {
    const ControlStep step = c.step(s, i * kInterval);
    CHECK(step.changes.empty());
    CHECK_FALSE(c.parked(0));
    CHECK_FALSE(c.parked(1));
  }
}

TEST_CASE("Efs.Controller.NoMeasurementNoChange", "[core][efs]") {
  // Without the chip's accesses nothing is estimated: predictions stay at 1/cores
  // (§4.1) and everybody runs.
  EfsController c(params(false));
  c.add_target(0, 0);
  c.add_target(1, 0);
  CounterSample s;
  s.elapsed_s = kInterval;
  const ControlStep step = c.step(s, kInterval);
  CHECK_FALSE(step.measured);
  CHECK(step.changes.empty());
  CHECK(*c.prediction(1) == Approx(0.25));
}

TEST_CASE("Efs.Controller.RejectsUnusableParameters", "[core][efs]") {
  ControllerParams p = params(false);
  p.accesses_per_s = 0;
  CHECK_THROWS_AS(EfsController(p), std::invalid_argument);
  p = params(false);
  p.power_w = {26.6};
  CHECK_THROWS_AS(EfsController(p), std::invalid_argument);
  p = params(false);
  p.cores = 0;
  CHECK_THROWS_AS(EfsController(p), std::invalid_argument);
}
