// The OpenMP side of the kernels' two parallel primitives, written with
// explicit `task` / `taskwait` recursion (not worksharing loops) so that the
// work is spread by work stealing, which is what rubato observes. The kernels
// are templates over a scheduler with this interface; TbbTasks
// (tbb_api.hpp) is the other implementation.
#pragma once

#include <cstddef>

namespace kernels {

struct OmpTasks {
  // Runs `root` on one thread of a parallel region; what it spawns is shared
  // by the team through the task queues.
  template <class F>
  static void run(const F& root) {
#pragma omp parallel
#pragma omp single
    root();
  }

  // body(lo, hi) on disjoint chunks of at most `grain` indices covering
  // [begin, end): the range is halved recursively, one half spawned as a
  // task and the other run inline, then taskwait.
  template <class F>
  static void for_chunks(std::size_t begin, std::size_t end, std::size_t grain, const F& body) {
    if (end - begin <= grain) {
      if (end > begin) body(begin, end);
      return;
    }
    const std::size_t mid = begin + (end - begin) / 2;
    const F* b = &body;
#pragma omp task firstprivate(b, begin, mid, grain)
    for_chunks(begin, mid, grain, *b);
    for_chunks(mid, end, grain, body);
#pragma omp taskwait
  }

  // a() and b() in parallel (a spawned, b inline), then taskwait.
  template <class A, class B>
  static void invoke(const A& a, const B& b) {
    const A* pa = &a;
#pragma omp task firstprivate(pa)
    (*pa)();
    b();
#pragma omp taskwait
  }
};

}  // namespace kernels
