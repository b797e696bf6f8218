// The uncore back-end that moves the uncore at run time (docs/uncore.md):
// the ladder, the safe write order and clamping, the per-domain rate limit
// (on a hand-moved clock), the original limits saved before the first write
// and restored after many moves, several packages and dies, the modelled
// control, and the profile's uncore transition latency.
#include <sys/inotify.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "uncore_fake_tree.hpp"
#include "rubato/power/frequency/uncore_control_modeled.hpp"
#include "rubato/power/frequency/uncore_control_sysfs.hpp"
#include "rubato/power/machine/profile.hpp"
#include "rubato/power/state/state_file.hpp"

using namespace rubato;

namespace {

constexpr std::uint64_t kMs = 1'000'000;

// The order in which files of one directory were written, as the kernel
// queued their IN_CLOSE_WRITE events (each sysfs write is one open-write-close).
class WriteOrder {
 public:
  explicit WriteOrder(const std::string& dir) : fd_(inotify_init1(IN_NONBLOCK)) {
    REQUIRE(fd_ >= 0);
    REQUIRE(inotify_add_watch(fd_, dir.c_str(), IN_CLOSE_WRITE) >= 0);
  }
  ~WriteOrder() { ::close(fd_); }
  // The files written since the last call, in order.
  std::vector<std::string> take() {
    std::vector<std::string> names;
    alignas(inotify_event) char buf[4096];
    for (ssize_t n; (n = ::read(fd_, buf, sizeof buf)) > 0;)
      for (ssize_t at = 0; at < n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(buf + at);
        if (e->len > 0) names.emplace_back(e->name);
        at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
      }
    return names;
  }

 private:
  int fd_;
};

struct UncoreScene {
  test::FakeSysfs fs;
  test::TempDir state;
  ManualClock clock;

  UncoreScene() { test::add_two_packages_two_dies(fs); }
  std::unique_ptr<SysfsUncoreControl> control(std::uint64_t interval_ns = 10 * kMs) {
    auto c = std::make_unique<SysfsUncoreControl>(read_topology(fs.root()), state.path() + "/s", &clock, interval_ns);
    std::string why;
    REQUIRE(c->usable(why));
    return c;
  }
  long khz(const char* domain, const char* file) const { return test::uncore_khz(fs, domain, file); }
};

}  // namespace

TEST_CASE("Power.Uncore.LadderFromRangeAndProfile") {
  const UncoreLadder hw = UncoreLadder::from_range(0.8e9, 2.4e9);
  REQUIRE(hw.size() == 17);  // 2.4, 2.3, ..., 0.8 GHz
  CHECK(hw.hz(0) == 2.4e9);
  CHECK(hw.hz(1) == 2.3e9);
  CHECK(hw.hz(16) == 0.8e9);
  CHECK(hw.hz(99) == 0.8e9);  // past the slowest: the slowest
  CHECK(hw.nearest_level(1.84e9) == 6);
  CHECK(hw.nearest_level(1.85e9) == 5);  // a tie goes to the faster level
  CHECK(hw.nearest_level(9e9) == 0);
  CHECK(hw.nearest_level(1e6) == 16);
  const UncoreLadder odd = UncoreLadder::from_range(0.75e9, 1.0e9);
  CHECK(odd.levels_hz() == std::vector<double>{1.0e9, 0.9e9, 0.8e9, 0.75e9});  // both ends kept
  CHECK(UncoreLadder::from_range(1e9, 1e9).size() == 1);
  CHECK(UncoreLadder::from_range(1e9, 0).empty());

  MachineProfile p;
  CHECK(UncoreLadder::from_profile(p).empty());  // no uncore_power table: nothing to choose
  p.uncore_power = {{3.0e9, 40}, {2.05e9, 30}, {1.2e9, 20}};
  const UncoreLadder modeled = UncoreLadder::from_profile(p);
  CHECK(modeled.fastest_hz() == 3.0e9);
  CHECK(modeled.slowest_hz() == 1.2e9);
  CHECK(modeled.size() == 20);  // 3.0 .. 1.2 GHz in 100 MHz steps, plus the table's 2.05 GHz
}

TEST_CASE("Power.Uncore.DomainsAndLaddersFromTheTree") {
  UncoreScene s;
  const auto c = s.control();
  REQUIRE(c->domains() == 4);
  CHECK(c->domain(0).name == "package_00_die_00");
  CHECK(c->domain(1).package == 0);
  CHECK(c->domain(3).name == "package_01_die_01");
  CHECK(c->domain(3).package == 1);
  // The hardware's range (initial_*), not the narrower limits in force.
  CHECK(c->ladder(2).fastest_hz() == 2.4e9);
  CHECK(c->ladder(2).slowest_hz() == 0.8e9);
  CHECK(c->ladder(2).size() == 17);
  CHECK(c->current_hz(0) == 0);  // nothing set yet: the hardware decides
  CHECK(c->changes_speed());
}

