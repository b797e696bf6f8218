// `rubato model frequency`: what the core + uncore model says about work of
// given sensitivities on a machine profile — the time factor and energy ratio
// of every (core, uncore) level pair against the fastest, and the pair the
// chooser picks within the time-loss bound. Every figure is modelled.
#include "commands/cmd_model_frequency.hpp"

#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rubato/core/model/frequency_pair.hpp"
#include "rubato/power/energy/profile_frequency_model.hpp"
#include "rubato/power/machine/profile.hpp"
#include "render/text_table.hpp"

namespace rubato::cli {

std::vector<OptionSpec> model_frequency_option_specs() {
  return {
      {"core-sensitivity", kWhatToRun, "frequency: share of the work's time that scales with the core clock (b_c)", "S",
       "the profile's beta", "[0, 1]; b_c + b_u <= 1"},
      {"uncore-sensitivity", kWhatToRun,
       "frequency: share of the work's time spent moving data through the uncore at memory bandwidth (b_u)", "S", "0",
       "[0, 1]; b_c + b_u <= 1"},
      {"max-time-loss", kWhatToRun, "frequency: the chosen pair takes at most 1 + this times the fastest pair's time",
       "F", "0.05", "0..10"},
      {"workers", kWhatToRun, "frequency: workers running the work", "N", "the profile's cores", "1..65536"},
      {"waiting", kWhatToRun, "frequency: workers waiting meanwhile, at the slowest core level", "N", "0", "0..65536"},
  };
}

void reject_options_of(const Args& a, const std::vector<OptionSpec>& options, const std::string& owner) {
  for (const OptionSpec& o : options)
    if (a.value(o.name) || a.flag(o.name)) throw UsageError("--" + o.name + " belongs to `rubato model " + owner + "`");
}

namespace {

using json = nlohmann::json;

struct FrequencyOptions {
  MachineProfile profile;
  WorkSensitivity sensitivity;
  std::string sensitivity_source;  // where b_c came from
  double max_time_loss = kDefaultMaxTimeLoss;
  int workers = 1;
  int waiting = 0;
  bool json = false;
};

MachineProfile load_named_profile(const Args& a) {
  const auto name = a.value("profile");
  if (!name) throw UsageError("--profile is required (a name from power/profiles, e.g. haswell-e5-2650v3)");
  std::string error;
  auto profile = load_profile(*name, error);
  if (!profile) throw UsageError("--profile " + *name + ": " + error);
  return std::move(*profile);
}

FrequencyOptions setup(const Args& a) {
  if (a.positionals().size() > 1) throw UsageError("unexpected argument '" + a.positionals()[1] + "'");
  FrequencyOptions o;
  o.profile = load_named_profile(a);
  o.json = a.flag("json");
  o.sensitivity = default_sensitivity(o.profile);
  o.sensitivity_source = "the profile's beta";
  if (const auto v = a.value("core-sensitivity")) {
    o.sensitivity.core = parse_number("--core-sensitivity", *v, 0, 1);
    o.sensitivity_source = "--core-sensitivity";
  }
  if (const auto v = a.value("uncore-sensitivity"))
    o.sensitivity.uncore = parse_number("--uncore-sensitivity", *v, 0, 1);
  if (const std::string error = sensitivity_error(o.sensitivity); !error.empty())
    throw UsageError("--core-sensitivity / --uncore-sensitivity: " + error);
  if (const auto v = a.value("max-time-loss")) o.max_time_loss = parse_number("--max-time-loss", *v, 0, 10);
  o.workers = o.profile.cores;
  if (const auto v = a.value("workers")) o.workers = static_cast<int>(parse_integer("--workers", *v, 1, 65536));
  if (const auto v = a.value("waiting")) o.waiting = static_cast<int>(parse_integer("--waiting", *v, 0, 65536));
  return o;
}

// Every pair, core level major, and the chosen one.
struct Grid {
  std::vector<FrequencyPairEstimate> pairs;
  FrequencyPairEstimate chosen;
  std::size_t uncore_columns = 1;  // 1 without an uncore ladder
};

Grid evaluate(const FrequencyOptions& o, const FrequencyModel& model) {
  Grid g;
  g.uncore_columns = std::max<std::size_t>(1, model.uncore_levels());
  for (std::size_t c = 0; c < model.core_levels(); ++c)
    for (std::size_t u = 0; u < g.uncore_columns; ++u)
      g.pairs.push_back(estimate_frequency_pair(o.sensitivity, model, o.workers, o.waiting, c, u));
  g.chosen = choose_frequency_pair(o.sensitivity, model, o.workers, o.waiting, o.max_time_loss);
  return g;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string ghz(double hz) { return fixed(hz / 1e9, hz > 0 && hz < 1e9 ? 2 : 1); }

bool is_chosen(const FrequencyPairEstimate& e, const FrequencyPairEstimate& chosen) {
  return e.core_level == chosen.core_level && e.uncore_level == chosen.uncore_level;
}

// Rows: uncore levels; columns: core levels. `cell` renders one pair.
template <class Cell>
std::string grid_table(const Grid& g, const FrequencyModel& model, Cell cell) {
  std::vector<std::string> header{"uncore \\ core GHz"};
  for (std::size_t c = 0; c < model.core_levels(); ++c) header.push_back(ghz(model.core_hz(c)));
  TextTable table(header, std::vector<bool>(header.size(), true));
  for (std::size_t u = 0; u < g.uncore_columns; ++u) {
    std::vector<std::string> row{model.uncore_levels() ? ghz(model.uncore_hz(u)) : "not modelled"};
    for (std::size_t c = 0; c < model.core_levels(); ++c) row.push_back(cell(g.pairs[c * g.uncore_columns + u]));
    table.add_row(row);
  }
  return table.render("  ");
}

void print_header(const FrequencyOptions& o, const FrequencyModel& model, const std::string& source) {
  const ReferenceSetting& ref = model.reference();
  std::printf("Core + uncore model, %s: %d worker%s running the work, %d waiting at %s GHz\n", source.c_str(),
              o.workers, o.workers == 1 ? "" : "s", o.waiting, ghz(model.core_hz(model.core_levels() - 1)).c_str());
  std::printf("  work: b_c %s (%s), b_u %s (%s)\n", fixed(o.sensitivity.core, 4).c_str(), o.sensitivity_source.c_str(),
              fixed(o.sensitivity.uncore, 4).c_str(), o.sensitivity.uncore > 0 ? "--uncore-sensitivity" : "default 0");
  const std::string fastest =
      ghz(ref.core_hz) + " GHz core" + (ref.uncore_hz > 0 ? ", " + ghz(ref.uncore_hz) + " GHz uncore" : "");
  std::printf("  time:   T/T(fastest) = b_c fc_ref/fc + b_u g(fu) + 1 - b_c - b_u, fastest: %s\n", fastest.c_str());
  if (model.uncore_levels() == 0)
    std::printf("          the profile has no uncore_power table: the uncore does not move (g = 1)\n");
  else if (ref.memory_bandwidth_knee_hz > 0)
    std::printf("          g(fu) = max(1, f_k/fu) / max(1, f_k/fu_ref), memory-bandwidth knee f_k %s GHz (profile)\n",
                fixed(ref.memory_bandwidth_knee_hz / 1e9, 3).c_str());
  else std::printf("          g(fu) = fu_ref/fu (the profile gives no memory_bandwidth_knee_hz)\n");
  std::printf(
      "  energy: E/E(fastest) = T/T(fastest) x P/P(fastest), P = running x busy_w(fc) + waiting x "
      "idle_w(slowest) + uncore_w(fu)\n\n");
}

void print_text(const FrequencyOptions& o, const FrequencyModel& model, const Grid& g, const std::string& source) {
  print_header(o, model, source);
  const double bound = 1.0 + o.max_time_loss;
  std::printf("time factor T/T(fastest) (*: chosen)\n%s\n", grid_table(g, model, [&](const FrequencyPairEstimate& e) {
                                                              return fixed(e.time_factor, 3) +
                                                                     (is_chosen(e, g.chosen) ? "*" : "");
                                                            }).c_str());
  std::printf("energy ratio E/E(fastest) (*: chosen; in parentheses: over the time bound %s)\n%s\n",
              fixed(bound, 3).c_str(), grid_table(g, model, [&](const FrequencyPairEstimate& e) {
                                         const std::string v = fixed(e.energy_ratio, 3);
                                         if (e.time_factor > bound) return "(" + v + ")";
                                         return v + (is_chosen(e, g.chosen) ? "*" : "");
                                       }).c_str());
  const auto& c = g.chosen;
  std::printf("chosen: core %s GHz, uncore %s: time %s (bound %s), energy %s of the fastest pair\n",
              ghz(c.core_hz).c_str(), model.uncore_levels() ? (ghz(c.uncore_hz) + " GHz").c_str() : "not modelled",
              fixed(c.time_factor, 3).c_str(), fixed(bound, 3).c_str(), fixed(c.energy_ratio, 3).c_str());
  std::printf("every figure is modelled: %s (no measurement)\n", source.c_str());
}

json pair_json(const FrequencyPairEstimate& e, double bound) {
  return {{"core_level", e.core_level},     {"uncore_level", e.uncore_level},
          {"core_hz", e.core_hz},           {"uncore_hz", e.uncore_hz > 0 ? json(e.uncore_hz) : json(nullptr)},
          {"time_factor", e.time_factor},   {"power_w", e.power_w},
          {"energy_ratio", e.energy_ratio}, {"within_bound", e.time_factor <= bound}};
}

json to_json(const FrequencyOptions& o, const FrequencyModel& model, const Grid& g, const std::string& source) {
  const double bound = 1.0 + o.max_time_loss;
  const double knee = model.reference().memory_bandwidth_knee_hz;
  json doc{{"model", "frequency"},
           {"profile", o.profile.name},
           {"energy_source", source},
           {"time_source", source},
           {"sensitivity",
            {{"core", o.sensitivity.core}, {"uncore", o.sensitivity.uncore}, {"core_source", o.sensitivity_source}}},
           {"workers", {{"running", o.workers}, {"waiting", o.waiting}}},
           {"max_time_loss", o.max_time_loss},
           {"memory_bandwidth_knee_hz", knee > 0 ? json(knee) : json(nullptr)},
           {"core_hz", model.powers().core_hz},
           {"uncore_hz", model.powers().uncore_hz},
           {"pairs", json::array()},
           {"chosen", pair_json(g.chosen, bound)}};
  for (const auto& e : g.pairs) doc["pairs"].push_back(pair_json(e, bound));
  return doc;
}

}  // namespace

int run_model_frequency(const Args& a, const std::vector<OptionSpec>& efs_options) {
  reject_options_of(a, efs_options, "efs");
  const FrequencyOptions o = setup(a);
  std::optional<FrequencyModel> model;
  try {
    model.emplace(frequency_model(o.profile));
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error("profile " + o.profile.name + ": " + e.what());
  }
  const Grid g = evaluate(o, *model);
  const std::string source = "modeled:" + o.profile.name;
  if (o.json) std::printf("%s\n", to_json(o, *model, g, source).dump(2).c_str());
  else print_text(o, *model, g, source);
  return 0;
}

}  // namespace rubato::cli
