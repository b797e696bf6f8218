// rubato::tbb::parallel_for: tbb::parallel_for over a range (blocked_range or
// any oneTBB range, with any partitioner / context arguments oneTBB takes),
// plus the (first, last[, step], f) index forms.
//
// oneTBB splits the range inside its own tasks, so the range itself carries
// the spawner: every split is a push by the splitting worker (the split-off
// piece is what oneTBB spawns or keeps in its range pool), and each piece's
// body call is its pop (same worker) or steal (another worker). The piece that
// stays with a stolen task keeps the victim's index, so a stolen task counts
// exactly one steal however it is split afterwards.
#pragma once

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <concepts>
#include <stdexcept>
#include <utility>

#include "rubato/tbb/detail/task_events.hpp"

namespace rubato::tbb {
namespace detail {

template <class R>
concept splittable_range =
    std::copy_constructible<R> && std::constructible_from<R, R&, ::tbb::split> && requires(const R& r) {
      { r.empty() } -> std::convertible_to<bool>;
      { r.is_divisible() } -> std::convertible_to<bool>;
    };

template <class Range>
class instrumented_range {
 public:
  instrumented_range(const Range& range, worker_index spawner) : range_(range), spawner_(spawner) {}
  // Called by oneTBB on the splitting thread, before it spawns or pools the new piece.
  instrumented_range(instrumented_range& other, ::tbb::split s) : range_(other.range_, s), spawner_(note_spawn()) {}
  instrumented_range(instrumented_range& other, ::tbb::proportional_split& p)
    requires std::constructible_from<Range, Range&, ::tbb::proportional_split&>
      : range_(other.range_, p), spawner_(note_spawn()) {}

  bool empty() const { return range_.empty(); }
  bool is_divisible() const { return range_.is_divisible(); }
  Range& base() noexcept { return range_; }
  worker_index spawner() const noexcept { return spawner_; }

 private:
  Range range_;  // split first: the push follows the split
  worker_index spawner_;
};

template <class Range, class Body>
class instrumented_body {
 public:
  explicit instrumented_body(const Body& body) : body_(body) {}
  void operator()(instrumented_range<Range>& piece) const {
    task_scope scope(piece.spawner());
    body_(piece.base());
  }

 private:
  Body body_;
};

}  // namespace detail

template <class Range, class Body, class... Rest>
  requires detail::splittable_range<Range>
void parallel_for(const Range& range, const Body& body, Rest&&... rest) {
  if (!detail::observing() || range.empty()) {
    ::tbb::parallel_for(range, body, std::forward<Rest>(rest)...);
    return;
  }
  const detail::instrumented_range<Range> root(range, detail::note_spawn());
  detail::wait_scope waiting;
  ::tbb::parallel_for(root, detail::instrumented_body<Range, Body>(body), std::forward<Rest>(rest)...);
}

// As oneTBB: f(i) for i in [first, last) by `step`, over a blocked_range of grain 1.
template <class Index, class Function>
  requires std::integral<Index> && std::invocable<const Function&, Index>
void parallel_for(Index first, Index last, Index step, const Function& f) {
  if (step <= 0) throw std::invalid_argument("rubato::tbb::parallel_for: step must be positive");
  if (last <= first) return;
  const Index end = static_cast<Index>((last - first - Index(1)) / step + Index(1));
  parallel_for(::tbb::blocked_range<Index>(Index(0), end, 1), [&](const ::tbb::blocked_range<Index>& r) {
    for (Index i = r.begin(); i < r.end(); ++i) f(static_cast<Index>(first + i * step));
  });
}

template <class Index, class Function>
  requires std::integral<Index> && std::invocable<const Function&, Index>
void parallel_for(Index first, Index last, const Function& f) {
  parallel_for(first, last, Index(1), f);
}

}  // namespace rubato::tbb