TEST_CASE("Power.Uncore.MovesWriteMinAndMaxInAValidOrderAndClamp") {
  UncoreScene s;
  const auto c = s.control(0);
  const char* d = "package_00_die_01";
  WriteOrder order(s.fs.root() + "/" + test::uncore_rel(d));
  long min = s.khz(d, "min_freq_khz"), max = s.khz(d, "max_freq_khz");
  // Up past max, down past min, inside, and beyond both ends of the hardware's range.
  for (const double want : {2.4e9, 0.8e9, 1.7e9, 1.0e9, 3.5e9, 0.1e9, 1.85e9}) {
    INFO("set " << want);
    const UncoreSetResult r = c->set_hz(1, want);
    REQUIRE(r.outcome == UncoreSetOutcome::applied);
    const long target = std::lround(r.hz / 1e3);
    const std::vector<std::string> written = order.take();
    REQUIRE(written.size() == 2);
    // Replaying the writes in the order they happened, min <= max holds after each.
    for (const auto& f : written) {
      (f == "min_freq_khz" ? min : max) = target;
      CHECK(min <= max);
    }
    CHECK(s.khz(d, "min_freq_khz") == target);
    CHECK(s.khz(d, "max_freq_khz") == target);
    CHECK(c->current_hz(1) == r.hz);
  }
  CHECK(c->transitions(1) == 7);
  // Clamped (to the ladder, so to the hardware's range): 3.5 GHz -> 2.4, 0.1 GHz -> 0.8.
  CHECK(c->set_hz(1, 3.5e9).hz == 2.4e9);
  CHECK(c->set_hz(1, 0.1e9).hz == 0.8e9);
  CHECK(c->set_level(1, 99).hz == 0.8e9);
  // The other domains were not touched.
  CHECK(s.khz("package_00_die_00", "min_freq_khz") == 1200000);
  CHECK(s.khz("package_01_die_01", "max_freq_khz") == 2000000);
  CHECK(c->transitions(0) == 0);
}

TEST_CASE("Power.Uncore.DriverClampsToTheInitialRange") {
  UncoreScene s;
  UncoreFrequency driver(read_topology(s.fs.root()), s.state.path() + "/s");
  std::string why;
  CHECK(driver.set_domain(0, 5e9, why) == 2.4e9);
  CHECK(s.khz("package_00_die_00", "max_freq_khz") == 2400000);
  CHECK(driver.set_domain(0, 1e8, why) == 0.8e9);
  CHECK(s.khz("package_00_die_00", "min_freq_khz") == 800000);
  CHECK(driver.set_domain(7, 1e9, why) == 0);
  CHECK(why.find("no uncore domain 7") != std::string::npos);
  CHECK(driver.restore().ok());
}

TEST_CASE("Power.Uncore.RateLimitPerDomainOnAnInjectedClock") {
  UncoreScene s;
  const auto c = s.control(10 * kMs);
  const char* d0 = "package_00_die_00";
  s.clock.set(100 * kMs);
  CHECK(c->set_hz(0, 1.2e9).outcome == UncoreSetOutcome::applied);  // the first change is never held
  s.clock.advance(5 * kMs);
  const UncoreSetResult held = c->set_hz(0, 2.0e9);
  CHECK(held.outcome == UncoreSetOutcome::deferred);
  CHECK(held.due_ns == 110 * kMs);
  CHECK(c->next_due_ns() == 110 * kMs);
  CHECK(s.khz(d0, "max_freq_khz") == 1200000);  // not written
  // Another domain has a rate limit of its own.
  CHECK(c->set_hz(1, 1.5e9).outcome == UncoreSetOutcome::applied);
  s.clock.set(110 * kMs - 1);
  CHECK(c->apply_due() == 0);
  CHECK(s.khz(d0, "max_freq_khz") == 1200000);
  s.clock.set(110 * kMs);
  CHECK(c->apply_due() == 1);
  CHECK(s.khz(d0, "min_freq_khz") == 2000000);
  CHECK(s.khz(d0, "max_freq_khz") == 2000000);
  CHECK(c->transitions(0) == 2);
  // A request superseded by one for the current setting is dropped, never written.
  s.clock.advance(1 * kMs);
  CHECK(c->set_hz(0, 0.9e9).outcome == UncoreSetOutcome::deferred);
  CHECK(c->set_hz(0, 2.0e9).outcome == UncoreSetOutcome::unchanged);
  CHECK(c->next_due_ns() == UncoreControl::kNever);
  s.clock.advance(50 * kMs);
  CHECK(c->apply_due() == 0);
  CHECK(s.khz(d0, "min_freq_khz") == 2000000);
  CHECK(c->transitions(0) == 2);
  CHECK(c->transitions() == 3);
  // Once the interval has passed, a set is written at once.
  CHECK(c->set_hz(0, 0.9e9).outcome == UncoreSetOutcome::applied);
}

