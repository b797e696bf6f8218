#include "rubato/power/machine/profile.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "rubato/core/io/json_error.hpp"
#include "rubato/power/machine/topology.hpp"

namespace rubato {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr std::size_t kMaxProfileBytes = 1 << 20;

// Reads in small chunks: sizing the buffer to the cap up front zeroed (and
// page-faulted) a megabyte per profile at every tool start.
bool read_small_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.clear();
  char chunk[4096];
  while (out.size() <= kMaxProfileBytes && in.read(chunk, sizeof chunk).gcount() > 0)
    out.append(chunk, static_cast<std::size_t>(in.gcount()));
  return out.size() <= kMaxProfileBytes;
}

// Reads one field with a message naming it when it has the wrong type or range.
class FieldReader {
 public:
  FieldReader(const json& j, std::string& error) : j_(j), error_(error) {}
  bool ok() const { return error_.empty(); }

  void number(const char* key, double& out, double lo, double hi, bool required) {
    const auto it = j_.find(key);
    if (!ok() || it == j_.end()) {
      if (ok() && required) fail(key, "missing");
      return;
    }
    if (!it->is_number()) return fail(key, "expected a number");
    const double v = it->get<double>();
    if (!(v >= lo && v <= hi)) return fail(key, "out of range");
    out = v;
  }
  void integer(const char* key, int& out, int lo, int hi, bool required) {
    double v = out;
    number(key, v, lo, hi, required);
    if (ok() && v != static_cast<int>(v)) fail(key, "expected an integer");
    out = static_cast<int>(v);
  }
  void text(const char* key, std::string& out, bool required) {
    const auto it = j_.find(key);
    if (!ok() || it == j_.end()) {
      if (ok() && required) fail(key, "missing");
      return;
    }
    if (!it->is_string()) return fail(key, "expected a string");
    out = it->get<std::string>();
  }
  void fail(const std::string& key, const std::string& what) {
    if (ok()) error_ = "field '" + key + "': " + what;
  }

 private:
  const json& j_;
  std::string& error_;
};

// Honesty rule (docs/design.md "Honesty rules"): every number a profile gives says where it comes from.
void require_sources(const MachineProfile& p, std::string& error) {
  std::vector<std::string> needed = {
      "cores", "cores_per_domain",    "frequencies_hz", "core_power.busy_w", "core_power.idle_w", "uncore_w",
      "beta",  "transition_latency_s"};
  if (!p.active_cores_power_w.empty()) needed.push_back("active_cores_power_w");
  if (p.memory_accesses_per_s > 0) needed.push_back("memory_accesses_per_s");
  if (!p.uncore_power.empty()) needed.push_back("uncore_power");
  if (p.uncore_transition_latency_s) needed.push_back("uncore_transition_latency_s");
  if (p.memory_bandwidth_knee_hz) needed.push_back("memory_bandwidth_knee_hz");
  if (p.memory_transaction_rate_saturated_per_s) needed.push_back("memory_transaction_rate_saturated_per_s");
  for (const auto& key : needed) {
    const auto it = p.sources.find(key);
    if (it == p.sources.end() || it->second.empty()) {
      error = "field 'sources': no source given for '" + key + "' (every number needs one)";
      return;
    }
  }
}

void parse_core_power(const json& j, MachineProfile& p, std::string& error) {
  const auto it = j.find("core_power");
  if (it == j.end() || !it->is_array() || it->empty()) {
    error = "field 'core_power': expected a non-empty array of {hz, busy_w, idle_w}";
    return;
  }
  for (std::size_t i = 0; i < it->size() && error.empty(); ++i) {
    const json& point = (*it)[i];
    if (!point.is_object()) {
      error = "field 'core_power[" + std::to_string(i) + "]': expected an object";
      return;
    }
    CorePowerPoint c;
    FieldReader r(point, error);
    r.number("hz", c.hz, 1e6, 1e11, true);
    r.number("busy_w", c.busy_w, 0, 1e4, true);
    r.number("idle_w", c.idle_w, 0, 1e4, true);
    if (!error.empty()) error = "core_power[" + std::to_string(i) + "]: " + error;
    p.core_power.push_back(c);
  }
  std::sort(p.core_power.begin(), p.core_power.end(), [](const auto& a, const auto& b) { return a.hz > b.hz; });
}

void parse_uncore_power(const json& j, MachineProfile& p, std::string& error) {
  const auto it = j.find("uncore_power");
  if (it == j.end()) return;
  if (!it->is_array()) {
    error = "field 'uncore_power': expected an array of {hz, w}";
    return;
  }
  for (std::size_t i = 0; i < it->size() && error.empty(); ++i) {
    const json& point = (*it)[i];
    if (!point.is_object()) {
      error = "field 'uncore_power[" + std::to_string(i) + "]': expected an object";
      return;
    }
    UncorePowerPoint u;
    FieldReader r(point, error);
    r.number("hz", u.hz, 1e6, 1e11, true);
    r.number("w", u.w, 0, 1e5, true);
    if (!error.empty()) error = "uncore_power[" + std::to_string(i) + "]: " + error;
    p.uncore_power.push_back(u);
  }
  std::sort(p.uncore_power.begin(), p.uncore_power.end(), [](const auto& a, const auto& b) { return a.hz > b.hz; });
}

