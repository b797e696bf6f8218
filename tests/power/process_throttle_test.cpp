// The --mix actuator (power/process_throttle.hpp): a program held back is
// really stopped, continued when released, and never stopped longer than the
// bound it was given.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "child_process.hpp"
#include "rubato/power/os/process_throttle.hpp"

using namespace rubato;

namespace {

// A `sleep` in its own process group, killed and reaped at the end.
struct SleepingProgram {
  test::RunningProgram program{{test::tool_on_path("sleep"), "30"},
                               test::SpawnOptions{.base = test::BaseEnv::inherited, .own_process_group = true}};
  const pid_t pid = program.pid();

  // The state letter of /proc/<pid>/stat: 'T' stopped, 'S' sleeping.
  char state() const {
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const auto paren = text.rfind(')');
    return paren == std::string::npos || paren + 2 >= text.size() ? '?' : text[paren + 2];
  }
  // Waits (at most 20 s: a stopped or continued process shows its new state
  // once it ran, later on a loaded machine) for the state to become `want`.
  bool becomes(char want) const {
    return test::wait_until([&] { return state() == want; }, 20);
  }
};

}  // namespace

TEST_CASE("Power.ProcessThrottle.StopsAndContinuesAProgram", "[power][mix]") {
  SleepingProgram p;
  REQUIRE(p.pid > 0);
  REQUIRE(p.becomes('S'));
  SteadyClock clock;
  ProcessThrottle t(clock);
  CHECK(t.name() == "sigstop");
  t.add_program(0, p.pid);
  const std::uint8_t stop[] = {1};
  t.apply(stop, 10.0);
  CHECK(p.becomes('T'));
  CHECK(*t.waits(0) == 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const std::uint8_t run[] = {0};
  t.apply(run, 10.0);
  CHECK(p.becomes('S'));
  CHECK(*t.waited_s(0) >= 0.04);
  // Released: later requests are ignored.
  t.apply(stop, 10.0);
  t.release_all();
  t.apply(stop, 10.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  CHECK(p.state() == 'S');
  CHECK_FALSE(t.waits(1));
}

TEST_CASE("Power.ProcessThrottle.BoundContinuesAForgottenStop", "[power][mix]") {
  // The controller stops deciding: the watchdog continues the program once its
  // bound has passed, and does not stop it again for the same request.
  SleepingProgram p;
  REQUIRE(p.becomes('S'));
  SteadyClock clock;
  ProcessThrottle t(clock);
  t.add_program(0, p.pid);
  const std::uint8_t stop[] = {1};
  t.apply(stop, 0.2);
  CHECK(p.becomes('T'));
  CHECK(p.becomes('S'));
  const double waited = *t.waited_s(0);
  CHECK(waited >= 0.2);
  CHECK(waited < 1.5);
  t.apply(stop, 0.2);  // the same decision again: waited out already
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(p.state() == 'S');
  CHECK(*t.waits(0) == 1);
}

TEST_CASE("Power.ProcessThrottle.DestructorContinuesEverything", "[power][mix]") {
  SleepingProgram p;
  REQUIRE(p.becomes('S'));
  {
    SteadyClock clock;
    ProcessThrottle t(clock);
    t.add_program(0, p.pid);
    const std::uint8_t stop[] = {1};
    t.apply(stop, 10.0);
    REQUIRE(p.becomes('T'));
  }
  CHECK(p.becomes('S'));
}
