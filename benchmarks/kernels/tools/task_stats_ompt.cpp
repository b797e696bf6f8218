// libkernels_task_stats.so: a measuring aid for the kernels' README, not part
// of rubato. Attached with OMP_TOOL_LIBRARIES, it counts the explicit tasks an
// OpenMP program creates, how many first ran on a thread other than their
// creator (steals), and the distribution of each task's exclusive CPU time
// (the thread CPU time of its scheduling segments, i.e. without the children
// it waits for, and without time the OS gave to other processes: the figures
// hold on a loaded machine), then prints one line to stderr at exit:
//   task_stats: tasks=N steals=S busy_cpu_s=T task_cpu_us p10=.. p50=.. p90=.. p99=.. max=.. mean=..
// It allocates per task and reads the thread CPU clock (a system call) per
// switch: use it for counts and durations, not for timing the kernel.
#include <omp-tools.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <vector>

namespace {

std::uint64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

struct TaskRecord {
  int creator;
  bool started = false;
  std::uint64_t exclusive_ns = 0;
};

struct ThreadStats {
  int index = 0;
  std::uint64_t created = 0;
  std::uint64_t steals = 0;
  std::uint64_t segment_start = 0;
  std::vector<std::uint64_t> task_ns;  // exclusive time of each completed task
};

// Never destroyed: libomp may call finalize after this library's static
// destructors have run.
struct Registry {
  std::mutex mutex;
  std::vector<ThreadStats*> threads;
  std::atomic<int> next_index{0};
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}
thread_local ThreadStats* t_stats = nullptr;

ThreadStats& stats() {
  if (!t_stats) {
    Registry& reg = registry();
    t_stats = new ThreadStats;
    t_stats->index = reg.next_index.fetch_add(1);
    const std::lock_guard<std::mutex> lock(reg.mutex);
    reg.threads.push_back(t_stats);
  }
  return *t_stats;
}

void on_thread_begin(ompt_thread_t, ompt_data_t*) { stats(); }

void on_task_create(ompt_data_t*, const ompt_frame_t*, ompt_data_t* task, int flags, int, const void*) {
  if (!(flags & ompt_task_explicit)) return;
  ThreadStats& s = stats();
  ++s.created;
  task->ptr = new TaskRecord{s.index};
}

void on_task_schedule(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
  ThreadStats& s = stats();
  const std::uint64_t t = thread_cpu_ns();
  if (auto* r = static_cast<TaskRecord*>(prior ? prior->ptr : nullptr)) {
    r->exclusive_ns += t - s.segment_start;
    if (status == ompt_task_complete || status == ompt_task_late_fulfill) {
      s.task_ns.push_back(r->exclusive_ns);
      delete r;
      prior->ptr = nullptr;
    }
  }
  if (auto* r = static_cast<TaskRecord*>(next ? next->ptr : nullptr)) {
    if (!r->started) {
      r->started = true;
      s.steals += r->creator != s.index;
    }
  }
  s.segment_start = t;
}

double percentile_us(const std::vector<std::uint64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  return static_cast<double>(sorted[static_cast<std::size_t>(p * static_cast<double>(sorted.size() - 1))]) / 1e3;
}

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
  auto set_callback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  if (!set_callback) return 0;
  const bool ok =
      set_callback(ompt_callback_thread_begin, reinterpret_cast<ompt_callback_t>(&on_thread_begin)) ==
          ompt_set_always &&
      set_callback(ompt_callback_task_create, reinterpret_cast<ompt_callback_t>(&on_task_create)) == ompt_set_always &&
      set_callback(ompt_callback_task_schedule, reinterpret_cast<ompt_callback_t>(&on_task_schedule)) ==
          ompt_set_always;
  if (!ok) std::fprintf(stderr, "task_stats: the runtime does not deliver every callback needed; figures incomplete\n");
  return 1;
}

void finalize(ompt_data_t*) {
  std::uint64_t created = 0, steals = 0, busy = 0;
  std::vector<std::uint64_t> all;
  {
    Registry& reg = registry();
    const std::lock_guard<std::mutex> lock(reg.mutex);
    for (const ThreadStats* s : reg.threads) {
      created += s->created;
      steals += s->steals;
      all.insert(all.end(), s->task_ns.begin(), s->task_ns.end());
    }
  }
  std::sort(all.begin(), all.end());
  for (std::uint64_t ns : all) busy += ns;
  std::fprintf(stderr,
               "task_stats: tasks=%llu steals=%llu busy_cpu_s=%.3f task_cpu_us p10=%.1f p50=%.1f p90=%.1f p99=%.1f "
               "max=%.1f mean=%.1f\n",
               static_cast<unsigned long long>(created), static_cast<unsigned long long>(steals),
               static_cast<double>(busy) / 1e9, percentile_us(all, 0.10), percentile_us(all, 0.50),
               percentile_us(all, 0.90), percentile_us(all, 0.99), percentile_us(all, 1.0),
               all.empty() ? 0.0 : static_cast<double>(busy) / 1e3 / static_cast<double>(all.size()));
}

}  // namespace

extern "C" ompt_start_tool_result_t* ompt_start_tool(unsigned int, const char*) {
  static ompt_start_tool_result_t result{&initialize, &finalize, ompt_data_t{}};
  return &result;
}
