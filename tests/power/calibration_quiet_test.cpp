// How `rubato calibrate` tells a busy machine (power/calibration.hpp): other
// processes' load is the machine's busy time less calibrate's own CPU time;
// a profile written from polluted points carries "unreliable", which the
// profile reader keeps; the machine's busy time is read beside the sysfs root.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "rubato/power/calibrate/calibration.hpp"
#include "rubato/power/machine/profile.hpp"
#include "temp_dir.hpp"

using namespace rubato;

namespace {

CalibrationWindow window(double seconds, double system_busy_s, double own_cpu_s) {
  CalibrationWindow w;
  w.seconds = seconds;
  w.system_busy_s = system_busy_s;
  w.own_cpu_s = own_cpu_s;
  return w;
}

// A result with two frequencies, as calibrate() leaves it after the fit.
CalibrationResult two_frequency_result() {
  CalibrationResult r;
  r.host = "host";
  r.date = "2026-01-01T00:00:00Z";
  r.sysfs_root = "/sys";
  r.online_cpus = 2;
  r.cpus = {0, 1};
  r.freqs_hz = {2.4e9, 1.2e9};
  r.seconds = 1;
  r.latency_method = "scaling_cur_freq readback";
  r.transitions = {{2.4e9, 1.2e9, 0.01}, {1.2e9, 2.4e9, 0.01}};
  r.fit.intercept = 20;
  r.fit.slope = {10, 1, 2, 0.5};
  r.fit.slope_se = {0.1, 0.1, 0.1, 0.1};
  return r;
}

}  // namespace

TEST_CASE("Power.CalibrationQuiet.OthersAreTheMachineLessThisProcess") {
  CalibrationSample s;
  s.windows = {window(0.5, 1.50, 0.50), window(0.5, 1.70, 0.50)};  // others: 1.0 s, then 1.2 s
  CHECK(s.system_busy_cpus() == Approx(3.2));
  CHECK(s.own_cpus() == Approx(1.0));
  CHECK(s.others_cpus() == Approx(2.2));
  CalibrationSample quiet;
  quiet.windows = {window(1.0, 2.0, 2.0)};  // everything busy was this process
  CHECK(quiet.others_cpus() == Approx(0.0));
}

TEST_CASE("Power.CalibrationQuiet.UnreliableProfileSaysSoAndLoads") {
  CalibrationResult r = two_frequency_result();
  std::string error;
  const auto clean = parse_profile(calibration_profile_json(r, "clean"), "clean", error);
  INFO(error);
  REQUIRE(clean);
  CHECK(clean->unreliable.empty());
  CHECK(clean->description.rfind("Measured by rubato calibrate", 0) == 0);

  r.unreliable = "3 of 10 points were measured while other processes used up to 1.50 CPUs";
  const std::string text = calibration_profile_json(r, "noisy");
  const auto noisy = parse_profile(text, "noisy", error);
  INFO(error);
  REQUIRE(noisy);
  CHECK(noisy->unreliable == r.unreliable);
  CHECK(noisy->description.rfind("UNRELIABLE", 0) == 0);
  // The reader names the field when it has the wrong type.
  std::string wrong = text;
  const std::string quoted = "\"" + r.unreliable + "\"";
  wrong.replace(wrong.find(quoted), quoted.size(), "1");
  CHECK_FALSE(parse_profile(wrong, "wrong", error));
  CHECK(error.find("'unreliable': expected a string") != std::string::npos);
}

TEST_CASE("Power.CalibrationQuiet.BusyTimeIsReadBesideTheSysfsRoot") {
  CHECK(calibration_proc_stat("/sys") == "/proc/stat");
  const rubato::test::TempDir dir;
  // A fake tree without a proc/stat of its own: the machine's.
  CHECK(calibration_proc_stat(dir.file("root")) == "/proc/stat");
  std::filesystem::create_directories(dir.file("proc"));
  std::ofstream(dir.file("proc/stat")) << "cpu  0 0 0 0 0 0 0 0 0 0\n";
  CHECK(calibration_proc_stat(dir.file("root")) == dir.file("proc/stat"));
  CHECK(calibration_proc_stat(dir.file("root") + "/") == dir.file("proc/stat"));
}
