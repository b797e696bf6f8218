#include "args.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace rubato::cli {

Args::Args(const std::vector<std::string>& argv, const std::vector<std::string>& flags,
           const std::vector<std::string>& valued) {
  auto is_flag = [&](const std::string& n) { return n == "help" || std::find(flags.begin(), flags.end(), n) != flags.end(); };
  auto is_valued = [&](const std::string& n) { return std::find(valued.begin(), valued.end(), n) != valued.end(); };
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--") {
      rest_.assign(argv.begin() + static_cast<std::ptrdiff_t>(i) + 1, argv.end());
      return;
    }
    if (a.size() > 2 && a.rfind("--", 0) == 0) {
      std::string name = a.substr(2);
      std::optional<std::string> inline_value;
      if (auto eq = name.find('='); eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
      if (is_flag(name)) {
        if (inline_value) throw UsageError("--" + name + " takes no value");
        ++flags_[name];
        continue;
      }
      if (!is_valued(name)) throw UsageError("unknown option --" + name);
      if (inline_value) {
        values_[name].push_back(*inline_value);
      } else if (i + 1 < argv.size()) {
        values_[name].push_back(argv[++i]);
      } else {
        throw UsageError("--" + name + " needs a value");
      }
      continue;
    }
    if (a == "-h") {
      ++flags_["help"];
      continue;
    }
    if (a == "-o" && is_valued("out")) {  // the one short option rubato uses: -o DIR
      if (i + 1 >= argv.size()) throw UsageError("-o needs a value");
      values_["out"].push_back(argv[++i]);
      continue;
    }
    positionals_.push_back(a);
  }
}

std::optional<std::string> Args::value(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  if (it->second.size() > 1) throw UsageError("--" + name + " given more than once");
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
    throw UsageError(option + " '" + text + "' is not a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

long long parse_integer(const std::string& option, const std::string& text, long long lo, long long hi) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
    throw UsageError(option + " '" + text + "' is not an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
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
