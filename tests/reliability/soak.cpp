// Bounded soak (load): the fine-grained benchmark (fib, one
// OpenMP task per call, no cutoff) under hermes on the sysfs back-end of a
// fake tree for about SOAK_SECONDS (default 60). Checks and prints:
// - tempo changes: requested by the engine and applied, per domain (thousands);
// - the rate limiter: every frequency write is seen (inotify on each
//   scaling_setspeed); in no second does a domain change more than
//   1/min_dwell times (+1 for the window edge);
// - memory: resident set and its peak early in the run and at its end;
// - the program's self-check passes; the tree is restored byte-exact.
//
//   reliability_soak <fib_omp> <librubato_ompt.so> <profiles dir> <work dir>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <map>
#include <thread>

#include "fake_sysfs.hpp"
#include "read_report.hpp"
#include "child_process.hpp"

namespace {

constexpr double kMinDwellS = 0.01;

// VmRSS / VmHWM of a process, kB.
std::pair<long, long> memory_kb(pid_t pid) {
  const std::string status = rubato::test::read_file("/proc/" + std::to_string(pid) + "/status");
  auto field = [&](const std::string& name) {
    const std::size_t at = status.find(name + ":");
    return at == std::string::npos ? -1L : std::atol(status.c_str() + at + name.size() + 1);
  };
  return {field("VmRSS"), field("VmHWM")};
}

// When a write happened, as the watcher can know it: after its previous read
// of the inotify queue (`after`) and by the read that returned it (`by`).
// A watcher kept off the CPU (a loaded machine) reads many events at once:
// stamping them all with one read time would crowd them into a second they
// did not all happen in.
struct WriteTime {
  double after, by;
};

// Every close-after-write of the watched files, with its time, per file.
class WriteWatch {
 public:
  explicit WriteWatch(const std::vector<std::string>& files) : fd_(inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    for (std::size_t i = 0; i < files.size(); ++i) wd_[inotify_add_watch(fd_, files[i].c_str(), IN_CLOSE_WRITE)] = i;
    times_.resize(files.size());
    thread_ = std::thread([this] { loop(); });
  }
  ~WriteWatch() { stop(); }
  void stop() {
    if (!running_.exchange(false)) return;
    thread_.join();
    close(fd_);
  }
  const std::vector<std::vector<WriteTime>>& times() const { return times_; }

