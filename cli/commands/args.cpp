#include "commands/args.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <memory>

namespace rubato::cli {

namespace {

const char* const kGroups[] = {kWhatToRun, kHowToMeasure, kWhereResultsGo, kOutputFormat};

std::string option_flags(const OptionSpec& o) {
  std::string f;
  if (o.short_name) f = std::string("-") + o.short_name + ",";
  return f + "--" + o.name;
}

// "what it does (default: X; accepted: Y)"
std::string described(const OptionSpec& o) {
  std::string d = o.help;
  std::string extra;
  if (!o.default_text.empty()) extra = "default: " + o.default_text;
  if (!o.accepted.empty()) extra += (extra.empty() ? "" : "; ") + std::string("accepted: ") + o.accepted;
  if (o.repeatable) extra += (extra.empty() ? "" : "; ") + std::string("repeatable");
  return extra.empty() ? d : d + " (" + extra + ")";
}

// The CLI11 application of a subcommand, its options bound to `values` /
// `flags` (by name) and `positionals`.
std::unique_ptr<CLI::App> make_app(const CommandSpec& spec, std::map<std::string, std::vector<std::string>>& values,
                                   std::map<std::string, std::int64_t>& flags, std::vector<std::string>& positionals) {
  // CLI11 2.1 has no custom usage line: what goes after "--" is said under the summary.
  std::string description = spec.summary;
  if (!spec.after_dashdash.empty())
    description += "\nrubato " + spec.name + (spec.positionals.empty() ? "" : " " + spec.positionals) +
                   " [OPTIONS] -- " + spec.after_dashdash;
  auto app = std::make_unique<CLI::App>(description, "rubato " + spec.name);
  app->set_help_flag("-h,--help", "print this help and exit");
  app->get_formatter()->column_width(34);
  if (!spec.footer.empty()) app->footer(spec.footer);
  // Sections in a fixed order, whatever the order of the table.
  for (const char* group : kGroups)
    for (const OptionSpec& o : spec.options) {
      if (o.group != group) continue;
      if (o.value_name.empty()) {
        app->add_flag(option_flags(o), flags[o.name], described(o))->group(group);
      } else {
        app->add_option(option_flags(o), values[o.name], described(o))
            ->group(group)
            ->type_name(o.value_name)
            ->expected(1)
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
            ->allow_extra_args(false);
      }
    }
  if (!spec.positionals.empty()) app->add_option(spec.positionals, positionals, "what to work on")->type_name("");
  return app;
}

}  // namespace

std::string help_text(const CommandSpec& spec) {
  std::map<std::string, std::vector<std::string>> values;
  std::map<std::string, std::int64_t> flags;
  std::vector<std::string> positionals;
  return make_app(spec, values, flags, positionals)->help();
}

std::vector<std::string> option_names(const CommandSpec& spec) {
  std::vector<std::string> out{"--help"};
  for (const OptionSpec& o : spec.options) out.push_back("--" + o.name);
  return out;
}

Args::Args(const std::vector<std::string>& argv, const CommandSpec& spec) {
  // "--" ends the options: what follows is the program's own command line.
  std::vector<std::string> before = argv;
  if (const auto dd = std::find(argv.begin(), argv.end(), "--"); dd != argv.end()) {
    before.assign(argv.begin(), dd);
    rest_.assign(dd + 1, argv.end());
  }
  std::map<std::string, std::int64_t> counts;
  const auto app = make_app(spec, values_, counts, positionals_);
  app->allow_windows_style_options(false);
  // CLI11 parses a reversed vector (it pops from the back).
  std::vector<std::string> reversed(before.rbegin(), before.rend());
  try {
    app->parse(reversed);
  } catch (const CLI::CallForHelp&) {
    flags_["help"] = 1;
    return;
  } catch (const CLI::ExtrasError& e) {
    // What CLI11 could not place: the first is what the user typed wrong.
    const std::vector<std::string> extra = app->remaining();
    if (extra.empty()) throw UsageError(e.what());
    if (extra.front().rfind('-', 0) == 0) throw UsageError("unknown option " + extra.front());
    throw UsageError("unexpected argument '" + extra.front() + "'" +
                     (spec.after_dashdash.empty() ? "" : " (the program goes after --)"));
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what());
  }
  for (const auto& [name, n] : counts)
    if (n > 0) flags_[name] = static_cast<int>(n);
  for (auto it = values_.begin(); it != values_.end();) it = it->second.empty() ? values_.erase(it) : std::next(it);
  for (const OptionSpec& o : spec.options)
    if (!o.repeatable && values(o.name).size() > 1) throw UsageError("--" + o.name + " given more than once");
}

std::optional<std::string> Args::value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second.front();
}

std::vector<std::string> Args::values(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::vector<std::string> Args::list_values(const std::string& name) const {
  std::vector<std::string> out;
  for (const std::string& v : values(name))
    for (const std::string& item : split(v, ','))
      if (!item.empty()) out.push_back(item);
  return out;
}

std::string Args::value_or(const std::string& name, const std::string& fallback) const {
  return value(name).value_or(fallback);
}

double parse_number(const std::string& option, const std::string& text, double lo, double hi) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < lo || v > hi)
    throw UsageError(option + " '" + text + "' is not a number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "]");
  return v;
}

long long parse_integer(const std::string& option, const std::string& text, long long lo, long long hi) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
    throw UsageError(option + " '" + text + "' is not an integer in [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
  return v;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto at = text.find(sep, start);
    out.push_back(text.substr(start, at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return out;
}

}  // namespace rubato::cli
