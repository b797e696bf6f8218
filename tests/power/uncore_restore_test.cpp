// The uncore's original limits come back however the process that moved
// them ends: killed with SIGKILL (then `rubato restore`'s library call),
// SIGTERM, a SIGSEGV of its own, or a normal exit. The child
// (uncore_child.cpp) moves every domain of a fake tree several times first.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdlib>
#include <memory>

#include "child_process.hpp"
#include "uncore_fake_tree.hpp"
#include "rubato/power/state/restore_saved_state.hpp"
#include "rubato/power/state/state_file.hpp"

using namespace rubato;

namespace {

// Two packages of two dies at 1.2-2.0 GHz, a state directory, the tree's
// bytes before, and a child that moves every domain to 2.4, 0.8, 1.7 and
// 0.9 GHz (ending at 0.9) and then does what `mode` says.
struct MovedByAChild {
  test::FakeSysfs fs;
  test::TempDir state;
  test::TempDir output;
  std::map<std::string, std::string> before;

  MovedByAChild() {
    test::add_two_packages_two_dies(fs);
    before = test::uncore_snapshot(fs);
  }
  std::unique_ptr<test::RunningProgram> start(const std::string& mode) {
    test::SpawnOptions o;
    o.work = output.path();
    // Sanitizer builds: the sanitizer's own SIGSEGV handler would end the
    // child with an exit code after rubato's restore; the test checks that the
    // signal's default action still follows, so the sanitizer leaves SIGSEGV alone.
    for (const char* name : {"ASAN_OPTIONS", "TSAN_OPTIONS"}) {
      const char* inherited = std::getenv(name);
      o.env.emplace_back(name, std::string(inherited ? inherited : "") + " handle_segv=0");
    }
    auto child =
        std::make_unique<test::RunningProgram>(std::vector<std::string>{RUBATO_UNCORE_CHILD, fs.root(), state.path(),
                                                                        mode, "2400000", "800000", "1700000", "900000"},
                                               o);
    const std::string line = child->first_line();
    INFO(test::read_file(output.path() + "/stderr.txt"));
    REQUIRE(line == "ready 900000");
    return child;
  }
  bool restored() const { return test::uncore_snapshot(fs) == before; }
};

}  // namespace

TEST_CASE("Power.Uncore.SigkillThenRubatoRestoreBringsBackTheOriginalLimits") {
  MovedByAChild t;
  const int status = t.start("wait")->signal_and_wait(SIGKILL);
  CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
  CHECK(test::uncore_khz(t.fs, "package_01_die_01", "max_freq_khz") == 900000);  // left as the child set it
  const auto results = restore_saved_states(std::nullopt, t.state.path(), t.fs.root());
  REQUIRE(results.size() == 1);
  CHECK(results[0].file.find("uncore-") != std::string::npos);
  CHECK_FALSE(results[0].skipped);
  CHECK(results[0].outcome.ok());
  CHECK(results[0].outcome.restored.size() == 4);
  CHECK(t.restored());
  CHECK(list_state_files(t.state.path()).empty());
}

TEST_CASE("Power.Uncore.SigtermRestores") {
  MovedByAChild t;
  const int status = t.start("wait")->signal_and_wait(SIGTERM);
  CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM));  // the default action still follows
  CHECK(t.restored());
  CHECK(list_state_files(t.state.path()).empty());
}

TEST_CASE("Power.Uncore.SigsegvRestores") {
  MovedByAChild t;
  auto child = t.start("crash");
  const auto r = child->wait(30);
  CHECK(r.signal == SIGSEGV);
  CHECK(t.restored());
  CHECK(list_state_files(t.state.path()).empty());
}

TEST_CASE("Power.Uncore.NormalExitRestores") {
  MovedByAChild t;
  auto child = t.start("exit");
  const auto r = child->wait(30);
  CHECK(r.ok());
  CHECK(t.restored());
  CHECK(list_state_files(t.state.path()).empty());
}
