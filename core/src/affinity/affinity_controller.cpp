#include "rubato/core/affinity/affinity_controller.hpp"

#include <stdexcept>
#include <utility>

namespace rubato::affinity {

AffinityController::AffinityController(CoreTopology topology, CorePowerFn power, PlacementParams params)
    : topology_cores_(topology.cores()), scheduler_(std::move(topology), std::move(power), params) {}

void AffinityController::add_target(std::uint64_t id, int core) {
  if (core < 0 || core >= topology_cores_)
    throw std::invalid_argument("affinity controller: core " + std::to_string(core) + " is outside the topology");
  placement_.emplace(id, core);
}

void AffinityController::remove_target(std::uint64_t id) { placement_.erase(id); }

std::optional<int> AffinityController::core_of(std::uint64_t id) const {
  const auto it = placement_.find(id);
  if (it == placement_.end()) return std::nullopt;
  return it->second;
}

std::optional<PlacementDecision> AffinityController::step(const counters::CounterSample& sample,
                                                          std::span<const double> core_hz) {
  IntervalSample in;
  in.elapsed_s = sample.elapsed_s;
  in.core_frequency_hz.assign(static_cast<std::size_t>(topology_cores_), 0.0);
  for (std::size_t c = 0; c < core_hz.size() && c < in.core_frequency_hz.size(); ++c)
    in.core_frequency_hz[c] = core_hz[c];
  for (const auto& [id, core] : placement_) {
    ThreadSample t;
    t.id = id;
    t.core = core;
    if (const counters::ThreadCounts* c = sample.thread(id)) {
      t.busy_s = c->busy_s.value_or(0);
      t.busy_cycles = c->cycles;
      t.llc_misses = c->llc_misses;
      t.instructions = c->instructions;
      t.fp_ops = c->fp_ops;
    }
    in.threads.push_back(t);
  }
  auto decision = scheduler_.step(in);
  if (!decision) return decision;
  // Keep only moves of targets still here, from where they are.
  std::erase_if(decision->moves, [&](const Migration& m) {
    const auto it = placement_.find(m.thread);
    return it == placement_.end() || it->second != m.from || m.to < 0 || m.to >= topology_cores_;
  });
  for (const Migration& m : decision->moves) placement_[m.thread] = m.to;
  if (decision->moves.empty()) return std::nullopt;
  return decision;
}

}  // namespace rubato::affinity
