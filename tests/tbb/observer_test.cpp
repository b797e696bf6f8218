// rubato::tbb::observer: disabled or second observers leave the program to
// plain oneTBB; re-entering the arena many times is idempotent; static binding
// pins workers and the finishing thread is unpinned; drop-ins without an
// observer are plain oneTBB.
#include <catch2/catch.hpp>
#include <oneapi/tbb/parallel_for.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <set>
#include <thread>

#include "fib.hpp"
#include "ground_truth.hpp"
#include "rubato/power/os/thread_binding.hpp"
#include "rubato/tbb.hpp"
#include "temp_dir.hpp"

// oneTBB frees an observer's proxy only when no thread's "last observer"
// refers to it; the main thread's never lets go before exit. Not rubato's.
extern "C" const char* __lsan_default_suppressions() { return "leak:tbb::detail::r1::observe\n"; }

namespace {

long fib(int n) { return rubato::test::fib<rubato::tbb::task_group>(n); }

}  // namespace

TEST_CASE("Tbb.Observer.DisabledRunsPlainOneTbb", "[tbb]") {
  rubato::tbb::observer obs(rubato::test::quiet_env({{"RUBATO_ENABLE", "0"}}));
  CHECK_FALSE(obs.active());
  CHECK(fib(15) == 610);
  CHECK(obs.finish().workers.empty());
}

TEST_CASE("Tbb.Observer.WithoutObserverDropInsArePlain", "[tbb]") {
  CHECK(fib(15) == 610);
  std::atomic<int> n{0};
  rubato::tbb::parallel_invoke([&] { ++n; }, [&] { ++n; }, [&] { ++n; });
  rubato::tbb::parallel_for(::tbb::blocked_range<int>(0, 100),
                            [&](const ::tbb::blocked_range<int>& r) { n += static_cast<int>(r.size()); });
  CHECK(n.load() == 103);
}

TEST_CASE("Tbb.Observer.SecondObserverIsPassive", "[tbb]") {
  rubato::tbb::observer first(rubato::test::quiet_env());
  REQUIRE(first.active());
  {
    rubato::tbb::observer second(rubato::test::quiet_env());
    CHECK_FALSE(second.active());
    CHECK(fib(12) == 144);
  }
  const rubato::Report& r = first.finish();
  const auto t = rubato::test::totals(r);
  CHECK(t.pushes > 0);
  CHECK(t.completed == t.pushes);
  // After the first one finished, a new observer can start.
  rubato::tbb::observer third(rubato::test::quiet_env());
  CHECK(third.active());
}

TEST_CASE("Tbb.Observer.ReentryIsIdempotent", "[tbb]") {
  const int threads = 4;
  const rubato::Environment env = rubato::test::quiet_env({{"RUBATO_BINDING", "static"}});
  std::atomic<long> sum{0};
  const rubato::Report r = rubato::test::run_observed(threads, env, [&] {
    // Many short regions with pauses in between: workers leave the arena and
    // rejoin it (entry fires again each time).
    for (int region = 0; region < 30; ++region) {
      rubato::tbb::parallel_for(::tbb::blocked_range<int>(0, 64, 1),
                                [&](const ::tbb::blocked_range<int>& b) { sum += static_cast<long>(b.size()); });
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  CHECK(sum.load() == 30 * 64);
  CHECK(r.binding == "static");
  CHECK(r.dropped_events == 0);
  CHECK(r.tool_errors == 0);
  REQUIRE_FALSE(r.workers.empty());
  std::set<unsigned> ids;
  for (const auto& w : r.workers) {
    CHECK(w.id < static_cast<unsigned>(threads));
    CHECK(ids.insert(w.id).second);
    CHECK(w.core >= 0);  // pinned at entry (static binding)
  }
  const auto t = rubato::test::totals(r);
  CHECK(t.completed == t.pushes);
  CHECK(t.pops + t.steals == t.pushes);
  // The finishing thread is given its affinity back.
  CHECK(rubato::pinned_cpu_of_current_thread() == -1);
}

TEST_CASE("Tbb.Observer.ReportIsWrittenAtDestruction", "[tbb]") {
  const rubato::test::TempDir tmp;
  const std::string path = tmp.file("report.json");
  {
    rubato::tbb::observer obs({{"RUBATO_REPORT", path}, {"RUBATO_BACKEND", "dry-run"}, {"RUBATO_LOG", "error"}});
    REQUIRE(obs.active());
    CHECK(fib(12) == 144);
  }
  std::FILE* f = std::fopen(path.c_str(), "r");
  REQUIRE(f != nullptr);
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  std::remove(path.c_str());
  std::string error;
  const auto r = rubato::report_from_json(text, error);
  REQUIRE(r);
  CHECK(r->frontend == "tbb");
  CHECK(r->steals_observed);
  CHECK(rubato::test::totals(*r).completed == rubato::test::totals(*r).pushes);
}

// A task scope still open when its observer ends (here on the main thread,
// which stays in its arena) ends under the next observer: it must leave the
// new observer's record of the thread alone, and the new run counts as usual.
TEST_CASE("Tbb.Observer.ScopeOutlivingItsObserverLeavesTheNextAlone", "[tbb]") {
  using rubato::tbb::detail::t_record;
  std::optional<rubato::tbb::observer> first(std::in_place, rubato::test::quiet_env());
  REQUIRE(first->active());
  CHECK(fib(10) == 55);  // the main thread is in the observed arena
  std::optional<rubato::tbb::detail::task_scope> scope;
  scope.emplace(rubato::tbb::detail::note_spawn());
  REQUIRE(t_record.scopes == 1);
  first.reset();
  rubato::tbb::observer second(rubato::test::quiet_env());
  REQUIRE(second.active());
  scope.reset();
  CHECK(t_record.scopes == 0);
  CHECK(t_record.frame == &t_record.root);
  CHECK(fib(12) == 144);
  const rubato::Report& r = second.finish();
  const auto t = rubato::test::totals(r);
  CHECK(t.pushes > 0);
  CHECK(t.completed == t.pushes);
  CHECK(r.dropped_events == 0);
}
