// Today's frequency drivers: a real OpenMP program
// (programs/ticker.cpp) under librubato_ompt.so with the sysfs back-end on a
// fake tree of each driver layout (tests/power/fake_driver_layouts.hpp), with
// and without the uncore driver. While it runs, the files that change must
// be exactly the ones the layout's method writes, with ladder frequencies;
// at exit, and after kill -9 + `rubato restore`, the tree must be back byte
// for byte.
#include <signal.h>

#include <chrono>
#include <set>
#include <thread>

#include "fake_driver_layouts.hpp"
#include "read_report.hpp"
#include "reliability_paths.hpp"
#include "child_process.hpp"

using namespace rubato;
namespace fs = std::filesystem;

namespace {

constexpr const char* kUncore = "1.6GHz";
constexpr const char* kUncoreKhz = "1600000";

struct LayoutScene {
  LayoutScene(test::DriverLayout l, bool with_uncore) : layout(l), uncore(with_uncore) {
    test::add_driver_layout(tree, layout, 2, uncore);
    before = tree.snapshot("devices/system/cpu");
    state_dir = tmp.path() + "/state";
    fs::create_directory(state_dir);
    fs::permissions(state_dir, fs::perms::owner_all);
    stop_file = tmp.path() + "/stop";
    report = tmp.path() + "/report.json";
  }