void parse_uncore_transition_latency(const json& j, MachineProfile& p, std::string& error) {
  if (!j.contains("uncore_transition_latency_s")) return;
  double latency_s = 0;
  FieldReader(j, error).number("uncore_transition_latency_s", latency_s, 0, 1, true);
  if (error.empty()) p.uncore_transition_latency_s = latency_s;
}

void parse_memory_bandwidth_knee(const json& j, MachineProfile& p, std::string& error) {
  if (!j.contains("memory_bandwidth_knee_hz")) return;
  double knee_hz = 0;
  FieldReader(j, error).number("memory_bandwidth_knee_hz", knee_hz, 1e6, 1e11, true);
  if (error.empty()) p.memory_bandwidth_knee_hz = knee_hz;
}

void parse_saturated_transaction_rate(const json& j, MachineProfile& p, std::string& error) {
  if (!j.contains("memory_transaction_rate_saturated_per_s")) return;
  double rate = 0;
  FieldReader(j, error).number("memory_transaction_rate_saturated_per_s", rate, 1, 1e15, true);
  if (error.empty()) p.memory_transaction_rate_saturated_per_s = rate;
}

void parse_number_list(const json& j, const char* key, double lo, double hi, std::vector<double>& out,
                       std::string& error) {
  const auto it = j.find(key);
  if (it == j.end()) return;
  if (!it->is_array()) {
    error = std::string("field '") + key + "': expected an array of numbers";
    return;
  }
  for (const json& v : *it) {
    if (!v.is_number() || !(v.get<double>() >= lo && v.get<double>() <= hi)) {
      error = std::string("field '") + key + "': every element must be a number in range";
      return;
    }
    out.push_back(v.get<double>());
  }
}

void parse_cpu_model_match(const json& j, MachineProfile& p, std::string& error) {
  const auto m = j.find("cpu_model_match");
  if (m == j.end()) return;
  if (!m->is_array()) error = "field 'cpu_model_match': expected an array of strings";
  for (const json& s : *m) {
    if (!s.is_string() || s.get<std::string>().empty()) {
      error = "field 'cpu_model_match': expected non-empty strings";
      break;
    }
    p.cpu_model_match.push_back(s.get<std::string>());
  }
}

void parse_sources(const json& j, MachineProfile& p, std::string& error) {
  const auto s = j.find("sources");
  if (s == j.end() || !s->is_object()) {
    error = "field 'sources': expected an object naming where each number comes from";
    return;
  }
  for (const auto& [key, value] : s->items()) {
    if (!value.is_string()) {
      error = "field 'sources." + key + "': expected a string";
      break;
    }
    p.sources[key] = value.get<std::string>();
  }
}

// "not_measured": {"field": "why", ...}, optional.
void parse_not_measured(const json& j, MachineProfile& p, std::string& error) {
  const auto it = j.find("not_measured");
  if (it == j.end()) return;
  if (!it->is_object()) {
    error = "field 'not_measured': expected an object naming each field not measured and why";
    return;
  }
  for (const auto& [key, value] : it->items()) {
    if (key.empty() || !value.is_string() || value.get<std::string>().empty()) {
      error = "field 'not_measured." + key + "': expected a non-empty string saying why";
      return;
    }
    p.not_measured[key] = value.get<std::string>();
  }
}

}  // namespace

std::optional<MachineProfile> parse_profile(const std::string& json_text, const std::string& origin,
                                            std::string& error) {
  error.clear();
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::exception& e) {
    error = origin + ": " + json_syntax_error(json_text, e);
    return std::nullopt;
  }
  if (!j.is_object()) {
    error = origin + ": expected a JSON object";
    return std::nullopt;
  }
  MachineProfile p;
  FieldReader r(j, error);
  r.text("name", p.name, true);
  r.text("description", p.description, false);
  r.text("unreliable", p.unreliable, false);
  r.integer("cores", p.cores, 1, 1 << 20, true);
  r.integer("cores_per_domain", p.cores_per_domain, 1, 1 << 20, true);
  r.number("uncore_w", p.uncore_w, 0, 1e5, true);
  r.number("beta", p.beta, 0, 1, true);
  r.number("transition_latency_s", p.transition_latency_s, 0, 1, false);
  r.number("memory_accesses_per_s", p.memory_accesses_per_s, 0, 1e13, false);
  if (error.empty()) parse_number_list(j, "frequencies_hz", 1e6, 1e11, p.frequencies_hz, error);
  if (error.empty() && p.frequencies_hz.empty()) error = "field 'frequencies_hz': missing or empty";
  if (error.empty()) parse_number_list(j, "active_cores_power_w", 0, 1e5, p.active_cores_power_w, error);
  if (error.empty()) parse_core_power(j, p, error);
  if (error.empty()) parse_uncore_power(j, p, error);
  if (error.empty()) parse_uncore_transition_latency(j, p, error);
  if (error.empty()) parse_memory_bandwidth_knee(j, p, error);
  if (error.empty()) parse_saturated_transaction_rate(j, p, error);
  if (error.empty()) parse_cpu_model_match(j, p, error);
  if (error.empty()) parse_not_measured(j, p, error);
  if (error.empty()) parse_sources(j, p, error);
  if (error.empty()) require_sources(p, error);
  if (!error.empty()) {
    error = origin + ": " + error;
    return std::nullopt;
  }
  std::sort(p.frequencies_hz.begin(), p.frequencies_hz.end(), std::greater<>());
  p.frequencies_hz.erase(std::unique(p.frequencies_hz.begin(), p.frequencies_hz.end()), p.frequencies_hz.end());
  return p;
}