TEST_CASE("Power.Uncore.OriginalLimitsSavedBeforeTheFirstWriteAndRestoredAfterManyMoves") {
  UncoreScene s;
  const auto before = test::uncore_snapshot(s.fs);
  const auto c = s.control(0);
  CHECK(list_state_files(s.state.path() + "/s").empty());  // nothing saved before a change is asked for
  REQUIRE(c->set_all_hz(2.4e9).outcome == UncoreSetOutcome::applied);
  const std::string state_file = c->state_file();
  std::string why;
  for (const double hz : {0.8e9, 1.7e9, 2.2e9, 1.0e9}) {
    REQUIRE(c->set_all_hz(hz).outcome == UncoreSetOutcome::applied);
    c->set_level(3, 4);
  }
  // The state file still holds the limits of before the first write.
  const auto saved = read_state_file(state_file, why);
  REQUIRE(saved);
  REQUIRE(saved->policies.size() == 4);
  CHECK(saved->policies[0].content == std::vector<std::string>{"1200000\n", "2000000\n"});
  CHECK(test::uncore_snapshot(s.fs) != before);
  const RestoreOutcome out = c->restore();
  CHECK(out.ok());
  CHECK(out.restored.size() == 4);
  CHECK(test::uncore_snapshot(s.fs) == before);  // byte for byte: 1.2-2.0 GHz, not 2.4 nor the last 1.0 GHz
  CHECK_FALSE(std::filesystem::exists(state_file));
  // Given back: no write lands afterwards.
  const UncoreSetResult late = c->set_hz(0, 1.5e9);
  CHECK(late.outcome == UncoreSetOutcome::failed);
  CHECK(late.why.find("given back") != std::string::npos);
  CHECK(test::uncore_snapshot(s.fs) == before);
  CHECK(c->restore().restored.empty());  // idempotent
}

TEST_CASE("Power.Uncore.DestructorRestores") {
  UncoreScene s;
  const auto before = test::uncore_snapshot(s.fs);
  {
    const auto c = s.control(0);
    c->set_all_hz(0.8e9);
    c->set_hz(2, 2.4e9);
    CHECK(test::uncore_snapshot(s.fs) != before);
  }
  CHECK(test::uncore_snapshot(s.fs) == before);
  CHECK(std::filesystem::is_empty(s.state.path() + "/s"));
}

TEST_CASE("Power.Uncore.TpmiDomainsMoveAndRestore") {
  test::FakeSysfs fs;
  test::TempDir state;
  test::add_uncore_domain(fs, {"uncore00", 800000, 2200000, 800000, 2200000, 0});
  test::add_uncore_domain(fs, {"uncore01", 1000000, 2500000, 1000000, 2500000, 1});
  const auto before = test::uncore_snapshot(fs);
  ManualClock clock;
  SysfsUncoreControl c(read_topology(fs.root()), state.path(), &clock, 0);
  REQUIRE(c.domains() == 2);
  CHECK(c.domain(1).package == 1);
  CHECK(c.ladder(1).fastest_hz() == 2.5e9);
  const UncoreSetResult r = c.set_all_hz(0.9e9);
  CHECK(r.outcome == UncoreSetOutcome::applied);
  CHECK(test::uncore_khz(fs, "uncore00", "max_freq_khz") == 900000);
  CHECK(test::uncore_khz(fs, "uncore01", "max_freq_khz") == 1000000);  // its own range's floor
  CHECK(c.current_hz(1) == 1.0e9);
  CHECK(c.restore().ok());
  CHECK(test::uncore_snapshot(fs) == before);
}

TEST_CASE("Power.Uncore.HalfDoneWriteIsUndone") {
  UncoreScene s;
  const auto c = s.control(0);
  std::string why;
  REQUIRE(c->save(why));
  // max_freq_khz cannot be written (a directory in its place; even root cannot).
  const std::string max = s.fs.root() + "/" + test::uncore_rel("package_00_die_00", "max_freq_khz");
  std::filesystem::remove(max);
  std::filesystem::create_directory(max);
  const UncoreSetResult r = c->set_hz(0, 0.9e9);
  CHECK(r.outcome == UncoreSetOutcome::failed);
  CHECK(r.why.find("max_freq_khz") != std::string::npos);
  CHECK(s.khz("package_00_die_00", "min_freq_khz") == 1200000);  // min was written, then put back
  CHECK(c->transitions(0) == 0);
  CHECK(c->current_hz(0) == 0);
  CHECK(c->failed_writes() == 1);
  REQUIRE(c->failures().size() == 1);
  CHECK(c->failures()[0].find("package_00_die_00") != std::string::npos);
  // The others still move.
  CHECK(c->set_hz(1, 0.9e9).outcome == UncoreSetOutcome::applied);
  std::filesystem::remove(max);
  s.fs.write(test::uncore_rel("package_00_die_00", "max_freq_khz"), "2000000\n");
}

