// The periodic controllers' host (power/controller_host.hpp): a policy that
// needs a metric this machine does not count says so in one line and the run
// falls back to the tempo policy alone; with a replayed recording efs really
// acts through the front-end's actuator and lets everything go at the end.
#include <catch2/catch.hpp>

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "rubato/power/session/controller_host.hpp"

using namespace rubato;

namespace {

MachineProfile profile(const std::string& name) {
  std::string error;
  auto p = load_profile(name, std::vector<std::string>{RUBATO_TEST_PROFILES_DIR}, error);
  INFO(error);
  REQUIRE(p);
  return *p;
}

PolicySpec policy(const std::string& text) {
  std::string error;
  auto p = parse_policy(text, error);
  INFO(error);
  REQUIRE(p);
  return *p;
}

// Records what the controller asks for.
class RecordingActuator final : public ThrottleActuator {
 public:
  std::string_view name() const noexcept override { return "recording"; }
  bool per_target() const noexcept override { return true; }
  void apply(std::span<const std::uint8_t> parked, double max_wait_s) noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    applied.emplace_back(parked.begin(), parked.end());
    wait_bound_s = max_wait_s;
  }
  void release_all() noexcept override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++releases;
  }
  std::optional<double> waited_s(std::uint64_t) const noexcept override { return std::nullopt; }
  std::optional<std::uint64_t> waits(std::uint64_t) const noexcept override { return std::nullopt; }
  int release_count() {
    std::lock_guard<std::mutex> lock(mutex_);
    return releases;
  }

  std::vector<std::vector<std::uint8_t>> applied;
  double wait_bound_s = 0;
  int releases = 0;

 private:
  std::mutex mutex_;
};

ControllerSetup setup(const std::string& policy_text, const std::string& counters, ThrottleActuator* throttle) {
  ControllerSetup s;
  s.policy = policy(policy_text);
  s.counters = counters;
  s.interval_s = 0.01;
  s.profile = profile("i5-2500");
  s.cpus = {0, 1};
  s.throttle = throttle;
  return s;
}

// Light (U = 0.1), memory bound (U = 0.98), light, for workers 0 and 1 ([EFS]
// Eq. 9: solo b = 0.05, then 0.93: the admission threshold beside 0.93 is 0.42).
std::string memory_phase_recording() {
  std::string text = "rubato-counters 1\ninterval,scope,elapsed_s,mem_accesses,mem_writes,mem_reads\n";
  const auto interval = [&](int i, double per_worker) {
    const std::string n = std::to_string(i), v = std::to_string(per_worker);
    text += n + ",chip,0.01," + std::to_string(2 * per_worker) + ",0,\n" + n + ",0,,,," + v + "\n" + n + ",1,,,," + v +
            "\n";
  };
  int i = 0;
  for (int k = 0; k < 3; ++k) interval(i++, 75000);
  for (int k = 0; k < 6; ++k) interval(i++, 735000);
  for (int k = 0; k < 3; ++k) interval(i++, 75000);
  const auto path = std::filesystem::temp_directory_path() / ("rubato_host_phase." + std::to_string(getpid()));
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("Power.Controllers.MissingMetricSaysSoOnceAndFallsBack", "[power][controllers]") {
  RecordingActuator actuator;
  SECTION("efs alone: baseline") {
    std::vector<std::string> warnings;
    auto host = ControllerHost::start(setup("efs", "proc", &actuator), warnings);
    CHECK_FALSE(host);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].rfind("efs is off (", 0) == 0);
    CHECK(warnings[0].find("mem_accesses") != std::string::npos);
    CHECK(warnings[0].find("mem_reads") != std::string::npos);
    CHECK(warnings[0].find("; the run is baseline") != std::string::npos);
  }
  SECTION("hermes+efs: hermes alone") {
    std::vector<std::string> warnings;
    auto host = ControllerHost::start(setup("hermes+efs", "none", &actuator), warnings);
    CHECK_FALSE(host);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("RUBATO_COUNTERS=none") != std::string::npos);
    CHECK(warnings[0].find("; the run is hermes alone") != std::string::npos);
  }
  SECTION("efs without an actuator") {
    std::vector<std::string> warnings;
    const std::string rec = memory_phase_recording();
    auto host = ControllerHost::start(setup("efs", "replay:" + rec, nullptr), warnings);
    CHECK_FALSE(host);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("no way to hold a worker back") != std::string::npos);
    std::filesystem::remove(rec);
  }
  SECTION("efs with a profile that has no bus bandwidth") {
    std::vector<std::string> warnings;
    const std::string rec = memory_phase_recording();
    ControllerSetup s = setup("efs", "replay:" + rec, &actuator);
    s.profile->memory_accesses_per_s = 0;
    CHECK_FALSE(ControllerHost::start(s, warnings));
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("memory_accesses_per_s") != std::string::npos);
    std::filesystem::remove(rec);
  }
  SECTION("affinity without a profile") {
    std::vector<std::string> warnings;
    ControllerSetup s = setup("affinity", "proc", nullptr);
    s.profile.reset();
    CHECK_FALSE(ControllerHost::start(s, warnings));
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].rfind("affinity is off (no machine profile", 0) == 0);
  }
  CHECK(actuator.applied.empty());
}

