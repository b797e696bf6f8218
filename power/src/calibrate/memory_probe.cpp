#include "rubato/power/calibrate/memory_probe.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include "rubato/power/os/thread_binding.hpp"

namespace rubato {

namespace {

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

constexpr std::size_t kMiB = std::size_t{1} << 20;

// MemAvailable from /proc/meminfo, bytes (0 unknown).
std::size_t mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("MemAvailable:", 0) == 0) {
      std::istringstream s(line.substr(13));
      std::size_t kib = 0;
      s >> kib;
      return kib * 1024;
    }
  return 0;
}

}  // namespace

std::size_t memory_probe_bytes(const Topology& t) {
  std::size_t largest = 0;
  for (const auto& c : t.caches) largest = std::max<std::size_t>(largest, c.size_bytes);
  if (largest == 0) largest = 32 * kMiB;
  std::size_t bytes = std::clamp<std::size_t>(4 * largest, 64 * kMiB, 1024 * kMiB);
  if (const std::size_t avail = mem_available_bytes(); avail > 0) bytes = std::min(bytes, avail / 4);
  return std::max<std::size_t>(bytes, 3 * 4096);
}

struct MemoryProbe::Slice {
  int cpu = 0;
  std::vector<double> a, b, c;
  volatile double sink = 0;
  double cpu_s = 0;  // the last timing's CPU time of this thread
};

MemoryProbe::MemoryProbe() = default;
MemoryProbe::~MemoryProbe() { stop(); }

void MemoryProbe::work(Slice& s) {
  long seen = 0;
  while (true) {
    int passes = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return quit_ || generation_ != seen; });
      if (quit_) return;
      seen = generation_;
      passes = passes_;
    }
    const double cpu0 = thread_cpu_s();
    const std::size_t n = s.a.size();
    double* a = s.a.data();
    const double* b = s.b.data();
    const double* c = s.c.data();
    for (int p = 0; p < passes; ++p) {
      const double scalar = 3.0 + p;
      for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
    }
    s.sink = a[n / 2];
    const double cpu_s = thread_cpu_s() - cpu0;
    std::lock_guard<std::mutex> lock(mutex_);
    s.cpu_s = cpu_s;
    if (++finished_ == slices_.size()) done_.notify_all();
  }
}

bool MemoryProbe::start(const std::vector<int>& cpus, std::size_t bytes, std::string& why) {
  stop();
  quit_ = false;
  if (cpus.empty()) {
    why = "no CPU to run the memory probe on";
    return false;
  }
  const std::size_t per_array = std::max<std::size_t>(bytes / 3 / cpus.size() / sizeof(double), 512);
  std::vector<int> tids(cpus.size(), 0), pinned(cpus.size(), 0);
  for (int cpu : cpus) {
    auto s = std::make_unique<Slice>();
    s->cpu = cpu;
    slices_.push_back(std::move(s));
  }
  std::mutex ready_mutex;
  std::condition_variable ready;
  std::size_t started = 0;
  for (std::size_t i = 0; i < slices_.size(); ++i) {
    Slice* s = slices_[i].get();
    threads_.emplace_back([&, s, i, per_array] {
      const int err = pin_thread(0, s->cpu);
      // First touch by the thread that streams it: the pages sit on its node.
      if (err == 0) {
        s->a.assign(per_array, 0.0);
        s->b.assign(per_array, 1.0);
        s->c.assign(per_array, 2.0);
      }
      {
        // Notified under the lock: start() may return (and its locals go)
        // as soon as the last thread lets go of it.
        std::lock_guard<std::mutex> lock(ready_mutex);
        tids[i] = static_cast<int>(::gettid());
        pinned[i] = err == 0 ? 1 : -err;
        ++started;
        ready.notify_all();
      }
      if (err == 0) work(*s);
    });
  }
  {
    std::unique_lock<std::mutex> lock(ready_mutex);
    ready.wait(lock, [&] { return started == slices_.size(); });
  }
  for (std::size_t i = 0; i < slices_.size(); ++i)
    if (pinned[i] != 1) {
      why = "cannot pin a memory-probe thread to cpu " + std::to_string(cpus[i]) + ": " + std::strerror(-pinned[i]);
      stop();
      return false;
    }
  tids_ = tids;
  cpus_ = cpus;
  bytes_ = per_array * 3 * sizeof(double) * cpus.size();
  return true;
}

double MemoryProbe::run(int passes) {
  if (threads_.empty()) return -1;
  std::unique_lock<std::mutex> lock(mutex_);
  passes_ = std::max(1, passes);
  finished_ = 0;
  ++generation_;
  wake_.notify_all();
  done_.wait(lock, [&] { return finished_ == slices_.size(); });
  double slowest = 0;
  for (const auto& s : slices_) slowest = std::max(slowest, s->cpu_s);
  return slowest;
}

void MemoryProbe::stop() noexcept {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
  slices_.clear();
  tids_.clear();
  cpus_.clear();
  bytes_ = 0;
}

}  // namespace rubato
