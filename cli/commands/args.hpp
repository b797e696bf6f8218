// The subcommands' command lines, parsed by CLI11 from a table of options per
// subcommand (its CommandSpec): --name value, --name=value, boolean flags,
// repeated options, positionals, "--" ending the options, and a --help that
// lists every option with what it does, its default and its accepted values,
// grouped. Values are checked by the subcommands (parse_number and the like),
// whose messages name the option.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace rubato::cli {

// Thrown for bad usage; main prints it with the subcommand's usage and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Help sections, in the order --help lists them.
inline constexpr const char* kWhatToRun = "What to run";
inline constexpr const char* kHowToMeasure = "How to measure";
inline constexpr const char* kWhereResultsGo = "Where results go";
inline constexpr const char* kOutputFormat = "Output format";

struct OptionSpec {
  std::string name;          // long name, without "--"
  std::string group;         // one of the sections above
  std::string help;          // what it does, one line
  std::string value_name;    // placeholder in the usage ("N", "DIR"); empty: a flag (no value)
  std::string default_text;  // "" when there is none (or it is computed: say so in `help`)
  std::string accepted;      // accepted values, "" for flags
  bool repeatable = false;   // may be given several times (every value kept)
  char short_name = 0;       // e.g. 'o'
};

struct CommandSpec {
  std::string name;            // "compare"
  std::string summary;         // one line, as `rubato --help` lists it
  std::string positionals;     // what goes before the options' end ("DIR|REPORT..."), "" for none
  std::string after_dashdash;  // what goes after "--" ("PROGRAM ARGS"), "" for nothing
  std::vector<OptionSpec> options;
  std::string footer;  // environment and notes, after the options
};

// `a` followed by `b` (option tables sharing options).
inline std::vector<OptionSpec> with(std::vector<OptionSpec> a, const std::vector<OptionSpec>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The whole --help text of a subcommand.
std::string help_text(const CommandSpec& spec);
// Lines for a bash completion script: the subcommand's options.
std::vector<std::string> option_names(const CommandSpec& spec);

class Args {
 public:
  // Throws UsageError for an unknown option, a missing value, a value given
  // to a flag, or an option given twice that is not repeatable.
  Args(const std::vector<std::string>& argv, const CommandSpec& spec);

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
