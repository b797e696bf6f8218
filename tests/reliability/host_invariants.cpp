// The never-harm-the-host guarantee for one program: its stdout and exit
// status are the same without rubato and with rubato under every policy and
// every back-end available here (emulated, dry-run, sysfs on a fake cpufreq
// tree), for each thread configuration. Every run with the tool must have
// written a report naming the requested back-end (so the case really ran
// with it), and after every sysfs run the fake tree must be back byte-exact
// with no state file left.
//
//   reliability_host_invariants --attach omp|linked|preload --tool LIB --profiles DIR --work DIR
//       [--threads 1,2,64] [--mask-timing] [--crash-retries N] -- PROGRAM ARGS...
//   ({threads} in ARGS: the thread count)
//
// --crash-retries N: a run (with or without rubato) that dies of SIGSEGV or
// SIGABRT is run again, up to N times, and only the last run counts. For
// programs whose runtime crashes on its own: libomp 16 does, on
// programs/app_threads_omp (several root threads with tasks), about once in
// 1600 runs without any tool (tests/RELIABILITY.md, "libomp's own crash").
// Every retry is printed; a configuration that crashes N+1 times fails.
//
// omp: OMP_TOOL_LIBRARIES=LIB and OMP_NUM_THREADS; linked: the program links
// rubato::tbb (reference run RUBATO_ENABLE=0); preload: LD_PRELOAD=LIB.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "fake_sysfs.hpp"
#include "read_report.hpp"
#include "child_process.hpp"

namespace {

using rubato::test::EnvList;

struct Options {
  std::string attach, tool, profiles, work;
  std::vector<std::string> threads{"2"};
  bool mask_timing = false;
  int crash_retries = 0;
  std::vector<std::string> program;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "reliability_host_invariants: %s\n", why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    if (i + 1 >= argc && a != "--mask-timing") usage("missing value for " + a);
    if (a == "--attach") o.attach = argv[++i];
    else if (a == "--tool") o.tool = argv[++i];
    else if (a == "--profiles") o.profiles = argv[++i];
    else if (a == "--work") o.work = argv[++i];
    else if (a == "--mask-timing") o.mask_timing = true;
    else if (a == "--crash-retries") o.crash_retries = std::atoi(argv[++i]);
    else if (a == "--threads") {
      o.threads.clear();
      std::stringstream in(argv[++i]);
      for (std::string t; std::getline(in, t, ',');) o.threads.push_back(t);
    } else usage("unknown option " + a);
  }
  for (++i; i < argc; ++i) o.program.emplace_back(argv[i]);
  if (o.program.empty() || o.work.empty() || o.tool.empty()) usage("give --tool, --work and -- PROGRAM");
  if (o.attach != "omp" && o.attach != "linked" && o.attach != "preload") usage("--attach omp|linked|preload");
  return o;
}

// The examples print their run time on stdout ("... in 0.123 s"): the one
// part that may differ between runs.
std::string masked(const std::string& out, bool mask) {
  if (!mask) return out;
  static const std::regex timing(R"(in [0-9]+\.[0-9]+ s)");
  return std::regex_replace(out, timing, "in <time> s");
}

std::vector<std::string> with_threads(const std::vector<std::string>& program, const std::string& threads) {
  std::vector<std::string> out;
  for (std::string a : program) {
    for (std::size_t at; (at = a.find("{threads}")) != std::string::npos;) a.replace(at, 9, threads);
    out.push_back(a);
  }
  return out;
}

bool crashed(const rubato::test::ProgramResult& r) {
  return !r.exited && !r.timed_out && (r.signal == SIGSEGV || r.signal == SIGABRT);
}