TEST_CASE("Power.Uncore.ModeledControlRecordsTheLevelAndCountsTransitions") {
  MachineProfile p;
  p.uncore_power = {{3.0e9, 40}, {1.2e9, 20}};
  ManualClock clock;
  ModeledUncoreControl m(UncoreLadder::from_profile(p), 2, 0, &clock, 10 * kMs);
  CHECK_FALSE(m.changes_speed());
  CHECK(m.name() == "modeled");
  CHECK(m.current_hz(0) == 3.0e9);  // starts at the fastest
  CHECK(m.set_hz(0, 3.0e9).outcome == UncoreSetOutcome::unchanged);
  CHECK(m.transitions() == 0);
  CHECK(m.set_hz(0, 2.1e9).outcome == UncoreSetOutcome::applied);
  CHECK(m.current_hz(0) == 2.1e9);
  CHECK(m.current_hz(1) == 3.0e9);
  clock.advance(1 * kMs);
  CHECK(m.set_level(0, 99).outcome == UncoreSetOutcome::deferred);  // the same rate limit as the real one
  clock.advance(9 * kMs);
  CHECK(m.apply_due() == 1);
  CHECK(m.current_hz(0) == 1.2e9);
  CHECK(m.transitions(0) == 2);
  m.restore();
  CHECK(m.current_hz(0) == 3.0e9);
  CHECK(m.set_hz(1, 1.2e9).outcome == UncoreSetOutcome::failed);
  ModeledUncoreControl none{UncoreLadder{}};
  CHECK(none.set_hz(0, 1e9).outcome == UncoreSetOutcome::failed);  // no ladder: nothing to choose
  CHECK(none.set_all_hz(1e9).outcome == UncoreSetOutcome::failed);
}

TEST_CASE("Power.Uncore.ProfileTransitionLatencyNeedsASourceAndHasADefault") {
  const std::string base = R"({"name":"t","cores":1,"cores_per_domain":1,"frequencies_hz":[1e9],
    "core_power":[{"hz":1e9,"busy_w":1,"idle_w":0.5}],"uncore_w":1,"beta":1,"transition_latency_s":0LATENCY,
    "sources":{"cores":"a","cores_per_domain":"a","frequencies_hz":"a","core_power.busy_w":"a",
               "core_power.idle_w":"a","uncore_w":"a","beta":"a","transition_latency_s":"a"SOURCE}})";
  auto make = [&](const std::string& latency, const std::string& source) {
    std::string text = base;
    text.replace(text.find("LATENCY"), 7, latency);
    text.replace(text.find("SOURCE"), 6, source);
    return text;
  };
  std::string error;
  const auto absent = parse_profile(make("", ""), "t.json", error);
  REQUIRE(absent);
  CHECK_FALSE(absent->uncore_transition_latency_s);
  CHECK(uncore_transition_latency_s(*absent) == kDefaultUncoreTransitionLatencyS);
  CHECK(uncore_transition_latency_source(*absent).find("[SKL]") != std::string::npos);
  CHECK(uncore_min_interval_ns(&*absent) == 10 * kMs);
  CHECK(uncore_min_interval_ns(nullptr) == 10 * kMs);

  const auto given = parse_profile(
      make(R"(,"uncore_transition_latency_s":0.002)", R"(,"uncore_transition_latency_s":"measured here")"), "t.json",
      error);
  REQUIRE(given);
  CHECK(uncore_transition_latency_s(*given) == 0.002);
  CHECK(uncore_transition_latency_source(*given) == "measured here");
  CHECK(uncore_min_interval_ns(&*given) == 2 * kMs);

  CHECK_FALSE(parse_profile(make(R"(,"uncore_transition_latency_s":0.002)", ""), "t.json", error));
  CHECK(error.find("uncore_transition_latency_s") != std::string::npos);  // a number without its source
  CHECK_FALSE(parse_profile(make(R"(,"uncore_transition_latency_s":5)", R"(,"uncore_transition_latency_s":"x")"),
                            "t.json", error));
  CHECK(error.find("out of range") != std::string::npos);
}
