// Child process for the uncore kill / signal / restore tests: takes the
// intel_uncore_frequency domains of a fake tree with SysfsUncoreControl,
// moves every domain through the given frequencies (kHz), prints
// "ready <min_freq_khz of the first domain>" and then, by its mode argument:
//   wait   waits to be killed (SIGKILL, SIGTERM from the test);
//   crash  raises SIGSEGV itself (a fatal signal on its own thread);
//   exit   returns from main (the normal end: the destructor restores).
// usage: power_uncore_child <sysfs root> <state dir> <wait|crash|exit> <khz>...
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "rubato/power/frequency/uncore_control_sysfs.hpp"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s <sysfs root> <state dir> <wait|crash|exit> <khz>...\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[3];
  rubato::ManualClock clock;
  constexpr std::uint64_t kInterval = 10'000'000;  // the rate limit is followed, on a clock of its own
  rubato::SysfsUncoreControl uncore(rubato::read_topology(argv[1]), argv[2], &clock, kInterval);
  std::string why;
  if (!uncore.usable(why)) {
    std::fprintf(stderr, "not usable: %s\n", why.c_str());
    return 3;
  }
  for (int i = 4; i < argc; ++i) {
    const auto r = uncore.set_all_hz(std::atof(argv[i]) * 1e3);
    if (r.outcome == rubato::UncoreSetOutcome::failed) {
      std::fprintf(stderr, "set %s kHz failed: %s\n", argv[i], r.why.c_str());
      return 4;
    }
    clock.advance(kInterval);
  }
  std::ifstream in(std::string(argv[1]) + "/devices/system/cpu/intel_uncore_frequency/" + uncore.domain(0).name +
                   "/min_freq_khz");
  std::string khz;
  in >> khz;
  std::printf("ready %s\n", khz.c_str());
  std::fflush(stdout);
  if (mode == "crash") std::raise(SIGSEGV);
  if (mode == "exit") return 0;
  for (;;) pause();
}
