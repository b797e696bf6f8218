// A stand-in for a program on real hardware, for `rubato calibrate --beta`'s
// tests on the fake machine: it takes as long as the model says work with
// the given shares takes at the clocks the fake tree shows (policy0's
// scaling_cur_freq, the uncore domain's current_freq_khz), relative to the
// fastest of both (rubato/core/model/time_model.hpp):
//   T = T0 · (1 + b_c (fc_max / fc − 1) + b_u (g(fu) − 1)),
//   g(fu) = max(1, f_k / fu) / max(1, f_k / fu_max)   (f_k 0: fu_max / fu)
// It sleeps that long, so other work on the machine hardly moves it.
//
//   clock_bound_program SYSFS_ROOT B_C B_U T0_MS KNEE_KHZ
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

namespace {

double read_khz(const std::string& path) {
  std::ifstream in(path);
  double khz = 0;
  in >> khz;
  return khz;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: clock_bound_program SYSFS_ROOT B_C B_U T0_MS KNEE_KHZ\n");
    return 2;
  }
  const std::string cpu = std::string(argv[1]) + "/devices/system/cpu/";
  const double bc = std::atof(argv[2]), bu = std::atof(argv[3]), t0_ms = std::atof(argv[4]), knee = std::atof(argv[5]);
  const double fc = read_khz(cpu + "cpufreq/policy0/scaling_cur_freq");
  const double fc_max = read_khz(cpu + "cpufreq/policy0/cpuinfo_max_freq");
  const std::string uncore = cpu + "intel_uncore_frequency/package_00_die_00/";
  const double fu = read_khz(uncore + "current_freq_khz"), fu_max = read_khz(uncore + "initial_max_freq_khz");
  if (!(fc > 0) || !(fc_max > 0)) {
    std::fprintf(stderr, "clock_bound_program: no core frequency under %s\n", cpu.c_str());
    return 1;
  }
  double g = 1;
  if (fu > 0 && fu_max > 0) g = knee > 0 ? std::max(1.0, knee / fu) / std::max(1.0, knee / fu_max) : fu_max / fu;
  const double ms = t0_ms * (1 + bc * (fc_max / fc - 1) + bu * (g - 1));
  std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long long>(ms * 1000)));
  std::printf("%.3f ms at core %.0f kHz, uncore %.0f kHz\n", ms, fc, fu);
  return 0;
}
