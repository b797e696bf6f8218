// End-to-end cases that need a fake cpufreq tree alive while the program runs
// (tests/power/fake_sysfs.hpp):
//
//   ompt_sysfs_case policy   <tool.so> <fib> <ompt_check> <workdir>
//     hermes on the sysfs back-end: while fib runs, the policies' scaling_setspeed
//     files are watched; the slow tempo must be written there (in one of at most
//     five runs), only ladder frequencies may appear, the report must count
//     applied transitions, the steals must match the program's own record, and
//     the tree must be restored (in every run).
//   ompt_sysfs_case refused <tool.so> <fib> <ompt_check> <workdir>
//     the sysfs back-end looks usable but cannot save machine state (a control
//     file is a symlink, which it refuses to read): the session says so and
//     records decisions only (dry-run, never the emulator unasked); the tree is
//     left alone and the program's output is unchanged.
#include <algorithm>  // before fake_sysfs.hpp, which uses std::max_element without it
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../power/fake_sysfs.hpp"
#include "../support/child_process.hpp"
#include "rubato/core/io/report.hpp"

namespace {

int failures = 0;
void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what.c_str());
    ++failures;
  }
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Runs `argv` with the current environment plus `extra` ("NAME=value"); stdout
// and stderr to files. The exit code, 128 + the signal when one ended it.
int run(const std::vector<std::string>& argv, const std::vector<std::string>& extra, const std::string& out,
        const std::string& err) {
  rubato::test::SpawnOptions o;
  for (const auto& x : extra) o.env.emplace_back(x.substr(0, x.find('=')), x.substr(x.find('=') + 1));
  o.base = rubato::test::BaseEnv::inherited;
  o.out_path = out;
  o.err_path = err;
  const rubato::test::ProgramResult r = rubato::test::run_program(argv, o, 600);
  return r.exited ? r.exit_code : 128 + r.signal;
}

const std::vector<long> kKhz = {2400000, 1800000, 1400000};

// What one run under hermes on the sysfs back-end showed.
struct PolicyRun {
  std::set<std::string> speeds, governors;  // the values seen in the files while it ran
  std::uint64_t applied = 0;                // applied transitions in its report
};

