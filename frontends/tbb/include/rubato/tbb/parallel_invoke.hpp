// rubato::tbb::parallel_invoke: tbb::parallel_invoke(f1, ..., fn), n >= 2, with
// each functor reported as a task spawned by the calling worker (pushed when
// the call starts; popped when it runs on the caller, stolen elsewhere).
#pragma once

#include <oneapi/tbb/parallel_invoke.h>

#include <concepts>
#include <functional>
#include <tuple>

#include "rubato/tbb/detail/task_events.hpp"
#include "rubato/tbb/task_group.hpp"

namespace rubato::tbb {

template <class... Fs>
  requires(sizeof...(Fs) >= 2 && (std::invocable<const Fs&> && ...))
void parallel_invoke(const Fs&... fs) {
  if (!detail::observing()) {
    ::tbb::parallel_invoke(fs...);
    return;
  }
  // Braced initialisation runs left to right: the pushes are in argument order.
  const std::tuple<detail::referenced_task<Fs>...> tasks{
      detail::referenced_task<Fs>(std::cref(fs), detail::note_spawn())...};
  detail::wait_scope waiting;
  std::apply([](const auto&... task) { ::tbb::parallel_invoke(task...); }, tasks);
}

}  // namespace rubato::tbb