  std::string policy_file(int p, const char* name) const {
    return "devices/system/cpu/cpufreq/policy" + std::to_string(p) + "/" + name;
  }
  std::string uncore_file(const char* name) const {
    return std::string("devices/system/cpu/intel_uncore_frequency/package_00_die_00/") + name;
  }
  // A file's value without the trailing newline (sysfs adds one on read; the
  // fake keeps the bytes written).
  // A regular file standing in for a sysfs attribute can be read between
  // rubato's truncating open and its write (a sysfs attribute is replaced
  // whole): an empty read is retried (failed once in a full run beside builds).
  std::string value(const std::string& rel) const {
    std::string v;
    for (int attempt = 0; attempt < 200; ++attempt) {
      v = tree.read(rel);
      while (!v.empty() && v.back() == '\n') v.pop_back();
      if (!v.empty()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return v;
  }

  test::RunningProgram& start() {
    test::EnvList env{{"OMP_TOOL_LIBRARIES", test::kOmptTool},
                      {"OMP_NUM_THREADS", "2"},
                      {"RUBATO_BACKEND", "sysfs"},
                      {"RUBATO_POLICY", "hermes"},
                      {"RUBATO_SYSFS_ROOT", tree.root()},
                      {"RUBATO_STATE_DIR", state_dir},
                      {"RUBATO_REPORT", report},
                      {"RUBATO_PROFILE_DIR", test::kProfilesDir},
                      {"RUBATO_MIN_DWELL", "0"}};
    if (uncore) env.emplace_back("RUBATO_UNCORE", kUncore);
    program = std::make_unique<test::RunningProgram>(std::vector<std::string>{test::kTicker, "20", stop_file, "60"},
                                                     env, tmp.path() + "/run");
    const bool taken = test::wait_until([&] {
      if (!test::path_exists(stop_file + ".started")) return false;
      // Both policies; setspeed: the governor is written before the speed
      // (until then the driver shows "<unsupported>").
      bool cpufreq = true;
      for (int p = 0; p < 2; ++p)
        cpufreq =
            cpufreq && (test::layout_pins(layout)
                            ? value(policy_file(p, "scaling_min_freq")) == value(policy_file(p, "scaling_max_freq"))
                            : value(policy_file(p, "scaling_governor")) == "userspace" &&
                                  value(policy_file(p, "scaling_setspeed")) != "<unsupported>");
      // The uncore's two limits are written one after the other.
      return cpufreq && (!uncore || (value(uncore_file("min_freq_khz")) == kUncoreKhz &&
                                     value(uncore_file("max_freq_khz")) == kUncoreKhz));
    });
    if (!taken) FAIL("rubato did not take control; stderr:\n" << program->err_so_far());
    return *program;
  }

  // The frequency each policy was last set to (the file the layout's method writes).
  std::vector<std::string> written() const {
    std::vector<std::string> out;
    for (int p = 0; p < 2; ++p)
      out.push_back(value(policy_file(p, test::layout_pins(layout) ? "scaling_max_freq" : "scaling_setspeed")));
    return out;
  }
  // Waits (bounded) until a policy's frequency changes after rubato took
  // control: a transition the applier carried out, so the report must count
  // one. The program runs until stopped; a short run could end before any.
  bool wait_for_a_transition() const {
    const auto first = written();
    return test::wait_until([&] { return written() != first; }, 30);
  }
  // A pinning layout's policy `p` seen with min = max. Each transition writes
  // the two files one after the other and the program keeps changing
  // frequency (no dwell), so one read of each can straddle a write: the
  // pinned state is waited for (bounded), not assumed at one instant.
  bool pinned(int p) const {
    return test::wait_until(
        [&] { return value(policy_file(p, "scaling_min_freq")) == value(policy_file(p, "scaling_max_freq")); }, 30);
  }

  test::ProgramResult stop() {
    std::ofstream(stop_file) << "stop\n";
    return program->wait(60);
  }

  // The files whose bytes differ from before, relative to the cpu directory.
  std::set<std::string> changed() const {
    std::set<std::string> out;
    const std::string prefix = tree.root() + "/devices/system/cpu/";
    for (const auto& [path, bytes] : tree.snapshot("devices/system/cpu")) {
      const auto it = before.find(path);
      if (it == before.end() || it->second != bytes) out.insert(path.substr(prefix.size()));
    }
    return out;
  }

  test::DriverLayout layout;
  bool uncore;
  test::FakeSysfs tree{"/dev/shm"};
  test::TempDir tmp;
  std::map<std::string, std::string> before;
  std::string state_dir, stop_file, report;
  std::unique_ptr<test::RunningProgram> program;
};

struct Case {
  test::DriverLayout layout;
  bool uncore;
};

// The uncore driver is Intel's: with the Intel layouts (and acpi-cpufreq,
// which older Intel servers run) only.
std::vector<Case> cases() {
  std::vector<Case> out;
  for (auto l : test::all_driver_layouts()) {
    out.push_back({l, false});
    if (l == test::DriverLayout::acpi_cpufreq || l == test::DriverLayout::intel_active ||
        l == test::DriverLayout::intel_passive)
      out.push_back({l, true});
  }
  return out;
}

}  // namespace

TEST_CASE("Reliability.DriverLayouts.WritesWhatTheDriverTakesAndRestoresAtExit") {
  for (const Case& c : cases()) {
    INFO(test::layout_name(c.layout) << (c.uncore ? " + uncore" : ""));
    LayoutScene scene(c.layout, c.uncore);
    scene.start();
    CHECK(scene.wait_for_a_transition());
    // While it runs: exactly the files of the layout's method, at ladder
    // frequencies (fastest = cpuinfo_max_freq or the listed maximum; the
    // slow level 0.6 x that, or the nearest listed frequency).
    std::set<std::string> seen_khz;
    const bool pins = test::layout_pins(c.layout);
    const auto changed = scene.changed();
    for (int p = 0; p < 2; ++p) {
      const std::string dir = "cpufreq/policy" + std::to_string(p) + "/";
      if (pins) {
        CHECK_FALSE(changed.count(dir + "scaling_governor"));
        CHECK_FALSE(changed.count(dir + "scaling_setspeed"));
        CHECK(scene.pinned(p));
        seen_khz.insert(scene.value(scene.policy_file(p, "scaling_max_freq")));
      } else {
        CHECK(scene.value(scene.policy_file(p, "scaling_governor")) == "userspace");
        seen_khz.insert(scene.value(scene.policy_file(p, "scaling_setspeed")));
      }
    }
    for (const auto& f : changed) {
      INFO(f);
      const bool allowed = f.ends_with("scaling_min_freq") || f.ends_with("scaling_max_freq") ||
                           (!pins && (f.ends_with("scaling_governor") || f.ends_with("scaling_setspeed"))) ||
                           (c.uncore && (f.ends_with("uncore_frequency/package_00_die_00/min_freq_khz") ||
                                         f.ends_with("uncore_frequency/package_00_die_00/max_freq_khz")));
      CHECK(allowed);
    }
    const std::set<std::string> ladder =
        c.layout == test::DriverLayout::acpi_cpufreq ? std::set<std::string>{"2400000", "1400000"}
        : c.layout == test::DriverLayout::intel_active || c.layout == test::DriverLayout::intel_passive
            ? std::set<std::string>{"3700000", "2220000"}
            : std::set<std::string>{"3500000", "2100000"};
    for (const std::string& khz : seen_khz) {
      INFO("written " << khz);
      CHECK(ladder.count(khz) == 1);
    }
    if (c.uncore) {
      CHECK(scene.value(scene.uncore_file("min_freq_khz")) == kUncoreKhz);
      CHECK(scene.value(scene.uncore_file("max_freq_khz")) == kUncoreKhz);
    }
    const auto r = scene.stop();
    INFO(r.status() << "\n" << r.err);
    CHECK(r.ok());
    CHECK(r.out == "fib(20) = 6765\n");
    CHECK(scene.changed().empty());  // every file back, byte for byte
    CHECK(fs::is_empty(scene.state_dir));
    const auto report = test::read_report(scene.report);
    REQUIRE(report);
    CHECK(report->backend == "sysfs");
    std::uint64_t applied = 0;
    for (const auto& d : report->domains) applied += d.applied_transitions;
    CHECK(applied >= 1);
  }
}

TEST_CASE("Reliability.DriverLayouts.KilledRunIsRestoredByRubatoRestore") {
  for (const Case& c : {Case{test::DriverLayout::intel_active, true}, Case{test::DriverLayout::amd_active, false},
                        Case{test::DriverLayout::intel_passive, true}}) {
    INFO(test::layout_name(c.layout) << (c.uncore ? " + uncore" : ""));
    LayoutScene scene(c.layout, c.uncore);
    auto& p = scene.start();
    p.signal(SIGKILL);
    const auto killed = p.wait(30);
    CHECK(killed.status().find("signal 9") != std::string::npos);
    CHECK_FALSE(scene.changed().empty());
    std::size_t cpufreq_states = 0, uncore_states = 0;
    for (const auto& e : fs::directory_iterator(scene.state_dir)) {
      const std::string name = e.path().filename().string();
      cpufreq_states += name.rfind("cpufreq-", 0) == 0;
      uncore_states += name.rfind("uncore-", 0) == 0;
    }
    CHECK(cpufreq_states == 1);
    CHECK(uncore_states == (c.uncore ? 1u : 0u));
    const auto restore =
        test::run_program({test::kRubatoCli, "restore"},
                          {{"RUBATO_SYSFS_ROOT", scene.tree.root()}, {"RUBATO_STATE_DIR", scene.state_dir}},
                          scene.tmp.path() + "/restore");
    INFO(restore.out << restore.err);
    CHECK(restore.ok());
    CHECK(scene.changed().empty());
    CHECK(fs::is_empty(scene.state_dir));
  }
}
