// A fake machine (programs/fake_machine.cpp) for the tests that run rubato on
// it through the user's commands (calibrate_test.cpp, fake_node_test.cpp):
// the program kept alive under a work directory on tmpfs, told which process
// to follow (its power and /proc/stat are that process's CPU time alone, so
// other work on this machine never enters a verdict), and snapshots of its
// cpufreq and uncore files to check that everything was put back.
#pragma once

#include <catch2/catch.hpp>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "fake_sysfs.hpp"
#include "reliability_paths.hpp"

namespace rubato::test {

// Where a fake machine's tree goes: tmpfs. On a disk-backed /tmp the fake
// machine's writes are throttled while other processes write much (a parallel
// build): its energy files then stood still for up to 120 ms, a point's last
// window read 8 W instead of 20 W, and the fit was 23 % off the law
// (reproduced with a dd writer beside; on /dev/shm 1.5-1.8 %). Real RAPL
// counters never stall that way.
inline std::string memory_backed_base() {
  std::error_code ec;
  return std::filesystem::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

class FakeMachine {
 public:
  // `args`: fake_machine's options after ROOT (its law, its uncore, ...);
  // --follow-pid-file is added.
  FakeMachine(const std::string& work, std::vector<std::string> args)
      : root_(work + "/root"), pid_file_(work + "/followed.pid"), program_(argv(std::move(args)), {}, work + "/fake") {
    REQUIRE(wait_until([&] { return path_exists(root_ + "/fake-machine.ready"); }, 20));
  }
  ~FakeMachine() {
    program_.signal(SIGTERM);
    program_.wait(10);
  }
  FakeMachine(const FakeMachine&) = delete;
  FakeMachine& operator=(const FakeMachine&) = delete;
  const std::string& root() const { return root_; }
  // From now on the fake machine's busy time is `p`'s threads' CPU time (and,
  // with --follow-descendants, its children's).
  void follow(const RunningProgram& p) const {
    { std::ofstream(pid_file_ + ".new") << p.pid() << "\n"; }
    std::filesystem::rename(pid_file_ + ".new", pid_file_);
  }

 private:
  std::vector<std::string> argv(std::vector<std::string> args) const {
    // Only the program under test is busy: this machine is shared (other
    // tests, other stages, other rubato processes), and their load must not
    // enter the fake power or the fake /proc/stat.
    std::vector<std::string> out = {RUBATO_FAKE_MACHINE, root_, "--follow-pid-file", pid_file_};
    out.insert(out.end(), args.begin(), args.end());
    return out;
  }

  std::string root_, pid_file_;
  RunningProgram program_;
};

inline EnvList env_for(const std::string& root, const std::string& state) {
  return {{"RUBATO_SYSFS_ROOT", root}, {"RUBATO_STATE_DIR", state}};
}

// Runs `argv` on `machine`, which follows it from its start.
inline ProgramResult run_on(const FakeMachine& machine, const std::vector<std::string>& argv, const std::string& state,
                            const std::string& work, double timeout_s = 240, EnvList extra_env = {}) {
  EnvList env = env_for(machine.root(), state);
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  RunningProgram p(argv, env, work);
  machine.follow(p);
  return p.wait(timeout_s);
}

// Every cpufreq file with its bytes (the fake machine's in-flight "*.new" left out).
inline std::map<std::string, std::string> cpufreq_snapshot(const std::string& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root + "/devices/system/cpu/cpufreq"))
    if (e.is_regular_file() && e.path().extension() != ".new") out[e.path().string()] = read_file(e.path().string());
  return out;
}

// Every file of the fake uncore domain with its value (sysfs takes "N" and "N\n" alike).
inline std::map<std::string, long long> uncore_snapshot(const std::string& root) {
  std::map<std::string, long long> out;
  for (const auto& e :
       std::filesystem::directory_iterator(root + "/devices/system/cpu/intel_uncore_frequency/package_00_die_00"))
    if (e.is_regular_file() && e.path().extension() != ".new")
      out[e.path().string()] = std::atoll(read_file(e.path().string()).c_str());
  return out;
}

inline bool no_state_files(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    (void)e;
    return false;
  }
  return true;
}

}  // namespace rubato::test