// One run of fib under hermes on a fresh fake tree, its files watched; every
// check that must hold of each run is made here.
PolicyRun policy_run(const std::string& tool, const std::string& fib, const std::string& check,
                     const std::string& work) {
  std::filesystem::create_directories(work);
  rubato::test::FakeSysfs sysfs;
  sysfs.add_cpus(2, 1, kKhz, "ondemand");
  const std::vector<std::string> policies = {"devices/system/cpu/cpufreq/policy0/",
                                             "devices/system/cpu/cpufreq/policy1/"};
  // Watch what the back-end writes while the program runs.
  std::atomic<bool> done{false};
  PolicyRun seen;
  // A read of a fake file caught in a truncate-and-write can be empty, or, on
  // ext4, mix the new value with the old one's tail ('1400000orted>' while
  // '<unsupported>' is put back): real sysfs attributes are never torn. A value
  // counts once two reads in a row agree.
  auto settled = [&sysfs](const std::string& rel) {
    std::string a = trimmed(sysfs.read(rel));
    for (int i = 0; i < 100; ++i) {
      std::string b = trimmed(sysfs.read(rel));
      if (a == b) break;
      a = std::move(b);
    }
    return a;
  };
  std::thread watcher([&] {
    while (!done.load()) {
      for (const auto& p : policies) {
        if (auto v = settled(p + "scaling_setspeed"); !v.empty()) seen.speeds.insert(v);
        if (auto v = settled(p + "scaling_governor"); !v.empty()) seen.governors.insert(v);
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  });
  const std::string report = work + "/report.json";
  const int rc = run({fib, "22", "2", "steal-first"},
                     {"OMP_TOOL_LIBRARIES=" + tool, "RUBATO_POLICY=hermes", "RUBATO_BACKEND=sysfs",
                      "RUBATO_SYSFS_ROOT=" + sysfs.root(), "RUBATO_STATE_DIR=" + work + "/state", "RUBATO_MIN_DWELL=0",
                      "RUBATO_REPORT=" + report, "RUBATO_LOG=debug", "GT_FILE=" + work + "/truth.txt"},
                     work + "/stdout.txt", work + "/stderr.txt");
  done = true;
  watcher.join();
  expect(rc == 0, "fib under the tool exited with " + std::to_string(rc) + ": " + slurp(work + "/stderr.txt"));

  std::string err;
  auto r = rubato::report_from_json(slurp(report), err);
  expect(r.has_value(), "report: " + err);
  if (r) {
    expect(r->backend == "sysfs", "backend is '" + r->backend + "'");
    for (const auto& d : r->domains) seen.applied += d.applied_transitions;
  }
  std::string values;
  for (const auto& s : seen.speeds) values += " '" + s + "'";
  std::printf("applied transitions: %llu; scaling_setspeed values seen:%s\n",
              static_cast<unsigned long long>(seen.applied), values.c_str());
  for (const auto& s : seen.speeds)
    expect(s == "<unsupported>" || s == "2400000" || s == "1400000", "scaling_setspeed held '" + s + "', not a tempo");
  // Given back: the governor and limits as they were.
  for (const auto& p : policies) {
    expect(trimmed(sysfs.read(p + "scaling_governor")) == "ondemand", p + "scaling_governor not restored");
    expect(trimmed(sysfs.read(p + "scaling_max_freq")) == "2400000", p + "scaling_max_freq not restored");
  }
  // And the event mapping still matches the program's own record.
  const int crc =
      run({check, "--report", report, "--truth", work + "/truth.txt", "--log", work + "/stderr.txt", "--flat"}, {},
          work + "/check-stdout.txt", work + "/check-stderr.txt");
  std::printf("%s%s", slurp(work + "/check-stdout.txt").c_str(), slurp(work + "/check-stderr.txt").c_str());
  expect(crc == 0, "ompt_check failed");
  return seen;
}

int policy_case(const std::string& tool, const std::string& fib, const std::string& check, const std::string& work) {
  // The scenario — the slow tempo applied (a thief slowed) and seen in the
  // file — needs the applier thread and the watcher on the CPU while a thief
  // is slow, for a few ms of a short run: on a loaded machine one run may not
  // show it. It is waited for, over at most five runs; a back-end that never
  // writes the slow tempo fails all five.
  constexpr int kRuns = 5;
  for (int attempt = 1; attempt <= kRuns && failures == 0; ++attempt) {
    const PolicyRun seen = policy_run(tool, fib, check, work + "/run-" + std::to_string(attempt));
    const bool shown = seen.applied > 0 && seen.governors.count("userspace") == 1 && seen.speeds.count("1400000") == 1;
    if (shown) return failures == 0 ? 0 : 1;
    std::printf("run %d of %d: the slow tempo was not both applied and seen; running again\n", attempt, kRuns);
  }
  if (failures > 0) return 1;  // a run broke a check of its own (printed above)
  expect(false,
         "in no run was the slow tempo (1.4 GHz) applied and seen in scaling_setspeed (with the userspace "
         "governor set)");
  return 1;
}

int refused_case(const std::string& tool, const std::string& fib, const std::string& work) {
  rubato::test::FakeSysfs sysfs;
  sysfs.add_cpus(2, 1, kKhz, "ondemand");
  const std::string setspeed = sysfs.policy_dir(0) + "/scaling_setspeed";
  std::filesystem::rename(setspeed, setspeed + ".real");
  std::filesystem::create_symlink(setspeed + ".real", setspeed);
  const std::string report = work + "/report.json";
  const int ref = run({fib, "15", "2"}, {}, work + "/ref-stdout.txt", work + "/ref-stderr.txt");
  const int rc =
      run({fib, "15", "2"},
          {"OMP_TOOL_LIBRARIES=" + tool, "RUBATO_POLICY=hermes", "RUBATO_BACKEND=sysfs",
           "RUBATO_SYSFS_ROOT=" + sysfs.root(), "RUBATO_STATE_DIR=" + work + "/state", "RUBATO_REPORT=" + report},
          work + "/stdout.txt", work + "/stderr.txt");
  expect(ref == 0 && rc == 0, "fib exited with " + std::to_string(ref) + " / " + std::to_string(rc));
  expect(slurp(work + "/stdout.txt") == slurp(work + "/ref-stdout.txt"), "output changed with the tool attached");
  const std::string stderr_text = slurp(work + "/stderr.txt");
  std::printf("stderr: %s", stderr_text.c_str());
  expect(stderr_text.find("recording decisions only (dry-run)") != std::string::npos, "no message about the fallback");
  std::string err;
  auto r = rubato::report_from_json(slurp(report), err);
  expect(r.has_value(), "report: " + err);
  if (r) expect(r->backend == "dry-run", "backend is '" + r->backend + "', expected dry-run");
  for (int p = 0; p < 2; ++p) {
    const std::string dir = "devices/system/cpu/cpufreq/policy" + std::to_string(p) + "/";
    expect(trimmed(sysfs.read(dir + "scaling_governor")) == "ondemand", dir + "scaling_governor was changed");
  }
  expect(trimmed(sysfs.read("devices/system/cpu/cpufreq/policy0/scaling_setspeed.real")) == "<unsupported>",
         "scaling_setspeed was written through the refused link");
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::printf("usage: ompt_sysfs_case policy|refused <tool.so> <fib> <ompt_check> <workdir>\n");
    return 2;
  }
  const std::string mode = argv[1];
  if (mode != "policy" && mode != "refused") {
    std::printf("unknown mode %s\n", mode.c_str());
    return 2;
  }
  // This run's own directory under <workdir>: two runs at once (two test runs
  // in one build tree) must not share or remove each other's files. Kept when
  // the case fails.
  std::filesystem::create_directories(argv[5]);
  std::string work = std::string(argv[5]) + "/run-XXXXXX";
  if (!::mkdtemp(work.data())) {
    std::printf("cannot make a directory under %s\n", argv[5]);
    return 2;
  }
  const int rc = mode == "policy" ? policy_case(argv[2], argv[3], argv[4], work) : refused_case(argv[2], argv[3], work);
  if (rc == 0) std::filesystem::remove_all(work);
  else std::printf("the run's files: %s\n", work.c_str());
  return rc;
}
