#include "cli.hpp"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace kernels {

std::uint64_t parse_unsigned(const std::string& option, const std::string& value) {
  if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError("--" + option + ": expected a non-negative integer, got '" + value + "'");
  errno = 0;
  const unsigned long long v = std::strtoull(value.c_str(), nullptr, 10);
  if (errno == ERANGE) throw UsageError("--" + option + ": '" + value + "' is out of range");
  return v;
}

double parse_real(const std::string& option, const std::string& value) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || errno == ERANGE)
    throw UsageError("--" + option + ": expected a number, got '" + value + "'");
  return v;
}

std::string Options::text(const std::string& name) const {
  const auto it = extras.find(name);
  if (it == extras.end()) throw std::logic_error("kernel option --" + name + " was never declared");
  return it->second;
}

std::uint64_t Options::integer(const std::string& name) const { return parse_unsigned(name, text(name)); }

double Options::real(const std::string& name) const { return parse_real(name, text(name)); }

Options parse_options(int argc, const char* const* argv, const KernelInfo& info) {
  Options o;
  o.n = info.default_n;
  o.grain = info.default_grain;
  for (const ExtraOption& e : info.extras) o.extras[e.name] = e.default_value;

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + arg + "'");
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      has_value = true;
    }
    if (name == "help" || name == "inject-fault") {
      if (has_value) throw UsageError("--" + name + " takes no value");
      (name == "help" ? o.help : o.inject_fault) = true;
      continue;
    }
    const bool known = name == "n" || name == "seed" || (name == "grain" && info.default_grain != 0) ||
                       name == "threads" || name == "time-file" || o.extras.count(name) != 0;
    if (!known) throw UsageError("unknown option --" + name + " (see --help)");
    if (!has_value) {
      if (i + 1 >= argc) throw UsageError("--" + name + " needs a value");
      value = argv[++i];
    }
    if (name == "n") {
      o.n = parse_unsigned(name, value);
      if (o.n < info.min_n) throw UsageError("--n must be at least " + std::to_string(info.min_n));
    } else if (name == "seed") {
      o.seed = parse_unsigned(name, value);
    } else if (name == "grain" && info.default_grain != 0) {
      o.grain = parse_unsigned(name, value);
      if (o.grain == 0) throw UsageError("--grain must be at least 1");
    } else if (name == "threads") {
      const std::uint64_t t = parse_unsigned(name, value);
      if (t == 0 || t > 4096) throw UsageError("--threads must be in 1..4096");
      o.threads = static_cast<int>(t);
    } else if (name == "time-file") {
      o.time_file = value;
    } else {
      o.extras[name] = value;
    }
  }
  return o;
}

std::string usage(const std::string& program, const KernelInfo& info) {
  std::ostringstream s;
  s << program << ": " << info.summary << "\n\n"
    << "usage: " << program << " [--n N] [--seed S]" << (info.default_grain ? " [--grain G]" : "")
    << " [--threads T] [--time-file F]";
  for (const ExtraOption& e : info.extras) s << " [--" << e.name << " V]";
  s << "\n\n"
    << "  --n N          " << info.n_help << " (default " << info.default_n << ")\n"
    << "  --seed S       input seed (default 1)\n";
  if (info.default_grain) s << "  --grain G      " << info.grain_help << " (default " << info.default_grain << ")\n";
  s << "  --threads T    worker threads (default: OMP_NUM_THREADS / the TBB default)\n"
    << "  --time-file F  also write the kernel time (time_s=...) to F\n";
  for (const ExtraOption& e : info.extras) {
    const std::string flag = "  --" + e.name + " V";
    s << flag << std::string(flag.size() < 17 ? 17 - flag.size() : 1, ' ') << e.help << " (default " << e.default_value
      << ")\n";
  }
  s << "\nstdout: one deterministic result line ending in 'ok' (exit 0) or 'FAILED' (exit 1);\n"
    << "stderr: timing and diagnostics. Usage errors exit 2, runtime errors 3.\n";
  return s.str();
}

}  // namespace kernels