struct Backend {
  std::string name;
  std::string fixed;  // the fixed policy's frequency on this back-end's ladder
};

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  rubato::test::FakeSysfs tree;
  tree.add_cpus(2, 1, {2400000, 2200000, 1900000, 1600000, 1400000});
  const auto pristine = tree.snapshot();
  // This run's own directory under --work: two runs at once (two test runs in
  // one build tree) must not share or remove each other's files. Kept when a
  // case fails.
  std::filesystem::create_directories(o.work);
  o.work += "/run-XXXXXX";
  if (!::mkdtemp(o.work.data())) usage("cannot make a directory under " + o.work);
  const std::string state_dir = o.work + "/state";
  std::filesystem::create_directories(state_dir);
  std::filesystem::permissions(state_dir, std::filesystem::perms::owner_all);

  const std::vector<std::string> policies = {"baseline", "workpath", "workload", "hermes", "fixed"};
  const std::vector<Backend> backends = {{"emulated", "1.6GHz"}, {"dry-run", "1.6GHz"}, {"sysfs", "1.6GHz"}};
  int runs = 0, failures = 0, retried = 0;
  auto fail = [&](const std::string& what) {
    ++failures;
    std::printf("FAIL %s\n", what.c_str());
  };

  for (const std::string& threads : o.threads) {
    const auto program = with_threads(o.program, threads);
    EnvList base = {{"OMP_NUM_THREADS", threads}};
    EnvList off = base;
    if (o.attach == "linked") off.emplace_back("RUBATO_ENABLE", "0");
    // Runs the program; a crash is re-run up to --crash-retries times.
    auto run = [&](const std::string& name, const EnvList& env, const std::string& dir) {
      auto r = rubato::test::run_program(program, env, dir);
      ++runs;
      for (int k = 1; k <= o.crash_retries && crashed(r); ++k) {
        ++retried;
        std::printf("  %-40s %s: run again (%d of %d)\n", name.c_str(), r.status().c_str(), k, o.crash_retries);
        r = rubato::test::run_program(program, env, dir);
        ++runs;
      }
      return r;
    };
    const auto ref = run("threads " + threads + " reference", off, o.work + "/ref-" + threads);
    if (!ref.exited || ref.timed_out) {
      fail("threads " + threads + ": the reference run ended by " + ref.status() + "\n" + ref.err);
      continue;
    }
    const std::string want = masked(ref.out, o.mask_timing);
    std::printf("threads %s: reference %s in %.2f s: %s", threads.c_str(), ref.status().c_str(), ref.seconds,
                want.substr(0, want.find('\n') + 1).c_str());

    for (const Backend& b : backends) {
      for (const std::string& policy : policies) {
        const std::string name = "threads " + threads + " " + b.name + " " + policy;
        const std::string work = o.work + "/" + threads + "-" + b.name + "-" + policy;
        const std::string report = work + "/report.json";
        std::filesystem::create_directories(work);
        EnvList env = base;
        env.insert(env.end(), {{"RUBATO_POLICY", policy == "fixed" ? "fixed:" + b.fixed : policy},
                               {"RUBATO_BACKEND", b.name},
                               {"RUBATO_REPORT", report},
                               {"RUBATO_PROFILE_DIR", o.profiles},
                               {"RUBATO_SYSFS_ROOT", tree.root()},
                               {"RUBATO_STATE_DIR", state_dir}});
        if (o.attach == "omp") env.emplace_back("OMP_TOOL_LIBRARIES", o.tool);
        if (o.attach == "preload") env.emplace_back("LD_PRELOAD", o.tool);
        const auto r = run(name, env, work);
        const std::string got = masked(r.out, o.mask_timing);
        if (r.timed_out || r.exited != ref.exited || r.exit_code != ref.exit_code)
          fail(name + ": " + r.status() + " with rubato, " + ref.status() + " without\n" + r.err);
        else if (got != want) fail(name + ": stdout changed\nwithout:\n" + want + "with:\n" + got);
        const auto written = rubato::test::read_report(report);
        if (!written || written->backend != b.name)
          fail(name + ": no report from the " + b.name + " back-end (did the tool attach?)\n" + r.err);
        if (b.name == "sysfs") {
          if (tree.snapshot() != pristine) fail(name + ": the fake cpufreq tree was not restored");
          if (!std::filesystem::is_empty(state_dir)) fail(name + ": a state file was left behind");
        }
        std::printf("  %-40s %s %.2f s\n", name.c_str(), r.status().c_str(), r.seconds);
      }
    }
  }
  std::printf(
      "%d runs (%zu thread configurations x (1 without + %zu with rubato), %d re-runs after a crash), %d failed\n",
      runs, o.threads.size(), policies.size() * backends.size(), retried, failures);
  if (failures == 0) std::filesystem::remove_all(o.work);
  else std::printf("the runs' files: %s\n", o.work.c_str());
  return failures == 0 ? 0 : 1;
}
