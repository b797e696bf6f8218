// memsynth: a memory-bound synthetic with a configurable solo memory-bus
// utilisation, after the synthetic of [EFS] §3.2 / Fig. 4: "accesses
// memory in a manner that always results in a cache miss, and performs an
// idle loop between accesses". One fragment = one dependent load from a
// random single-cycle permutation of cache lines in a buffer much larger than
// the LLC (a miss, not prefetchable) followed by `compute` register-only
// iterations that the next load's address depends on, so miss and compute
// never overlap. By [EFS] Eq. (2) the solo utilisation is then
//   b = latency_solo / t_solo = L / (L + compute * t_iter).
// The walk is split into tasks of `grain` fragments. Written once over a
// scheduler (OmpTasks / TbbTasks); memsynth_omp.cpp and memsynth_tbb.cpp
// instantiate it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace kernels::memsynth {

struct alignas(64) Line {
  std::uint32_t next;
};

// The chase buffer: lines[order[i]].next == order[(i + 1) % lines].
class ChaseBuffer {
 public:
  ChaseBuffer(std::size_t bytes, std::uint64_t seed);
  std::size_t lines() const noexcept { return order_.size(); }
  const Line* data() const noexcept { return lines_.get(); }
  // The line at cycle position p.
  std::uint32_t at(std::size_t p) const noexcept { return order_[p % order_.size()]; }

 private:
  struct Free {
    void operator()(Line* p) const noexcept;
  };
  std::unique_ptr<Line[], Free> lines_;
  std::vector<std::uint32_t> order_;
};

// The register-only work between two loads: x = a*x + c (Knuth's MMIX LCG),
// `iterations` times.
constexpr std::uint64_t kLcgA = 6364136223846793005ULL;
constexpr std::uint64_t kLcgC = 1442695040888963407ULL;

// Result of one task: the sum of the line indices it visited (independent
// of `compute`, hence the printed checksum) and its final register value.
struct TaskResult {
  std::uint64_t index_sum = 0;
  std::uint64_t x = 0;
};

struct Plan {
  std::size_t steps = 0;      // fragments in total
  std::size_t grain = 0;      // fragments per task
  std::uint64_t compute = 0;  // LCG iterations per fragment
  std::uint64_t seed = 0;
  std::size_t tasks() const noexcept { return (steps + grain - 1) / grain; }
};

// Task j walks fragments [j*grain, min((j+1)*grain, steps)) from cycle
// position j*grain.
TaskResult run_task(const ChaseBuffer& buf, const Plan& plan, std::size_t task);

// Re-derives every task's result from the permutation and the closed form of
// `compute` LCG steps (one multiply-add per fragment, no chase).
bool check_task(const ChaseBuffer& buf, const Plan& plan, std::size_t task, const TaskResult& got);

// Solo calibration on the calling thread: seconds per miss of the chase and
// per compute iteration.
struct Calibration {
  double latency_s = 0;
  double iteration_s = 0;
  // Iterations per fragment for solo utilisation b (0 < b <= 1).
  std::uint64_t compute_for(double b) const noexcept;
  double predicted_utilisation(std::uint64_t compute) const noexcept;
};
Calibration calibrate(const ChaseBuffer& buf);

template <class Par>
std::vector<TaskResult> run_with(const ChaseBuffer& buf, const Plan& plan) {
  std::vector<TaskResult> results(plan.tasks());
  Par::run([&] {
    Par::for_chunks(0, plan.tasks(), 1, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t t = lo; t < hi; ++t) results[t] = run_task(buf, plan, t);
    });
  });
  return results;
}

// Defined by the variant (memsynth_omp.cpp, memsynth_tbb.cpp).
std::vector<TaskResult> parallel_run(const ChaseBuffer& buf, const Plan& plan);

}  // namespace kernels::memsynth
