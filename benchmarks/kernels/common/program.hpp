// The skeleton every kernel program shares: main() is program.cpp's, and a
// kernel supplies only its descriptor, `kernels::kKernel` (its command line
// and its body), in its <name>_main.cpp. main() parses the command line, sets
// up the runtime, lets the kernel generate its input, time its parallel part
// and check its result, then prints
//   stdout: "<result line> ok" or "<result line> FAILED"  (deterministic)
//   stderr: "<program>: runtime=R threads=T time_s=S cpu_s=C" and diagnostics
// Exit status: 0 check passed, 1 check failed, 2 usage error, 3 runtime error.
#pragma once

#include <chrono>
#include <ctime>
#include <functional>
#include <string>

#include "checks.hpp"
#include "cli.hpp"

namespace kernels {

// Times the kernel proper (not input generation, not the check): wall time,
// and the process's CPU time over the same interval (all threads; with
// OpenMP it includes workers spinning while idle).
class KernelTimer {
 public:
  template <class F>
  decltype(auto) measure(F&& kernel) {
    struct Stop {
      KernelTimer& self;
      std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
      std::clock_t c0 = std::clock();
      ~Stop() {
        self.seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        self.cpu_seconds_ += static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
      }
    } stop{*this};
    return kernel();
  }
  double seconds() const noexcept { return seconds_; }
  double cpu_seconds() const noexcept { return cpu_seconds_; }

 private:
  double seconds_ = 0;
  double cpu_seconds_ = 0;
};

struct Outcome {
  std::string result_line;  // "knn: n=... checksum=..." without the verdict
  CheckResult check;
};

using KernelBody = std::function<Outcome(const Options&, KernelTimer&)>;

// What differs between the kernel programs.
struct Kernel {
  KernelInfo info;  // the command line: name, --help text, defaults, extra options
  KernelBody run;   // generates the input, times the kernel with the timer, checks the result
};

// Defined once per program, by the kernel's <name>_main.cpp.
extern const Kernel kKernel;

}  // namespace kernels