double uncore_transition_latency_s(const MachineProfile& profile) noexcept {
  return profile.uncore_transition_latency_s.value_or(kDefaultUncoreTransitionLatencyS);
}

std::string uncore_transition_latency_source(const MachineProfile& profile) {
  const auto it = profile.sources.find("uncore_transition_latency_s");
  if (profile.uncore_transition_latency_s && it != profile.sources.end()) return it->second;
  return kDefaultUncoreTransitionLatencySource;
}

std::vector<std::string> profile_search_dirs(const std::string& profile_dir) {
  std::vector<std::string> dirs;
  if (!profile_dir.empty()) dirs.push_back(profile_dir);
#ifdef RUBATO_INSTALL_PROFILES_DIR
  dirs.push_back(RUBATO_INSTALL_PROFILES_DIR);
#endif
#ifdef RUBATO_SOURCE_PROFILES_DIR
  dirs.push_back(RUBATO_SOURCE_PROFILES_DIR);
#endif
  return dirs;
}

std::vector<std::string> profile_search_dirs() {
  const char* env = std::getenv("RUBATO_PROFILE_DIR");
  return profile_search_dirs(env ? env : "");
}

std::optional<MachineProfile> load_profile(const std::string& name_or_path, const std::vector<std::string>& dirs,
                                           std::string& error) {
  const bool is_path =
      name_or_path.find('/') != std::string::npos || (name_or_path.size() > 5 && name_or_path.ends_with(".json"));
  std::vector<std::string> candidates;
  if (is_path) candidates.push_back(name_or_path);
  else
    for (const auto& d : dirs) candidates.push_back(d + "/" + name_or_path + ".json");
  for (const auto& path : candidates) {
    std::string text;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) continue;
    if (!read_small_file(path, text)) {
      error = path + ": unreadable or larger than 1 MiB";
      return std::nullopt;
    }
    return parse_profile(text, path, error);
  }
  std::string where;
  for (const auto& d : dirs) where += (where.empty() ? "" : ", ") + d;
  error = is_path ? "profile file '" + name_or_path + "' not found"
                  : "profile '" + name_or_path + "' not found in " + (where.empty() ? "(no directory)" : where);
  return std::nullopt;
}

std::optional<MachineProfile> load_profile(const std::string& name_or_path, std::string& error) {
  return load_profile(name_or_path, profile_search_dirs(), error);
}

std::vector<std::string> list_profiles(const std::vector<std::string>& dirs) {
  std::vector<std::string> names;
  for (const auto& d : dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() != ".json") continue;
      const std::string stem = it->path().stem().string();
      if (std::find(names.begin(), names.end(), stem) == names.end()) names.push_back(stem);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> list_profiles() { return list_profiles(profile_search_dirs()); }

ChosenProfile auto_profile(const std::string& cpu_model, const std::vector<std::string>& dirs) {
  ChosenProfile generic{"generic", std::nullopt};
  if (cpu_model.empty()) return generic;
  for (const auto& name : list_profiles(dirs)) {
    std::string error;
    auto p = load_profile(name, dirs, error);
    if (!p) continue;
    for (const auto& needle : p->cpu_model_match)
      if (cpu_model.find(needle) != std::string::npos) return ChosenProfile{name, std::move(p)};
    if (name == "generic") generic.profile = std::move(p);
  }
  return generic;
}

std::string auto_profile_name(const std::string& cpu_model, const std::vector<std::string>& dirs) {
  return auto_profile(cpu_model, dirs).name;
}

ChosenProfile resolve_profile(const std::string& setting, const std::string& cpu_model,
                              const std::vector<std::string>& dirs, std::string& error) {
  ChosenProfile chosen = setting == "auto" ? auto_profile(cpu_model, dirs) : ChosenProfile{setting, std::nullopt};
  if (!chosen.profile) chosen.profile = load_profile(chosen.name, dirs, error);
  return chosen;
}

ChosenProfile resolve_profile(const std::string& setting, const std::vector<std::string>& dirs, std::string& error) {
  return resolve_profile(setting, setting == "auto" ? read_cpu_model() : std::string(), dirs, error);
}

}  // namespace rubato