 private:
  void loop() {
    const auto t0 = std::chrono::steady_clock::now();
    const auto since_t0 = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    alignas(inotify_event) char buf[64 * 1024];
    double previous_read = 0;
    while (running_) {
      const double before = previous_read;
      const ssize_t n = read(fd_, buf, sizeof buf);
      const double t = since_t0();
      previous_read = t;
      if (n <= 0) {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        continue;
      }
      for (char* p = buf; p < buf + n;) {
        const auto* e = reinterpret_cast<inotify_event*>(p);
        if (auto it = wd_.find(e->wd); it != wd_.end()) times_[it->second].push_back({before, t});
        p += sizeof(inotify_event) + e->len;
      }
    }
  }
  int fd_;
  std::map<int, std::size_t> wd_;
  std::vector<std::vector<WriteTime>> times_;
  std::atomic<bool> running_{true};
  std::thread thread_;
};

// The most events of `t` certainly inside one window of one second: those
// whose whole interval lies in it (a lower bound on the true count, exact when
// the watcher kept up). Windows start where an interval starts; `t` is in
// order of both ends.
std::size_t busiest_second(const std::vector<WriteTime>& t) {
  std::size_t best = 0;
  for (std::size_t i = 0, j = 0; i < t.size(); ++i) {
    j = std::max(j, i);
    while (j < t.size() && t[j].by - t[i].after <= 1.0) ++j;
    best = std::max(best, j - i);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s <fib_omp> <librubato_ompt.so> <profiles dir> <work dir>\n", argv[0]);
    return 2;
  }
  const std::string fib = argv[1], tool = argv[2], profiles = argv[3];
  const char* seconds_env = std::getenv("SOAK_SECONDS");
  const double target_s = seconds_env ? std::atof(seconds_env) : 60;
  // A directory of this run's own under <work dir>: two soaks at once (two
  // test runs in one build tree) must not share or remove each other's files.
  // Kept when the soak fails (its report and the program's output).
  std::filesystem::create_directories(argv[4]);
  std::string work = std::string(argv[4]) + "/run-XXXXXX";
  if (!::mkdtemp(work.data())) {
    std::printf("FAIL cannot make a directory under %s\n", argv[4]);
    return 1;
  }
  std::filesystem::create_directories(work + "/state");
  std::filesystem::permissions(work + "/state", std::filesystem::perms::owner_all);
  rubato::test::FakeSysfs tree("/dev/shm");
  tree.add_cpus(2, 1, {2400000, 2200000, 1900000, 1600000, 1400000});
  const auto pristine = tree.snapshot();
  const std::string report = work + "/report.json";
  const rubato::test::EnvList with_tool = {
      {"OMP_TOOL_LIBRARIES", tool},       {"RUBATO_POLICY", "hermes"},           {"RUBATO_BACKEND", "sysfs"},
      {"RUBATO_SYSFS_ROOT", tree.root()}, {"RUBATO_STATE_DIR", work + "/state"}, {"RUBATO_MIN_DWELL", "10ms"},
      {"RUBATO_REPORT", report},          {"RUBATO_PROFILE_DIR", profiles}};

  // fib(n) takes about phi^n: calibrate on fib(24) under the tool, pick n for the target.
  // The fastest of three runs: under CI's parallel tests one calibration once
  // took 50 times its usual 0.1 s, and the soak then lasted 5 s instead of 60.
  auto fib_args = [&](int n) { return std::vector<std::string>{fib, "--n", std::to_string(n), "--threads", "2"}; };
  double calib_s = 0;
  for (int i = 0; i < 3; ++i) {
    const auto calib = rubato::test::run_program(fib_args(24), with_tool, work + "/calibrate");
    if (!calib.ok()) {
      std::printf("FAIL calibration run: %s\n%s", calib.status().c_str(), calib.err.c_str());
      return 1;
    }
    calib_s = i == 0 ? calib.seconds : std::min(calib_s, calib.seconds);
  }
  const int n =
      24 +
      std::max(0, static_cast<int>(std::lround(std::log(target_s / std::max(calib_s, 0.01)) / std::log(1.6180339887))));

  WriteWatch watch({tree.policy_dir(0) + "/scaling_setspeed", tree.policy_dir(1) + "/scaling_setspeed"});
  rubato::test::RunningProgram p(fib_args(n), with_tool, work + "/soak");
  // The early figure: the last sample in the first 5 s (a run that ends sooner
  // still has one, taken while it ran).
  std::pair<long, long> early{-1, -1};
  for (int i = 0; i < 50; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto m = memory_kb(p.pid());
    if (m.first < 0) break;
    early = m;
  }
  std::pair<long, long> late = early;
  // Sample until the end: the last sample before the program exits is "late".
  for (;;) {
    const auto m = memory_kb(p.pid());
    if (m.first < 0) break;
    late = m;
    if (rubato::test::path_exists(work + "/soak/stdout.txt") &&
        !rubato::test::read_file(work + "/soak/stdout.txt").empty())
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  const auto r = p.wait(target_s * 20 + 600);
  watch.stop();

  int failures = 0;
  auto check = [&](bool ok, const std::string& what) {
    if (!ok) ++failures;
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  };
  const auto written = rubato::test::read_report(report);
  std::uint64_t requested = 0, applied = 0;
  for (const auto& d : written ? written->domains : std::vector<rubato::DomainReport>{}) {
    requested += d.transitions;
    applied += d.applied_transitions;
  }
  check(written.has_value(), "the report was written and reads back");
  std::printf("soak: fib --n %d, 2 threads, hermes, sysfs on a fake tree, min_dwell %.0f ms: %.1f s (target %.0f s)\n",
              n, kMinDwellS * 1e3, r.seconds, target_s);
  check(r.ok(), "the program ended normally (" + r.status() + ")");
  const std::string first = r.out.substr(0, r.out.find(" ok") + 3);
  check(!first.empty() && r.out.find(" ok") != std::string::npos, "its self-check passed: " + first);
  check(tree.snapshot() == pristine, "the fake tree is restored byte-exact");
  std::printf("tempo changes: %llu requested by the engine, %llu applied (all domains)\n",
              static_cast<unsigned long long>(requested), static_cast<unsigned long long>(applied));
  check(requested >= 1000, "the engine changed tempo thousands of times");
  // The back-end kept writing all through the run (not only at its start).
  check(static_cast<double>(applied) >= 5 * r.seconds, "at least 5 applied changes per second of run");
  const auto& times = watch.times();
  const auto limit = static_cast<std::size_t>(std::floor(1.0 / kMinDwellS)) + 1;
  for (std::size_t d = 0; d < times.size(); ++d) {
    const std::size_t busiest = busiest_second(times[d]);
    const double mean = times[d].size() / std::max(r.seconds, 1e-9);
    check(busiest <= limit, "domain " + std::to_string(d) + ": " + std::to_string(times[d].size()) +
                                " writes seen, mean " + std::to_string(static_cast<int>(mean)) + "/s, busiest second " +
                                std::to_string(busiest) + " <= " + std::to_string(limit));
  }
  std::printf("memory: RSS %ld kB early (by 5 s), %ld kB at the end; peak RSS %ld kB early, %ld kB at the end\n",
              early.first, late.first, early.second, late.second);
  check(late.first > 0 && late.first <= early.first + std::max(4096L, early.first / 10),
        "resident memory flat (end within max(4 MiB, 10%) of the early figure)");
  check(late.second <= early.second + std::max(4096L, early.second / 10), "peak resident memory flat");
  if (failures == 0) std::filesystem::remove_all(work);
  else std::printf("the run's files: %s\n", work.c_str());
  return failures == 0 ? 0 : 1;
}
