// Hand-built machine profiles and a one-call simulation for the simulator tests.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "rubato/sim/dag_spec.hpp"
#include "rubato/sim/simulator.hpp"
#include "rubato/sim/synthetic.hpp"

namespace rubato::sim::test {

// Two frequencies, f_max = 2 GHz and 1 GHz, one core per domain, no DVFS latency.
inline MachineProfile two_level_profile(int cores = 4) {
  MachineProfile p;
  p.name = "test-2level";
  p.cores = cores;
  p.cores_per_domain = 1;
  p.frequencies_hz = {2e9, 1e9};
  p.core_power = {{2e9, 8.0, 3.0}, {1e9, 2.0, 1.0}};
  p.uncore_w = 10.0;
  p.beta = 1.0;
  p.transition_latency_s = 0;
  return p;
}

// A profile of power/profiles, as shipped.
inline MachineProfile shipped_profile(const std::string& name) {
  std::string error;
  auto p = load_profile(name, std::vector<std::string>{RUBATO_TEST_PROFILES_DIR}, error);
  if (!p) throw std::runtime_error(error);
  return *p;
}

inline PolicySpec policy(const std::string& text) {
  std::string error;
  auto p = parse_policy(text, error);
  if (!p) throw std::invalid_argument(error);
  return *p;
}

inline Program program(const std::string& spec, double reference_hz, double beta = 1.0) {
  std::string error;
  auto s = parse_dag_spec(spec, error);
  if (!s) throw std::invalid_argument(error);
  return build_synthetic(*s, reference_hz, beta);
}

inline SimOptions options(const MachineProfile& p, std::size_t workers, const std::string& policy_text) {
  SimOptions o;
  o.profile = p;
  o.workers = workers;
  o.engine.policy = policy(policy_text);
  o.engine.ladder = TempoLadder(p.frequencies_hz);
  return o;
}

// fib:2 with node = 4 us and leaf = 10 us on two workers of two_level_profile,
// steal attempts of 3 us: the small run whose timeline the tests derive by hand.
struct Fib2Case {
  explicit Fib2Case(const std::string& policy_text, const std::string& extra_keys = "")
      : prog(program("fib:2:node=4us:leaf=10us" + extra_keys, 2e9)),
        opt(options(two_level_profile(2), 2, policy_text)) {
    opt.steal_cost_s = 3e-6;
  }
  const SimResult& run() {
    sim = std::make_unique<Simulation>(opt, prog);
    return sim->run();
  }
  Program prog;
  SimOptions opt;
  std::unique_ptr<Simulation> sim;
};

// Seconds from nanoseconds, for energy arithmetic in the tests.
inline double us(double x) { return x * 1e-6; }

}  // namespace rubato::sim::test
