#include "program.hpp"

#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>

#include "runtime.hpp"

namespace kernels {

namespace {

std::string program_name(const char* argv0) {
  const std::string s = argv0 ? argv0 : "kernel";
  const auto slash = s.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

std::string time_line(double seconds) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "time_s=%.6f", seconds);
  return buf;
}

// Runs the kernel in its runtime and prints the timing (stderr, and
// --time-file) and the verdict (stdout). Returns the exit status: 0 or 1.
int run_and_report(const std::string& prog, const Options& opts, const Kernel& kernel) {
  RuntimeScope runtime(opts.threads);
  KernelTimer timer;
  const Outcome out = kernel.run(opts, timer);
  const std::string t = time_line(timer.seconds());
  char cpu[48];
  std::snprintf(cpu, sizeof cpu, " cpu_s=%.6f", timer.cpu_seconds());
  std::cerr << prog << ": runtime=" << RuntimeScope::name() << " threads=" << runtime.threads() << " " << t << cpu
            << "\n";
  if (!opts.time_file.empty()) {
    std::ofstream f(opts.time_file);
    f << t << "\n";
    if (!f) throw std::runtime_error("cannot write --time-file '" + opts.time_file + "'");
  }
  std::cout << out.result_line << (out.check.ok ? " ok" : " FAILED") << std::endl;
  if (!out.check.ok) std::cerr << prog << ": self-check failed: " << out.check.problem << "\n";
  return out.check.ok ? 0 : 1;
}

int program_main(int argc, const char* const* argv, const Kernel& kernel) {
  const std::string prog = program_name(argc > 0 ? argv[0] : nullptr);
  Options opts;
  try {
    opts = parse_options(argc, argv, kernel.info);
  } catch (const UsageError& e) {
    std::cerr << prog << ": " << e.what() << "\n";
    return 2;
  }
  if (opts.help) {
    std::cout << usage(prog, kernel.info);
    return 0;
  }
  try {
    return run_and_report(prog, opts, kernel);
  } catch (const UsageError& e) {
    std::cerr << prog << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << prog << ": error: " << e.what() << "\n";
    return 3;
  }
}

}  // namespace

}  // namespace kernels

// Every kernel program's main: the kernel is the one its <name>_main.cpp defines.
int main(int argc, char** argv) { return kernels::program_main(argc, argv, kernels::kKernel); }
