#include "rubato/core/config/settings.hpp"

#include <fstream>
#include <sstream>

#include "rubato/core/config/config_table.hpp"
#include "config/value_parsers.hpp"

namespace rubato {
namespace {

constexpr std::size_t kMaxShownValue = 80;
constexpr std::size_t kMaxConfigFileBytes = 1 << 20;

// `v` for a one-line message: printable, at most `max` characters.
std::string shown(std::string_view v, std::size_t max = kMaxShownValue) {
  std::string out;
  for (char c : v.substr(0, max)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (v.size() > max) out += "...";
  return out;
}

void apply_one(const ConfigKey& key, std::string_view name, std::string_view value, Settings& out, Diagnostics& diag) {
  std::string why;
  if (key.apply(out, value, why)) return;
  std::string line = "rubato: " + std::string(name) + "='" + shown(value) + "' is not accepted";
  if (!why.empty()) line += " (" + shown(why, 2 * kMaxShownValue) + ")";  // it may quote the value
  line += "; accepted: " + std::string(key.accepted) + "; using the default " + std::string(key.default_text);
  diag.add(std::move(line));
}

// RUBATO_CORE_SENSITIVITY is RUBATO_BETA's newer name; the two shares of the
// work's time may not sum above 1 (rubato/core/model/work_sensitivity.hpp).
void reconcile_sensitivities(Settings& out, Diagnostics& diag) {
  if (out.core_sensitivity >= 0) {
    if (out.beta >= 0 && out.beta != out.core_sensitivity)
      diag.add("rubato: RUBATO_CORE_SENSITIVITY=" + std::to_string(out.core_sensitivity) +
               " and RUBATO_BETA=" + std::to_string(out.beta) +
               " disagree (RUBATO_BETA is the older name of the same share); using RUBATO_CORE_SENSITIVITY");
    out.beta = out.core_sensitivity;
  }
  if (out.beta >= 0 && out.uncore_sensitivity >= 0 && out.beta + out.uncore_sensitivity > 1 + 1e-9) {
    diag.add("rubato: RUBATO_CORE_SENSITIVITY (or RUBATO_BETA) " + std::to_string(out.beta) +
             " plus RUBATO_UNCORE_SENSITIVITY " + std::to_string(out.uncore_sensitivity) +
             " is above 1; accepted: two shares of the work's time that sum to at most 1; using the default for "
             "RUBATO_UNCORE_SENSITIVITY (from counters or the profile)");
    out.uncore_sensitivity = -1;
  }
}

}  // namespace

void apply_config_text(std::string_view text, std::string_view origin, Settings& out, Diagnostics& diag) {
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = detail::trim(line);
    if (line.empty()) continue;
    const std::string where = std::string(origin) + ":" + std::to_string(line_no);
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) {
      diag.add("rubato: " + where + ": expected 'key = value', got '" + shown(line) + "'; line ignored");
      continue;
    }
    const std::string_view key = detail::trim(line.substr(0, eq));
    const std::string_view value = detail::trim(line.substr(eq + 1));
    const ConfigKey* k = find_config_key_by_file_key(key);
    if (!k) {
      diag.add("rubato: " + where + ": unknown key '" + shown(key) + "' (rubato config lists the keys); ignored");
      continue;
    }
    apply_one(*k, where + ": " + std::string(key), value, out, diag);
  }
}

Settings load_settings(const Environment& env, Diagnostics& diag) {
  Settings out;
  for (const auto& [name, value] : env) {
    if (name != "RUBATO_CONFIG") continue;
    std::ifstream in(value, std::ios::binary);
    if (!in) {
      diag.add("rubato: RUBATO_CONFIG='" + shown(value) + "' cannot be read; using no config file");
      break;
    }
    std::string text(kMaxConfigFileBytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxConfigFileBytes) {
      diag.add("rubato: RUBATO_CONFIG='" + shown(value) + "' is larger than 1 MiB; using no config file");
      break;
    }
    apply_config_text(text, value, out, diag);
  }
  for (const auto& [name, value] : env) {
    if (name.rfind("RUBATO_", 0) != 0 || name == "RUBATO_CONFIG") continue;
    if (const ConfigKey* k = find_config_key_by_env(name)) {
      apply_one(*k, name, value, out, diag);
    } else {
      diag.add("rubato: unknown variable " + shown(name) + " ignored (rubato config lists the variables)");
    }
  }
  reconcile_sensitivities(out, diag);
  return out;
}

}  // namespace rubato
