// Corrupt and truncated files given to the command line (bad input): state
// files to `rubato restore`, task traces to `rubato simulate --trace`, reports
// to `rubato compare`. Each file is a real one (a trace and a report recorded
// by the OMPT tool from a real program, a state file as the sysfs back-end
// writes it), cut at many lengths and with single bytes changed. Every damaged
// file that cannot be read must give a clear error naming the file and the
// offset, a non-zero exit status, and no crash; a change the format cannot tell
// from data (a digit of a duration) may be accepted, but never crash.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "fake_sysfs.hpp"
#include "reliability_paths.hpp"
#include "rubato/power/state/state_file.hpp"
#include "child_process.hpp"

using namespace rubato;

namespace {

struct Damage {
  std::string label;
  std::string bytes;
  bool must_fail;  // truncations always; single changed bytes only where the format can tell
};

// Every cut in the first `dense` bytes (headers), then `cuts` more spread
// over the file, and `flips` single changed bytes spread over it: each case
// is one run of the command, so the counts bound the test's time whatever
// the file's size (the fuzz targets try far more in process).
std::vector<Damage> damaged(const std::string& good, std::size_t dense, std::size_t cuts, std::size_t flips,
                            bool flips_must_fail) {
  std::vector<Damage> out;
  const std::size_t size = good.size();
  const std::size_t cut_step = std::max<std::size_t>(1, size / std::max<std::size_t>(cuts, 1));
  for (std::size_t n = 0; n < size; n += (n < dense ? 1 : cut_step))
    out.push_back({"cut at " + std::to_string(n), good.substr(0, n),
                   good.find_first_not_of(" \t\r\n", n) != std::string::npos});  // more than trailing blanks lost
  const std::size_t flip_step = std::max<std::size_t>(1, size / std::max<std::size_t>(flips, 1));
  for (std::size_t at = 0; at < size; at += flip_step) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x01);
    out.push_back({"byte " + std::to_string(at) + " changed", bad, flips_must_fail});
  }
  out.push_back({"binary garbage", std::string(4096, '\xa5'), true});
  out.push_back({"empty", "", true});
  return out;
}

struct Outcome {
  int cases = 0, refused = 0;
};

// Runs `command` (with {file} replaced) on every damaged version of `good`.
Outcome run_damaged(const std::vector<Damage>& cases, const std::vector<std::string>& command, const std::string& file,
                    const test::EnvList& env, const std::string& work) {
  Outcome o;
  for (const Damage& d : cases) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << d.bytes;
    std::vector<std::string> argv;
    for (const auto& a : command) argv.push_back(a == "{file}" ? file : a);
    const auto r = test::run_program(argv, env, work, 60);
    const std::string said = r.out + r.err;
    INFO(d.label << ": " << r.status() << "\n" << said);
    ++o.cases;
    REQUIRE(r.exited);        // no crash, no sanitizer abort
    CHECK(r.exit_code <= 1);  // 0 or a failure, never a usage error or worse
    if (d.must_fail) CHECK(r.exit_code == 1);
    if (r.exit_code != 0) {
      ++o.refused;
      CHECK(said.find(file) != std::string::npos);
      CHECK((said.find("offset") != std::string::npos));
    }
  }
  return o;
}

}  // namespace

TEST_CASE("Reliability.CorruptFiles.StateFilesToRestore") {
  test::FakeSysfs tree;
  tree.add_cpus(2, 1, {2400000, 1400000});
  const auto before = tree.snapshot();
  test::TempDir tmp;
  const std::string state_dir = tmp.path() + "/state";
  std::filesystem::create_directory(state_dir);
  std::filesystem::permissions(state_dir, std::filesystem::perms::owner_all);
  MachineState s;
  s.sysfs_root = tree.root();
  s.pid = 999999999;
  s.backend = "sysfs";
  for (int p : {0, 1})
    s.policies.push_back({tree.policy_dir(p), {"userspace\n", "1400000\n", "1400000\n", "1400000\n"}});
  const std::string good = encode_state(s);
  // Every cut and every changed byte must be refused: a checksum covers the content.
  const auto cases = damaged(good, 64, 100, 100, true);
  const auto o =
      run_damaged(cases, {test::kRubatoCli, "restore", "--state", "{file}"}, state_dir + "/cpufreq-1.state",
                  {{"RUBATO_SYSFS_ROOT", tree.root()}, {"RUBATO_STATE_DIR", state_dir}}, tmp.path() + "/run");
  CHECK(tree.snapshot() == before);  // nothing was written from a damaged file
  std::printf("Reliability.CorruptFiles: %d damaged state files, %d refused\n", o.cases, o.refused);
}

namespace {

// A trace and a report recorded by the OMPT tool from a real program.
struct Recording {
  test::TempDir tmp;
  std::string trace = tmp.path() + "/good.trace";
  std::string report = tmp.path() + "/good.json";

  Recording() {
    const auto r = test::run_program({test::kTicker, "14", tmp.path() + "/stop", "0"},
                                     {{"OMP_TOOL_LIBRARIES", test::kOmptTool},
                                      {"OMP_NUM_THREADS", "2"},
                                      {"RUBATO_TRACE", trace},
                                      {"RUBATO_REPORT", report},
                                      {"RUBATO_POLICY", "hermes"},
                                      {"RUBATO_PROFILE_DIR", test::kProfilesDir}},
                                     tmp.path() + "/record");
    REQUIRE(r.ok());
    REQUIRE(test::read_file(trace).size() > 256);
    REQUIRE(test::read_file(report).size() > 256);
  }
};

}  // namespace

TEST_CASE("Reliability.CorruptFiles.TracesToSimulate") {
  Recording rec;
  const std::string good = test::read_file(rec.trace);
  const auto cases = damaged(good, 160, 60, 60, false);
  const auto o = run_damaged(cases,
                             {test::kRubatoCli, "simulate", "--profile", "generic", "--workers", "2", "--policy",
                              "hermes", "--quiet", "--trace", "{file}"},
                             rec.tmp.path() + "/damaged.trace", {{"RUBATO_PROFILE_DIR", test::kProfilesDir}},
                             rec.tmp.path() + "/run");
  std::printf("Reliability.CorruptFiles: %d damaged traces (%zu bytes), %d refused\n", o.cases, good.size(), o.refused);
}

TEST_CASE("Reliability.CorruptFiles.ReportsToCompare") {
  Recording rec;
  const std::string good = test::read_file(rec.report);
  const auto cases = damaged(good, 64, 60, 60, false);
  const auto o = run_damaged(cases, {test::kRubatoCli, "compare", "{file}"}, rec.tmp.path() + "/damaged.json", {},
                             rec.tmp.path() + "/run");
  std::printf("Reliability.CorruptFiles: %d damaged reports (%zu bytes), %d refused\n", o.cases, good.size(),
              o.refused);
}
