// rubato::tbb::observer: attach rubato to a oneTBB program (RAII).
//
//   rubato::tbb::observer obs;                // settings from RUBATO_* variables
//   ... rubato::tbb::task_group / parallel_invoke / parallel_for ...
//   // the report is written when `obs` goes out of scope
//
// It observes one arena: the calling thread's (the implicit one when no
// arena is given) or the given task_arena. Each thread entering it becomes the
// worker of its slot (this_task_arena::current_thread_index()); with static
// binding it is pinned there. The drop-ins report their tasks to it. Create it
// before the parallel work and destroy it after: tasks still running when it
// ends are not accounted. One observer is active per process; a second one
// says so on stderr and observes nothing.
#pragma once

#include <oneapi/tbb/task_arena.h>

#include <memory>

#include "rubato/core/io/report.hpp"
#include "rubato/core/config/settings.hpp"

namespace rubato::tbb {
namespace detail {
class ArenaObserver;
}

class observer {
 public:
  observer();                                 // process environment, calling thread's arena
  explicit observer(const Environment& env);  // given RUBATO_* settings (tests, embedding)
  explicit observer(::tbb::task_arena& arena);
  observer(::tbb::task_arena& arena, const Environment& env);
  ~observer();
  observer(const observer&) = delete;
  observer& operator=(const observer&) = delete;

  // False when rubato is disabled (RUBATO_ENABLE=0), could not start, or
  // another observer is active: the program then runs plain oneTBB.
  bool active() const noexcept;

  // Ends observation now, writes the report (RUBATO_REPORT) and returns it.
  // Later calls (and the destructor) return / keep the same report. Empty
  // when not active.
  const Report& finish() noexcept;

 private:
  std::unique_ptr<detail::ArenaObserver> impl_;
};

}  // namespace rubato::tbb