TEST_CASE("Power.Controllers.AffinityRunsUtilisationOnlyOnProcTimes", "[power][controllers]") {
  std::vector<std::string> warnings;
  auto host = ControllerHost::start(setup("affinity", "proc", nullptr), warnings);
  REQUIRE(host);
  CHECK(warnings.empty());
  host->target_started(0, getpid(), static_cast<int>(syscall(SYS_gettid)));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  host->stop();
  Report r;
  host->fill_report(r);
  CHECK(r.parameters["affinity_mode"] == "utilisation_only");
  CHECK(r.parameters["counters"] == "proc");
  bool said = false;
  for (const auto& n : r.notes) said |= n.rfind("affinity: utilisation-only mode", 0) == 0;
  CHECK(said);
}

TEST_CASE("Power.Controllers.EfsReplayParksAndReleases", "[power][controllers]") {
  RecordingActuator actuator;
  const std::string rec = memory_phase_recording();
  std::vector<std::string> warnings;
  auto host = ControllerHost::start(setup("efs", "replay:" + rec, &actuator), warnings);
  REQUIRE(host);
  CHECK(warnings.empty());
  const int tid = static_cast<int>(syscall(SYS_gettid));
  host->target_started(0, getpid(), tid);
  host->target_started(1, getpid(), tid);
  // The recording ends after 12 intervals: the controller then lets everything go.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (actuator.release_count() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(actuator.release_count() == 1);
  host->stop();
  Report r;
  r.workers.resize(2);
  r.workers[1].id = 1;
  host->fill_report(r);

  REQUIRE_FALSE(actuator.applied.empty());
  REQUIRE(actuator.applied.front().size() == 2);
  CHECK(actuator.applied.front()[0] == 0);
  CHECK(actuator.applied.front()[1] == 1);  // the memory-bound phase holds worker 1 back
  CHECK(actuator.wait_bound_s > 0);
  REQUIRE(r.throttle_events.size() >= 2);
  CHECK(r.throttle_events.front().worker == 1);
  CHECK(r.throttle_events.front().parked);
  CHECK(r.throttle_events.front().reason.find("admission threshold") != std::string::npos);
  // Every park has its unpark: nothing is left held.
  int held = 0;
  for (const ThrottleEvent& e : r.throttle_events) held += e.parked ? 1 : -1;
  CHECK(held == 0);
  CHECK(r.workers[1].throttled_s > 0);
  CHECK(r.parameters["counters"] == "replay");
  CHECK(r.parameters["control_intervals"] == "12");
  std::filesystem::remove(rec);
}
