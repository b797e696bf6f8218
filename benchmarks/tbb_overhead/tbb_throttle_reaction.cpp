// How fast oneTBB follows rubato::tbb::concurrency_throttle (the EFS actuator).
// An arena of `threads` threads runs compute chunks of `chunk-us` each while a
// controller thread lowers the limit to 1 at t = 0.2 s and raises it back at
// t = 0.6 s. An observer stamps every worker's arena entry and exit.
//   regions: a loop of short parallel_for regions (`chunks` chunks each);
//   loop:    one parallel_for spanning the whole timeline.
// Lowering reaction: from set_limit(1) until no worker is left in the arena
// (censored at the raise when one stays). Raising reaction: from
// set_limit(threads) to the first worker entry after it. Medians of `runs`.
//
//   tbb_throttle_reaction [--runs 5] [--threads 4] [--chunk-us 100] [--chunks 64]
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_scheduler_observer.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "bench_support.hpp"
#include "rubato/tbb/concurrency_throttle.hpp"

namespace {

using rubato::bench::now_s;

// Worker entries and exits with their times.
class Stamps final : public tbb::task_scheduler_observer {
 public:
  explicit Stamps(tbb::task_arena& a) : tbb::task_scheduler_observer(a) { observe(true); }
  ~Stamps() override { observe(false); }
  void on_scheduler_entry(bool is_worker) override { add(is_worker, true); }
  void on_scheduler_exit(bool is_worker) override { add(is_worker, false); }
  struct Stamp {
    double t;
    bool entry;
  };
  std::vector<Stamp> worker_stamps() {
    std::lock_guard<std::mutex> lock(m_);
    return stamps_;
  }

 private:
  void add(bool is_worker, bool entry) {
    if (!is_worker) return;
    std::lock_guard<std::mutex> lock(m_);
    stamps_.push_back({now_s(), entry});
  }
  std::mutex m_;
  std::vector<Stamp> stamps_;
};

struct Reaction {
  double lower_s = 0;           // set_limit(1) -> no worker left in the arena
  bool lower_censored = false;  // workers were still inside when the limit was raised
  double raise_s = -1;          // set_limit(threads) -> first worker entry; -1: none before the end
};

// Workers inside the arena just after time t, from the entry / exit stamps.
int inside_after(const std::vector<Stamps::Stamp>& stamps, double t) {
  int n = 0;
  for (const auto& s : stamps)
    if (s.t <= t) n += s.entry ? 1 : -1;
  return n;
}

Reaction one_run(bool long_loop, int threads, std::uint64_t chunk_steps, int chunks) {
  tbb::global_control program_limit(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  tbb::task_arena arena(threads);
  Stamps stamps(arena);
  rubato::tbb::concurrency_throttle throttle;
  std::atomic<bool> stop{false};
  double t_lower = 0, t_raise = 0, t_stop = 0;
  std::thread controller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    t_lower = now_s();
    throttle.set_limit(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    t_raise = now_s();
    throttle.set_limit(static_cast<std::size_t>(threads));
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    t_stop = now_s();
    stop = true;
  });
  std::atomic<std::uint64_t> sink{0};
  auto body = [&](const tbb::blocked_range<long>& r) {
    for (long i = r.begin(); i < r.end() && !stop.load(std::memory_order_relaxed); ++i)
      sink += rubato::bench::churn(chunk_steps, static_cast<std::uint64_t>(i) + 1);
  };
  arena.execute([&] {
    if (long_loop) {
      // One parallel_for spanning the whole timeline: chunks left when `stop` is set return at once.
      tbb::parallel_for(tbb::blocked_range<long>(0, 1L << 40, 1), body);
    } else {
      while (!stop) tbb::parallel_for(tbb::blocked_range<long>(0, chunks, 1), body);
    }
  });
  controller.join();

  const auto st = stamps.worker_stamps();
  Reaction r;
  // Lowering: the first moment after t_lower with no worker inside.
  double gone = inside_after(st, t_lower) == 0 ? t_lower : -1;
  for (const auto& s : st) {
    if (gone >= 0 || s.t <= t_lower || s.t >= t_raise) continue;
    if (!s.entry && inside_after(st, s.t) == 0) gone = s.t;
  }
  r.lower_censored = gone < 0;
  r.lower_s = (r.lower_censored ? t_raise : gone) - t_lower;
  for (const auto& s : st)
    if (s.entry && s.t >= t_raise && s.t < t_stop) {
      r.raise_s = s.t - t_raise;
      break;
    }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const rubato::bench::Args args(argc, argv, {"runs", "threads", "chunk-us", "chunks"});
    const int runs = static_cast<int>(args.number("runs", 5));
    const int threads = static_cast<int>(args.number("threads", 4));
    const double chunk_us = args.number("chunk-us", 100);
    const int chunks = static_cast<int>(args.number("chunks", 64));
    if (runs < 1 || threads < 2 || chunk_us <= 0 || chunks < 1) throw std::invalid_argument("bad option value");
    const std::uint64_t steps = rubato::bench::calibrate_churn(chunk_us * 1e-6);
    std::printf("tbb_throttle_reaction: %d runs, %d threads, chunks of %.0f us, %d per region\n", runs, threads,
                chunk_us, chunks);
    for (const bool long_loop : {false, true}) {
      std::vector<double> lower, raise;
      int kept = 0;
      for (int i = 0; i < runs; ++i) {
        const Reaction r = one_run(long_loop, threads, steps, chunks);
        lower.push_back(r.lower_s);
        if (r.raise_s >= 0) raise.push_back(r.raise_s);
        kept += r.lower_censored ? 1 : 0;
        char raised[32] = "no worker entered";
        if (r.raise_s >= 0) std::snprintf(raised, sizeof raised, "%.3f ms", r.raise_s * 1e3);
        std::printf("  %-7s run %d: lower %s%.3f ms, raise %s\n", long_loop ? "loop" : "regions", i,
                    r.lower_censored ? ">= " : "", r.lower_s * 1e3, raised);
      }
      std::printf(
          "%-7s median lowering reaction %.3f ms (%d/%d runs: a worker stayed until the raise), median "
          "raising reaction %.3f ms (%zu/%d runs)\n",
          long_loop ? "loop" : "regions", rubato::bench::median(lower) * 1e3, kept, runs,
          rubato::bench::median(raise) * 1e3, raise.size(), runs);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tbb_throttle_reaction: %s\n", e.what());
    return 2;
  }
}
