// [META] §IV: synthesised metrics and the history table's contention test.
#include <catch2/catch.hpp>

#include <vector>

#include "rubato/core/affinity/affinity_history.hpp"
#include "rubato/core/affinity/affinity_metrics.hpp"

using namespace rubato::affinity;

namespace {

IntervalMetrics with_miss_rate(double rate) {
  IntervalSample s;
  s.elapsed_s = 0.1;
  s.core_frequency_hz = {2e9};
  ThreadSample t;
  t.busy_s = 0.05;
  t.instructions = 1e8;
  t.llc_misses = rate * 1e8;
  s.threads = {t};
  return synthesise(s);
}

}  // namespace

TEST_CASE("Affinity.Metrics.Utilisation", "[core][affinity]") {
  IntervalSample s;
  s.elapsed_s = 1.0;
  s.core_frequency_hz = {3e9, 2e9};
  ThreadSample cycles{1, 0, 0.9, 1.5e9, {}, {}, {}};  // busy cycles win over busy time
  ThreadSample proc{2, 1, 0.4, {}, {}, {}, {}};       // /proc only
  ThreadSample turbo{3, 1, 0.7, 2.4e9, {}, {}, {}};   // above the governor's frequency
  ThreadSample stray{4, 7, 0.5, {}, {}, {}, {}};      // bound to a core the sample has no frequency for
  s.threads = {cycles, proc, turbo, stray};
  const IntervalMetrics m = synthesise(s);
  REQUIRE(m.threads.size() == 3);
  CHECK(m.threads[0].utilisation == Approx(0.5));  // 1.5e9 / (1 s · 3 GHz)
  CHECK(m.threads[1].utilisation == Approx(0.4));
  CHECK(m.threads[2].utilisation == Approx(1.0));  // clamped
  CHECK(m.cores[0].utilisation == Approx(0.5));
  CHECK(m.cores[1].utilisation == Approx(1.0));  // 0.4 + 1.0, at most 1
  CHECK(m.cores[0].threads == 1);
  CHECK(m.cores[1].threads == 2);
  CHECK(m.cores[1].frequency_hz == 2e9);
  CHECK_FALSE(m.cores[0].miss_rate);
  CHECK_FALSE(m.cores[0].fp_intensity);
}

TEST_CASE("Affinity.Metrics.MissRateAndFpIntensity", "[core][affinity]") {
  IntervalSample s;
  s.elapsed_s = 0.5;
  s.core_frequency_hz = {2e9};
  s.threads = {{1, 0, 0.2, {}, 2e6, 1e8, 3e7}, {2, 0, 0.2, {}, 6e6, 1e8, {}}};
  const IntervalMetrics m = synthesise(s);
  CHECK(*m.threads[0].miss_rate == Approx(0.02));
  CHECK(*m.threads[0].misses_per_s == Approx(4e6));
  CHECK(*m.threads[0].fp_intensity == Approx(0.3));
  CHECK_FALSE(m.threads[1].fp_intensity);
  CHECK(*m.cores[0].miss_rate == Approx(8e6 / 2e8));  // over both threads' instructions
  CHECK(*m.cores[0].fp_intensity == Approx(0.3));     // only the thread that counted FP
}

TEST_CASE("Affinity.History.ContentionLastKAgainstPreviousJ", "[core][affinity]") {
  HistoryParams p;
  p.recent = 3;
  p.baseline = 4;
  p.tolerance = 0.5;
  MetricsHistory h(p);
  for (int i = 0; i < 4; ++i) h.push(with_miss_rate(0.01));
  CHECK_FALSE(h.cache_contention(0).known);  // needs k + j intervals
  for (double r : {0.014, 0.014, 0.014}) h.push(with_miss_rate(r));
  ContentionVerdict v = h.cache_contention(0);
  REQUIRE(v.known);
  CHECK(v.baseline_mean == Approx(0.01));
  CHECK(v.recent_mean == Approx(0.014));
  CHECK_FALSE(v.elevated);  // 40 % up is within the 50 % tolerance
  CHECK(h.size() == 7);     // the table keeps k + j intervals
  h.clear();
  for (int i = 0; i < 4; ++i) h.push(with_miss_rate(0.01));
  for (double r : {0.03, 0.03, 0.03}) h.push(with_miss_rate(r));
  v = h.cache_contention(0);
  CHECK(v.elevated);
  CHECK(v.sustained);
  // One interval at 6x lifts the k-mean above the tolerance, but it is not sustained.
  h.clear();
  for (int i = 0; i < 4; ++i) h.push(with_miss_rate(0.01));
  for (double r : {0.06, 0.01, 0.01}) h.push(with_miss_rate(r));
  v = h.cache_contention(0);
  CHECK(v.elevated);
  CHECK_FALSE(v.sustained);
  // An absolute floor ignores noise on a nearly idle cache.
  p.min_increase = 0.05;
  MetricsHistory floor(p);
  for (int i = 0; i < 4; ++i) floor.push(with_miss_rate(0.01));
  for (double r : {0.03, 0.03, 0.03}) floor.push(with_miss_rate(r));
  CHECK_FALSE(floor.cache_contention(0).elevated);
}

TEST_CASE("Affinity.History.ThreadMeansAndModes", "[core][affinity]") {
  HistoryParams p;
  p.recent = 2;
  p.baseline = 1;
  MetricsHistory h(p);
  CHECK_FALSE(h.has_recent_window());
  h.push(with_miss_rate(0.10));  // falls out of the last k = 2
  h.push(with_miss_rate(0.02));
  h.push(with_miss_rate(0.04));
  CHECK(h.has_recent_window());
  const ThreadHistory t = h.thread(0);
  CHECK(t.intervals == 2);
  CHECK(t.utilisation == Approx(0.5));
  CHECK(*t.miss_rate == Approx(0.03));
  CHECK(*h.mean_core_miss_rate(0) == Approx(0.03));
  CHECK(h.has_miss_metrics());
  CHECK_FALSE(h.has_fp_metrics());
  CHECK(h.thread(99).intervals == 0);
  CHECK(h.sustained([](const IntervalMetrics& m) { return m.cores[0].utilisation > 0.4; }));
  CHECK_FALSE(h.sustained([](const IntervalMetrics& m) { return *m.cores[0].miss_rate > 0.03; }));
}
