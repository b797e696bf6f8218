// Untied tasks that suspend and resume, possibly on another thread, as real
// task codes write them: untied_migrate <mode> <size> <threads>.
//   producer  an untied producer in `single nowait` (a blocked LU's shape):
//             <size> steps of one task, taskwait, 150 tasks, taskwait, 300
//             tasks, taskwait (more than libomp's 256-entry deque holds, so
//             some of the producer's parts run at once where they re-queue);
//             the children are untied, create a tied grandchild and wait for it
//             (no taskyield here: libomp may resume the untied producer inside
//             a child's taskyield on the child's own thread, and the producer's
//             taskwait then waits for that child, suspended beneath it on the
//             same stack — a deadlock of libomp's, seen once at 8 threads on 2
//             cores under ASan; the yield case yields without that shape)
//   yield     <size> untied tasks from a tied producer, each yielding 4 times
//   final     an untied recursive tree cut off with final() (its lower levels
//             run undeferred), <size> levels
//   tree      an untied recursive tree without cut-off (an unbalanced tree
//             search's shape): 300 children at the root, then <size> levels
//             of 3
//   deep      a chain of <size> tasks, each waiting for the next: nesting far
//             deeper than 256 tasks on one thread (tied and untied halves)
// Each task records every thread that ran part of it and the one that ran
// its end (ground_truth.hpp, "Parts"); the output depends on nothing else.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ground_truth.hpp"

namespace {

std::atomic<long> total{0};

void leaf(long slot, long v) {
  ground_truth::task_started(slot);
  total += v + (ground_truth::work(100) & 0);
  ground_truth::finished(slot);
}

// Scheduling points lexically inside an untied task's region are where clang
// splits it into parts (each re-queues the task, which may then resume on
// another thread); points in functions it calls only suspend it in place. So
// the producer's and the children's bodies are written out in their regions.

// `n` untied children, each with a tied grandchild and a wait.
#define SPAWN_CHILDREN(producer, n, base)                \
  for (int i = 0; i < (n); ++i) {                        \
    const long c = ground_truth::before_task();          \
    const long v = (base) + i;                           \
    _Pragma("omp task untied firstprivate(c, v)") {      \
      ground_truth::task_started(c);                     \
      total += ground_truth::work(50) & 0;               \
      const long g = ground_truth::before_task();        \
      _Pragma("omp task firstprivate(g, v)") leaf(g, v); \
      ground_truth::after_task(g);                       \
      ground_truth::part(c);                             \
      total += ground_truth::work(50) & 0;               \
      _Pragma("omp taskwait") total += v;                \
      ground_truth::finished(c);                         \
    }                                                    \
    ground_truth::after_task(c);                         \
    ground_truth::part(producer);                        \
  }

void producer(int steps, int width) {
  const long p = ground_truth::before_task();
#pragma omp task untied firstprivate(p, steps, width)
  {
    ground_truth::task_started(p);
    for (int k = 0; k < steps; ++k) {
      SPAWN_CHILDREN(p, 1, 1000L * k)  // the "diagonal" block
#pragma omp taskwait
      ground_truth::part(p);
      SPAWN_CHILDREN(p, width, 1000L * k + 1)  // row and column blocks
#pragma omp taskwait
      ground_truth::part(p);
      SPAWN_CHILDREN(p, width * 2, 1000L * k + 500)  // updates
#pragma omp taskwait
      ground_truth::part(p);
    }
    ground_truth::finished(p);
  }
  ground_truth::after_task(p);
}

void yielders(int n) {
  for (int i = 0; i < n; ++i) {
    const long s = ground_truth::before_task();
#pragma omp task untied firstprivate(s, i)
    {
      ground_truth::task_started(s);
      for (int y = 0; y < 4; ++y) {
        total += ground_truth::work(30) & 0;
#pragma omp taskyield
        ground_truth::part(s);
      }
      total += i;
      ground_truth::finished(s);
    }
    ground_truth::after_task(s);
  }
}

// The tree and the chain recurse through functions, as recursive codes do:
// their task creation and taskwait are not in the task's own region (the
// task moves only after its launch stub, or runs its parts nested in place).
void tree(long slot, int level, int cutoff, long v, int width = 3) {
  ground_truth::task_started(slot);
  total += v + (ground_truth::work(20) & 0);
  if (level > 0) {
    for (int i = 0; i < width; ++i) {
      const long c = ground_truth::before_task();
      if (cutoff >= 0) {
#pragma omp task untied final(level <= cutoff) firstprivate(c, level, cutoff, v, i)
        tree(c, level - 1, cutoff, v * 3 + i);
      } else {
#pragma omp task untied firstprivate(c, level, cutoff, v, i)
        tree(c, level - 1, cutoff, v * 3 + i);
      }
      ground_truth::after_task(c);
      ground_truth::part(slot);
    }
#pragma omp taskwait
  }
  ground_truth::finished(slot);
}

void chain(long slot, int left, bool untied) {
  ground_truth::task_started(slot);
  total += 1;
  if (left > 0) {
    const long c = ground_truth::before_task();
    if (untied) {
#pragma omp task untied firstprivate(c, left)
      chain(c, left - 1, true);
    } else {
#pragma omp task firstprivate(c, left)
      chain(c, left - 1, false);
    }
    ground_truth::after_task(c);
    ground_truth::part(slot);
#pragma omp taskwait
  }
  ground_truth::finished(slot);
}

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "producer";
  const int size = argc > 2 ? std::atoi(argv[2]) : 10;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
  const bool known = !std::strcmp(mode, "producer") || !std::strcmp(mode, "yield") || !std::strcmp(mode, "final") ||
                     !std::strcmp(mode, "tree") || !std::strcmp(mode, "deep");
  if (!known) {
    std::fprintf(stderr, "usage: untied_migrate producer|yield|final|tree|deep <size> <threads>\n");
    return 2;
  }
#pragma omp parallel num_threads(threads)
  {
#pragma omp single nowait
      {if (!std::strcmp(mode, "producer")){producer(size, 150);
}
else if (!std::strcmp(mode, "yield")) {
  yielders(size);
}
else if (!std::strcmp(mode, "final") || !std::strcmp(mode, "tree")) {
  const long s = ground_truth::before_task();
  const bool final = !std::strcmp(mode, "final");
  const int cutoff = final ? size - 3 : -1;
  const int width = final ? 3 : 300;
#pragma omp task untied firstprivate(s, size, cutoff, width)
  tree(s, final ? size : size + 1, cutoff, 1, width);
  ground_truth::after_task(s);
}
else {
  const long s = ground_truth::before_task();
#pragma omp task firstprivate(s, size)
  chain(s, size / 2, false);
  ground_truth::after_task(s);
  const long u = ground_truth::before_task();
#pragma omp task untied firstprivate(u, size)
  chain(u, size / 2, true);
  ground_truth::after_task(u);
}
}
// The tasks run in this barrier, as in the region's own at its end. It is
// explicit because a worker can leave the region's end ahead of the exit
// handler, whose read of its thread state with a trace then races
// (TaskEventMapper::finish; seen under TSan, with the old mapper too).
#pragma omp barrier
}
std::printf("total %ld\n", total.load());
ground_truth::write();
return 0;
}
