// Which task_group / parallel_invoke / parallel_for the TBB variants use: the
// instrumented drop-ins of rubato::tbb when built with
// RUBATO_KERNELS_INSTRUMENTED, plain oneTBB otherwise. The variants spell
// them `tbbx::...` and use nothing else from the namespace, so this is the
// only place that knows the difference.
#pragma once

#include <oneapi/tbb/blocked_range.h>

#include <cstddef>

#ifdef RUBATO_KERNELS_INSTRUMENTED
#include "rubato/tbb.hpp"
namespace tbbx = ::rubato::tbb;
#else
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/task_group.h>
namespace tbbx = ::tbb;
#endif

namespace kernels {

using index_range = ::tbb::blocked_range<std::size_t>;

// The TBB side of the kernels' two parallel primitives (see OmpTasks).
struct TbbTasks {
  // TBB needs no enclosing region: the first parallel construct starts the arena.
  template <class F>
  static void run(const F& root) {
    root();
  }

  // body(lo, hi) over chunks covering [begin, end): parallel_for over a
  // blocked_range with `grain` as its grain size.
  template <class F>
  static void for_chunks(std::size_t begin, std::size_t end, std::size_t grain, const F& body) {
    tbbx::parallel_for(index_range(begin, end, grain), [&body](const index_range& r) { body(r.begin(), r.end()); });
  }

  template <class A, class B>
  static void invoke(const A& a, const B& b) {
    tbbx::parallel_invoke(a, b);
  }
};

}  // namespace kernels
