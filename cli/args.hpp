// A small command-line parser shared by the subcommands: --name value,
// --name=value, boolean flags, positionals, and "--" ending the options.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace rubato::cli {

// Thrown for bad usage; main prints it with the subcommand's usage line and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  // `flags`: options without a value (e.g. "json"); `valued`: options with one.
  // Anything else starting with "--" is refused ("help" is always a flag).
  Args(const std::vector<std::string>& argv, const std::vector<std::string>& flags,
       const std::vector<std::string>& valued = {});

  bool flag(const std::string& name) const { return flags_.count(name) > 0; }
  std::optional<std::string> value(const std::string& name) const;
  std::vector<std::string> values(const std::string& name) const;  // repeated options
  // Every value of a repeated option, each split at commas ("--w 2,4 --w 8" -> 2, 4, 8).
  std::vector<std::string> list_values(const std::string& name) const;
  std::string value_or(const std::string& name, const std::string& fallback) const;
  const std::vector<std::string>& positionals() const { return positionals_; }
  const std::vector<std::string>& after_dashdash() const { return rest_; }

 private:
  std::map<std::string, std::vector<std::string>> values_;
  std::map<std::string, int> flags_;
  std::vector<std::string> positionals_;
  std::vector<std::string> rest_;
};

double parse_number(const std::string& option, const std::string& text, double lo, double hi);
long long parse_integer(const std::string& option, const std::string& text, long long lo, long long hi);
std::vector<std::string> split(const std::string& text, char sep);

}  // namespace rubato::cli
