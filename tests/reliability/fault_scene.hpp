// A real OpenMP program (programs/ticker.cpp) under librubato_ompt.so with the
// sysfs back-end on a fake cpufreq tree: the scene of the fault tests. The
// test starts it, waits until rubato has taken the tree over and the program
// is computing, does something to it, and checks what is left.
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "fake_sysfs.hpp"
#include "reliability_paths.hpp"
#include "child_process.hpp"

namespace rubato::test {

// How the scene starts the ticker.
struct TickerStart {
  EnvList env;        // added to env()
  std::string end;    // "", "segv" or "abort": how the ticker ends
  int n = 20;         // fib(n) per round
  double max_s = 60;  // the ticker stops by itself after that
  std::string policy = "hermes";
  std::string backend = "sysfs";
  std::vector<std::string> wrapper;  // runs the ticker (setpriv ..., unshare ...)
};

class TickerOnFakeTree {
 public:
  explicit TickerOnFakeTree(int cpus = 2) {
    tree.add_cpus(cpus, 1, {2400000, 2200000, 1900000, 1600000, 1400000});
    before = tree.snapshot();
    state_dir = tmp.path() + "/state";
    std::filesystem::create_directory(state_dir);
    std::filesystem::permissions(state_dir, std::filesystem::perms::owner_all);
    stop_file = tmp.path() + "/stop";
    report = tmp.path() + "/report.json";
  }

  EnvList env(const std::string& policy = "hermes", const std::string& backend = "sysfs") const {
    return {{"OMP_TOOL_LIBRARIES", kOmptTool},  {"OMP_NUM_THREADS", "2"},
            {"RUBATO_BACKEND", backend},        {"RUBATO_POLICY", policy},
            {"RUBATO_SYSFS_ROOT", tree.root()}, {"RUBATO_STATE_DIR", state_dir},
            {"RUBATO_REPORT", report},          {"RUBATO_PROFILE_DIR", kProfilesDir},
            {"RUBATO_MIN_DWELL", "0"}};
  }

  // Starts the ticker and returns once a round is done (and, on sysfs, rubato controls policy0).
  RunningProgram& start(const TickerStart& how = {}) {
    EnvList e = env(how.policy, how.backend);
    e.insert(e.end(), how.env.begin(), how.env.end());
    std::vector<std::string> argv = how.wrapper;
    argv.insert(argv.end(), {kTicker, std::to_string(how.n), stop_file, std::to_string(how.max_s)});
    if (!how.end.empty()) argv.push_back(how.end);
    program = std::make_unique<RunningProgram>(argv, e, tmp.path() + "/run");
    const bool sysfs = how.backend == "sysfs";
    const bool running = wait_until([&] {
      return path_exists(stop_file + ".started") &&
             (!sysfs || (tree.read(governor(0)) == "userspace" && tree.read(setspeed(0)) != "<unsupported>\n"));
    });
    if (!running) FAIL("the ticker did not start under rubato; stderr:\n" << program->err_so_far());
    return *program;
  }
  // Lets the ticker finish its round and end.
  ProgramResult stop(double timeout_s = 60) {
    std::ofstream(stop_file) << "stop\n";
    return program->wait(timeout_s);
  }

  bool restored() const { return tree.snapshot() == before; }
  bool state_left() const { return !std::filesystem::is_empty(state_dir); }
  std::string governor(int policy) const {
    return "devices/system/cpu/cpufreq/policy" + std::to_string(policy) + "/scaling_governor";
  }
  std::string setspeed(int policy) const {
    return "devices/system/cpu/cpufreq/policy" + std::to_string(policy) + "/scaling_setspeed";
  }
  // `rubato restore` as a user would run it after a crash.
  ProgramResult rubato_restore() const {
    return run_program({kRubatoCli, "restore"}, {{"RUBATO_SYSFS_ROOT", tree.root()}, {"RUBATO_STATE_DIR", state_dir}},
                       tmp.path() + "/restore");
  }

  FakeSysfs tree{"/dev/shm"};
  TempDir tmp;
  std::map<std::string, std::string> before;
  std::string state_dir, stop_file, report;
  std::unique_ptr<RunningProgram> program;
};

}  // namespace rubato::test
