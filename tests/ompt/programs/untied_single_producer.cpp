// One untied producer in `single`, the shape of BOTS sparselu single:
// untied_single_producer <blocks> <threads> [work per task].
// For each k < blocks the producer does a little work of its own, creates
// 2·(blocks−1−k) tasks and waits for them, then creates (blocks−1−k)² tasks
// and waits for them: tasks of moderate size (`work` units, default 40000),
// more of them than libomp's 256-entry deque holds. Being untied, the
// producer is re-queued at each task creation and each taskwait, and the
// thread that runs its next part may be the one that was stealing its tasks
// until then: its work then reaches that thread without a steal. The output
// depends on nothing but the arguments.
#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include "ground_truth.hpp"

namespace {

std::atomic<long> total{0};

// One task of `work` units (a variable in scope), recorded for the checker. A
// macro, not a function: task creation must be written in the producer's own
// region, where clang splits an untied task (the producer may move there).
#define SPAWN(producer, value)                            \
  do {                                                    \
    const long c = ground_truth::before_task();           \
    const long v = (value);                               \
    _Pragma("omp task untied firstprivate(c, v, work)") { \
      ground_truth::task_started(c);                      \
      total += v + (ground_truth::work(work) & 0);        \
    }                                                     \
    ground_truth::after_task(c);                          \
    ground_truth::part(producer);                         \
  } while (false)

// The producer: one untied task whose region creates the tasks and waits.
void produce(int blocks, long work) {
  const long p = ground_truth::before_task();
#pragma omp task untied firstprivate(p, blocks, work)
  {
    ground_truth::task_started(p);
    for (int k = 0; k < blocks; ++k) {
      total += ground_truth::work(work) & 0;  // the diagonal block
      for (int j = k + 1; j < blocks; ++j) SPAWN(p, 100000L * k + j);
      for (int i = k + 1; i < blocks; ++i) SPAWN(p, 100000L * k + 1000L * i);
#pragma omp taskwait
      ground_truth::part(p);
      for (int i = k + 1; i < blocks; ++i)
        for (int j = k + 1; j < blocks; ++j) SPAWN(p, 100000L * k + 1000L * i + j);
#pragma omp taskwait
      ground_truth::part(p);
    }
    ground_truth::finished(p);
  }
  ground_truth::after_task(p);
}

// The region runs on a thread with a large stack: libomp may run the untied
// producer's next part inside its task creation, nesting one part per created
// task on whichever thread runs it, and under ASan those frames overflow the
// main thread's default 8 MiB (the workers take OMP_STACKSIZE, set by the test).
struct Run {
  int blocks, threads;
  long work;
};

void* run_region(void* arg) {
  const Run& r = *static_cast<const Run*>(arg);
#pragma omp parallel num_threads(r.threads)
  {
#pragma omp single nowait
    produce(r.blocks, r.work);
    // The tasks run in this barrier (an explicit one: see untied_migrate.cpp).
#pragma omp barrier
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  const Run r{argc > 1 ? std::atoi(argv[1]) : 24, argc > 2 ? std::atoi(argv[2]) : 2,
              argc > 3 ? std::atol(argv[3]) : 40000};
  if (r.blocks < 1 || r.threads < 1 || r.work < 0) {
    std::fprintf(stderr, "usage: untied_single_producer <blocks> <threads> [work per task]\n");
    return 2;
  }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, std::size_t{256} << 20);
  pthread_t region;
  if (pthread_create(&region, &attr, run_region, const_cast<Run*>(&r)) != 0) {
    std::fprintf(stderr, "untied_single_producer: cannot start the region's thread\n");
    return 1;
  }
  pthread_join(region, nullptr);
  pthread_attr_destroy(&attr);
  std::printf("total %ld\n", total.load());
  ground_truth::write();
  return 0;
}
