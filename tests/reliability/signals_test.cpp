// A program killed mid-run: rubato on the sysfs back-end
// of a fake tree, hermes changing frequencies all the time. Catchable signals
// restore the tree at once and then act as they would have (the program dies
// of the same signal); after SIGKILL `rubato restore` puts it back.
#include <signal.h>

#include "fault_scene.hpp"

using namespace rubato;

namespace {
// The test and the ticker are built alike: under ASan or TSan the runtime's
// own SIGSEGV handler comes after rubato's and ends the process with a report
// and exit status 1 instead of the signal.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitizerReportsSegv = true;
#else
constexpr bool kSanitizerReportsSegv = false;
#endif
#else
constexpr bool kSanitizerReportsSegv = false;
#endif
}  // namespace

TEST_CASE("Reliability.Signals.CatchableSignalsRestoreAtOnce") {
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
    test::TickerOnFakeTree scene;
    auto& p = scene.start();
    CHECK_FALSE(scene.restored());
    p.signal(sig);
    const auto r = p.wait(30);
    INFO("signal " << sig << ": " << r.status() << "\n" << r.err);
    CHECK(r.signal == sig);
    CHECK(scene.restored());
    CHECK_FALSE(scene.state_left());
  }
}

TEST_CASE("Reliability.Signals.CrashingProgramRestoresAtOnce") {
  // The program itself dies: a null-pointer write (SIGSEGV) or abort() (SIGABRT).
  for (const std::string end : {"segv", "abort"}) {
    test::TickerOnFakeTree scene;
    scene.start({.end = end});
    const auto r = scene.stop(30);
    INFO(end << ": " << r.status() << "\n" << r.err);
    if (end == "segv" && kSanitizerReportsSegv)
      CHECK((r.exited && r.exit_code != 0));  // the sanitizer's handler (chained after ours) reports and exits
    else CHECK(r.signal == (end == "segv" ? SIGSEGV : SIGABRT));
    CHECK(r.out == "fib(20) = 6765\n");
    CHECK(scene.restored());
    CHECK_FALSE(scene.state_left());
  }
}

TEST_CASE("Reliability.Signals.SigkillThenRubatoRestore") {
  test::TickerOnFakeTree scene;
  auto& p = scene.start();
  p.signal(SIGKILL);
  const auto r = p.wait(30);
  CHECK(r.signal == SIGKILL);
  CHECK_FALSE(scene.restored());  // nobody could act: the tree is as the program left it
  CHECK(scene.state_left());
  const auto restore = scene.rubato_restore();
  INFO(restore.out << restore.err);
  CHECK(restore.ok());
  CHECK(restore.out.find("restored") != std::string::npos);
  CHECK(scene.restored());
  CHECK_FALSE(scene.state_left());
  // A second run finds nothing to do.
  const auto again = scene.rubato_restore();
  CHECK(again.ok());
  CHECK(again.out.find("nothing to restore") != std::string::npos);
}

TEST_CASE("Reliability.Signals.RepeatedSignalsUnderLoad") {
  // Signals at random moments of a busy run (hermes, no dwell, 4 domains):
  // the handler must never leave a frequency written after its restore.
  int restored = 0;
  const int rounds = 12;
  for (int i = 0; i < rounds; ++i) {
    test::TickerOnFakeTree scene(4);
    auto& p = scene.start({.env = {{"OMP_NUM_THREADS", "4"}}, .n = 18});
    std::this_thread::sleep_for(std::chrono::milliseconds(3 * i));
    p.signal(i % 2 ? SIGTERM : SIGINT);
    const auto r = p.wait(30);
    INFO("round " << i << ": " << r.status() << "\n" << r.err);
    CHECK(r.signal == (i % 2 ? SIGTERM : SIGINT));
    restored += scene.restored();
  }
  CHECK(restored == rounds);
}
