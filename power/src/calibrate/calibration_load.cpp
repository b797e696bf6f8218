#include "rubato/power/calibrate/calibration_load.hpp"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "rubato/power/emulator/emulated_frequency.hpp"  // thread_cpu_ns
#include "rubato/power/os/thread_binding.hpp"

namespace rubato {
namespace {

using Clock = std::chrono::steady_clock;

// Iterations per compute step: a few tens of microseconds at GHz rates, so a
// change of load (and the timing loop) reacts within that.
constexpr std::uint64_t kChunk = 4096;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

const char* to_string(LoadKind k) noexcept {
  switch (k) {
    case LoadKind::compute: return "compute";
    case LoadKind::spin: return "spin";
    case LoadKind::idle: break;
  }
  return "idle";
}

std::uint64_t compute_chunk(std::uint64_t seed, std::uint64_t iterations) noexcept {
  std::uint64_t x = seed | 1;
  double y = static_cast<double>(seed & 0xffff) + 1.0;
  for (std::uint64_t i = 0; i < iterations; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    x ^= x >> 29;
    y = y * 0.999999 + 1e-6;
  }
  return x ^ static_cast<std::uint64_t>(y);
}

void spin_pause(int n) noexcept {
  for (int i = 0; i < n; ++i) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    asm volatile("yield" ::: "memory");
#else
    asm volatile("" ::: "memory");
#endif
  }
}

namespace {

// Pins the calling load thread to `cpu`; false + `why` when it cannot be.
bool pin_load_thread(int cpu, std::string& why) {
  const int err = pin_thread(0, cpu);
  if (err == 0) return true;
  why = err == EINVAL && (cpu < 0 || cpu >= CPU_SETSIZE)
            ? "cpu " + std::to_string(cpu) + " is out of range"
            : "cannot pin a load thread to cpu " + std::to_string(cpu) + ": " + std::strerror(err);
  return false;
}

}  // namespace

struct LoadThreads::Worker {
  int cpu = 0;
  std::atomic<int> kind{static_cast<int>(LoadKind::idle)};
  std::atomic<bool> quit{false};
  std::mutex mutex;
  std::condition_variable wake;
  std::thread thread;
  std::atomic<int> pinned{0};  // 1 pinned, -1 failed
  std::string why;
  volatile std::uint64_t sink = 0;
};

void LoadThreads::run(Worker& w) {
  std::string why;
  if (!pin_load_thread(w.cpu, why)) {
    w.why = why;
    w.pinned.store(-1);
    return;
  }
  w.pinned.store(1);
  std::uint64_t x = static_cast<std::uint64_t>(w.cpu) + 1;
  while (!w.quit.load(std::memory_order_relaxed)) {
    switch (static_cast<LoadKind>(w.kind.load(std::memory_order_relaxed))) {
      case LoadKind::compute:
        x = compute_chunk(x, kChunk);
        w.sink = x;
        break;
      case LoadKind::spin:
        // A waiting worker: pause, then look at the flag it waits on.
        spin_pause(64);
        break;
      case LoadKind::idle: {
        std::unique_lock<std::mutex> lock(w.mutex);
        w.wake.wait(lock, [&] { return w.quit.load() || static_cast<LoadKind>(w.kind.load()) != LoadKind::idle; });
        break;
      }
    }
  }
}

bool LoadThreads::start(const std::vector<int>& cpus, std::string& why) {
  stop();
  for (int cpu : cpus) {
    auto w = std::make_unique<Worker>();
    w->cpu = cpu;
    Worker* raw = w.get();
    w->thread = std::thread([this, raw] { run(*raw); });
    workers_.push_back(std::move(w));
  }
  for (auto& w : workers_) {
    while (w->pinned.load() == 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
    if (w->pinned.load() < 0) {
      why = w->why;
      stop();
      return false;
    }
  }
  return true;
}

void LoadThreads::set(std::size_t k, LoadKind kind) {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    Worker& w = *workers_[i];
    {
      std::lock_guard<std::mutex> lock(w.mutex);
      w.kind.store(static_cast<int>(i < k ? kind : LoadKind::idle));
    }
    w.wake.notify_one();
  }
}

std::vector<double> LoadThreads::cpu_seconds() const {
  std::vector<double> out;
  for (const auto& w : workers_) {
    clockid_t id{};
    timespec ts{};
    double s = 0;
    if (pthread_getcpuclockid(const_cast<std::thread&>(w->thread).native_handle(), &id) == 0 &&
        clock_gettime(id, &ts) == 0)
      s = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    out.push_back(s);
  }
  return out;
}

LoadThreads::LoadThreads() = default;
LoadThreads::~LoadThreads() { stop(); }

void LoadThreads::stop() noexcept {
  for (auto& w : workers_) {
    {
      std::lock_guard<std::mutex> lock(w->mutex);
      w->quit.store(true);
    }
    w->wake.notify_one();
  }
  for (auto& w : workers_)
    if (w->thread.joinable()) w->thread.join();
  workers_.clear();
}

namespace {

// Runs `body` on a thread pinned to `cpu` and waits for it; false when pinning failed.
bool on_cpu(int cpu, const std::function<void()>& body) {
  bool pinned = false;
  std::thread t([&] {
    std::string why;
    pinned = pin_load_thread(cpu, why);
    if (pinned) body();
  });
  t.join();
  return pinned;
}

}  // namespace

double loop_rate(int cpu, double seconds) {
  double rate = -1;
  on_cpu(cpu, [&] {
    volatile std::uint64_t sink = 0;
    std::uint64_t x = 7, n = 0;
    compute_chunk(x, kChunk);  // warm
    // Per second of the thread's CPU time, not of wall time: the loop's speed
    // at the CPU's frequency, whatever share of the core a loaded machine gave
    // it (a run preempted a third of the time looked like a frequency change
    // and chose the timing loop on a machine whose speed never changes).
    const auto t0 = Clock::now();
    const std::uint64_t cpu0 = thread_cpu_ns();
    while (since(t0) < seconds) {
      x = compute_chunk(x, kChunk);
      n += kChunk;
    }
    const double ran = static_cast<double>(thread_cpu_ns() - cpu0) * 1e-9;
    sink = x;
    (void)sink;
    rate = ran > 0 ? static_cast<double>(n) / ran : -1;
  });
  return rate;
}

bool loop_follows_frequency(const std::vector<double>& fast_rates, const std::vector<double>& slow_rates,
                            double fast_hz, double slow_hz) {
  if (!(fast_hz > slow_hz) || slow_hz <= 0 || fast_rates.empty() || fast_rates.size() != slow_rates.size())
    return false;
  const double expected = fast_hz / slow_hz - 1;
  for (std::size_t i = 0; i < fast_rates.size(); ++i)
    if (!(slow_rates[i] > 0) || fast_rates[i] / slow_rates[i] - 1 < 0.5 * expected) return false;
  return true;
}

double timed_transition(int cpu, const std::function<bool()>& write, double from_rate, double to_rate,
                        double timeout_s) {
  double latency = -1;
  on_cpu(cpu, [&] {
    volatile std::uint64_t sink = 0;
    std::uint64_t x = 11;
    const double mid = 0.5 * (from_rate + to_rate);
    const bool up = to_rate > from_rate;
    // A chunk counts as "at the new speed" when its rate is past the midpoint;
    // three in a row, so that one lucky or preempted chunk does not decide.
    int in_a_row = 0;
    double first_at = -1;
    const auto t0 = Clock::now();
    if (!write()) return;
    auto before = Clock::now();
    while (since(t0) < timeout_s) {
      x = compute_chunk(x, kChunk / 4);
      const auto after = Clock::now();
      const double dt = std::chrono::duration<double>(after - before).count();
      const double rate = dt > 0 ? static_cast<double>(kChunk / 4) / dt : 0;
      const bool past = up ? rate >= mid : rate <= mid;
      if (past) {
        if (in_a_row++ == 0) first_at = std::chrono::duration<double>(after - t0).count();
        if (in_a_row >= 3) {
          latency = first_at;
          break;
        }
      } else {
        in_a_row = 0;
      }
      before = after;
    }
    sink = x;
    (void)sink;
  });
  return latency;
}

}  // namespace rubato
