// What a test program records about its own tasks — who created each one and
// who started it (OS thread id and OpenMP thread number), and a lower bound of
// each creator's queue depth — so that rubato's report can be checked against
// it (tests/ompt/ompt_check.cpp). Written to $GT_FILE at the end, if set.
//
// Use:   long slot = ground_truth::before_task();
//        #pragma omp task firstprivate(slot)
//        { ground_truth::task_started(slot); ... }
//        ground_truth::after_task(slot);
//
// Parts: an untied task may move to another thread at each task scheduling
// point in it (creating a task, taskwait, taskyield). A program that calls
// ground_truth::part(slot) after each one and ground_truth::finished(slot) at
// the end of the body records every thread that ran part of the task and the
// one that ran its end ("ran" and "end" lines), which the checker compares with
// the trace's segments. Tasks are named by their creator and their order among
// the tasks that thread created ("task" lines are written in creation order
// per creator: slot order).
//
// Depth bound: right after a task construct returns on its creator c, every
// task c created is in the tool's count of pushes, and every task whose body
// started has been popped or stolen in the tool's count; a started task whose
// body has not begun yet sits between the tool's callback and the body's first
// line, at most one per other thread. So created(c) − body_started(c) − (T − 1)
// is at most the tool's depth at c's last push; the checker subtracts T − 1.
// T ("threads" in the file) counts every thread that created or started a
// task: counting only creators made T − 1 zero for a single producer, and the
// check failed whenever the thief was between its callback and its task's
// first line at the creator's deepest point (seen once under TSan).
#pragma once

#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace ground_truth {

constexpr int kMaxThreads = 128;
constexpr long kMaxTasks = 1L << 20;

struct Task {
  long creator_tid = 0;
  int creator_omp = -1;
  int creator_index = -1;
  std::atomic<long> starter_tid{0};
  std::atomic<int> starter_omp{-1};
  std::atomic<unsigned long> ran[2] = {0, 0};  // bit i: thread index i ran part of it
  std::atomic<long> finisher_tid{0};           // 0: the program did not record its end
};

struct Thread {
  std::atomic<long> tid{0};
  std::atomic<long> created{0};
  std::atomic<long> started{0};  // tasks this thread created whose body started
  std::atomic<long> bound{0};
};

class Recorder {
 public:
  Recorder() : tasks_(new Task[kMaxTasks]) {}

  long before_task() {
    const long slot = next_.fetch_add(1);
    if (slot >= kMaxTasks) {
      std::fprintf(stderr, "ground_truth: more than %ld tasks\n", kMaxTasks);
      std::abort();
    }
    Task& t = tasks_[slot];
    t.creator_tid = tid();
    t.creator_omp = omp_get_thread_num();
    t.creator_index = index();
    return slot;
  }
  void task_started(long slot) {
    index();  // this thread counts in T (see the depth bound above), even if it creates no task
    Task& t = tasks_[slot];
    t.starter_tid.store(tid());
    t.starter_omp.store(omp_get_thread_num());
    threads_[t.creator_index].started.fetch_add(1);
    part(slot);
  }
  void part(long slot) {
    const int i = index();
    tasks_[slot].ran[i / 64].fetch_or(1ul << (i % 64));
  }
  void finished(long slot) {
    part(slot);
    tasks_[slot].finisher_tid.store(tid());
  }
  void after_task(long slot) {
    const Task& t = tasks_[slot];
    Thread& c = threads_[t.creator_index];
    const long created = c.created.fetch_add(1) + 1;
    // An untied task may continue on another thread after the construct.
    if (index() != t.creator_index) return;
    const long depth = created - c.started.load();
    if (depth > c.bound.load()) c.bound.store(depth);
  }

  void write() const {
    const char* path = std::getenv("GT_FILE");
    if (!path) return;
    std::FILE* f = std::fopen(path, "w");
    if (!f) {
      std::perror(path);
      std::exit(3);
    }
    std::fprintf(f, "threads %d\n", threads_used_.load());
    for (long i = 0; i < next_.load(); ++i) {
      const Task& t = tasks_[i];
      if (t.starter_tid.load() == 0) {
        std::fprintf(stderr, "ground_truth: task %ld never started\n", i);
        std::exit(3);
      }
      std::fprintf(f, "task %ld %d %ld %d\n", t.creator_tid, t.creator_omp, t.starter_tid.load(), t.starter_omp.load());
    }
    for (int i = 0; i < threads_used_.load(); ++i)
      std::fprintf(f, "bound %ld %ld\n", threads_[i].tid.load(), threads_[i].bound.load());
    for (long i = 0; i < next_.load(); ++i) {
      const Task& t = tasks_[i];
      if (t.finisher_tid.load() == 0) continue;
      std::fprintf(f, "ran %ld", i);
      for (int b = 0; b < kMaxThreads; ++b)
        if (t.ran[b / 64].load() & (1ul << (b % 64))) std::fprintf(f, " %ld", threads_[b].tid.load());
      std::fprintf(f, "\nend %ld %ld\n", i, t.finisher_tid.load());
    }
    std::fclose(f);
  }

 private:
  static long tid() {
    thread_local const long t = syscall(SYS_gettid);
    return t;
  }
  int index() {
    thread_local int mine = -1;
    if (mine < 0) {
      mine = threads_used_.fetch_add(1);
      if (mine >= kMaxThreads) std::abort();
      threads_[mine].tid.store(tid());
    }
    return mine;
  }

  std::unique_ptr<Task[]> tasks_;
  Thread threads_[kMaxThreads];
  std::atomic<long> next_{0};
  std::atomic<int> threads_used_{0};
};

inline Recorder& recorder() {
  static Recorder r;
  return r;
}
inline long before_task() { return recorder().before_task(); }
inline void task_started(long slot) { recorder().task_started(slot); }
inline void after_task(long slot) { recorder().after_task(slot); }
inline void part(long slot) { recorder().part(slot); }
inline void finished(long slot) { recorder().finished(slot); }
inline void write() { recorder().write(); }

// A few microseconds of arithmetic the compiler cannot remove.
// Unsigned: the sum wraps by design (signed overflow would be undefined).
inline long work(long n) {
  volatile unsigned long acc = 0;
  for (long i = 0; i < n; ++i) acc = acc + (static_cast<unsigned long>(i) ^ (acc >> 3));
  return static_cast<long>(acc);
}

}  // namespace ground_truth
