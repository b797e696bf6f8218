// Command line of every kernel program:
//   --n N --seed S [--grain G] [--threads T] [--time-file F] [kernel options] [--help]
// plus the hidden --inject-fault used by the tests to prove the self-checks.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace kernels {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A kernel-specific option: `--name VALUE`, with its default as text.
struct ExtraOption {
  std::string name;
  std::string default_value;
  std::string help;
};

struct KernelInfo {
  std::string name;     // "knn"
  std::string summary;  // one line for --help
  std::string n_help;   // what --n counts
  std::uint64_t default_n = 0;
  std::uint64_t min_n = 1;
  std::uint64_t default_grain = 0;  // 0: the kernel has no --grain
  std::string grain_help;
  std::vector<ExtraOption> extras;
};

struct Options {
  std::uint64_t n = 0;
  std::uint64_t seed = 1;
  std::uint64_t grain = 0;
  int threads = 0;  // 0: the runtime's default (OMP_NUM_THREADS, TBB's default)
  std::string time_file;
  bool inject_fault = false;
  bool help = false;

  std::string text(const std::string& name) const;
  std::uint64_t integer(const std::string& name) const;
  double real(const std::string& name) const;

  std::map<std::string, std::string> extras;
};

// Throws UsageError naming the offending argument.
Options parse_options(int argc, const char* const* argv, const KernelInfo& info);

std::string usage(const std::string& program, const KernelInfo& info);

std::uint64_t parse_unsigned(const std::string& option, const std::string& value);
double parse_real(const std::string& option, const std::string& value);

}  // namespace kernels
