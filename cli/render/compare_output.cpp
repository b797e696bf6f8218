#include "render/compare_output.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "render/text_table.hpp"

namespace rubato::cli {
namespace {

using json = nlohmann::json;

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// Two significant digits of the interval.
int decimals_for(double ci95) { return std::clamp(1 - static_cast<int>(std::floor(std::log10(ci95))), 0, 6); }

std::string cell(const Summary& s) { return s.n ? format_mean_ci(s.mean, s.ci95) : "—"; }
std::string cell(const std::optional<Ratio>& r) { return r ? format_mean_ci(r->value, r->ci95) : "—"; }

std::string joined(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

std::string level_cell(const std::vector<double>& share) {
  std::string out;
  for (double s : share) out += (out.empty() ? "" : "/") + fixed(s * 100.0, 0);
  return out.empty() ? "—" : out;
}

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string csv_number(double v) {
  if (!std::isfinite(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

json summary_json(const Summary& s) {
  if (s.n == 0) return nullptr;
  json j{{"n", s.n}, {"mean", s.mean}, {"sd", s.sd}};
  j["ci95"] = std::isfinite(s.ci95) ? json(s.ci95) : json(nullptr);
  return j;
}

json ratio_json(const std::optional<Ratio>& r) {
  if (!r || !std::isfinite(r->value)) return nullptr;
  return {{"value", r->value}, {"ci95", std::isfinite(r->ci95) ? json(r->ci95) : json(nullptr)}};
}

}  // namespace

std::string format_mean_ci(double mean, double ci95) {
  if (!std::isfinite(mean)) return "—";
  if (!std::isfinite(ci95) || ci95 == 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", mean);
    return std::string(buf) + (ci95 == 0 ? " ± 0" : "");
  }
  const double magnitude = std::max(std::fabs(mean), ci95);
  if (magnitude < 1e-3 || magnitude >= 1e7) {  // tiny or huge: scientific, 2 digits of the interval
    char buf[96];
    const int digits =
        std::clamp(static_cast<int>(std::floor(std::log10(magnitude)) - std::floor(std::log10(ci95))) + 1, 1, 6);
    std::snprintf(buf, sizeof buf, "%.*e ± %.1e", digits, mean, ci95);
    return buf;
  }
  const int d = decimals_for(ci95);
  return fixed(mean, d) + " ± " + fixed(ci95, d);
}

std::string workers_text(int workers) { return std::to_string(workers) + (workers == 1 ? " worker" : " workers"); }

std::string display_workload(const std::string& workload) {
  const auto space = workload.find(' ');
  const std::string program = workload.substr(0, space);
  const auto slash = program.rfind('/');
  const std::string base = slash == std::string::npos ? program : program.substr(slash + 1);
  return space == std::string::npos ? base : base + workload.substr(space);
}

std::vector<std::string> comparison_header(const Comparison& c) {
  std::set<std::string> policies, backends, profiles, sources;
  for (const auto& w : c.workloads)
    for (const auto& p : w.policies) {
      policies.insert(p.policy);
      backends.insert(p.backends.begin(), p.backends.end());
      profiles.insert(p.profiles.begin(), p.profiles.end());
      if (!p.energy_source.empty()) sources.insert(p.energy_source);
    }
  std::vector<std::string> lines{std::to_string(c.runs) + " process reports, " + std::to_string(c.workloads.size()) +
                                     " workload x workers groups, policies " + joined(policies),
                                 "mean ± 95% CI (Student t) over the trials left after dropping the first " +
                                     std::to_string(c.skip) + " of each series; normalised to " + c.baseline,
                                 "backend " + (backends.empty() ? std::string("?") : joined(backends)) + ", profile " +
                                     (profiles.empty() ? std::string("?") : joined(profiles)) + ", energy " +
                                     (sources.empty() ? std::string("not available") : joined(sources))};
  if (backends.count("emulated"))
    lines.push_back(
        "emulated: slowed workers really run slower (tasks stretched as the profile's DVFS model says); "
        "the energy is that model's, not a measurement");
  return lines;
}

WorkloadTable workload_table(const Comparison& c, const WorkloadResult& w) {
  std::set<std::string> block_sources;
  for (const auto& p : w.policies)
    if (!p.energy_source.empty()) block_sources.insert(p.energy_source);
  const bool source_column = block_sources.size() > 1;
  WorkloadTable t;
  t.title = display_workload(w.workload) + " — " + workers_text(w.workers);
  // Launched experiments say how many nodes and ranks each trial had.
  if (!w.nodes.empty() && (*w.nodes.rbegin() > 1 || *w.ranks.rbegin() > 1)) t.title += " — " + nodes_ranks_text(w);
  t.header = {"policy", "n", "time [s]", "energy [J]"};
  if (source_column) t.header.push_back("energy source");
  for (std::string h :
       {std::string("EDP [J·s]"), std::string("energy saving %"), std::string("time loss %"), "EDP / " + c.baseline,
        std::string("steals"), std::string("transitions"), std::string("wait [s]"), std::string("slowed wait [s]"),
        std::string("slowed wake-ups"), std::string("busy at level % (0 = fastest)")})
    t.header.push_back(std::move(h));
  t.numeric.assign(t.header.size(), true);
  t.numeric[0] = false;
  t.numeric.back() = false;
  if (source_column) t.numeric[4] = false;
  for (const auto& p : w.policies) {
    const bool is_base = p.policy == c.baseline;
    std::vector<std::string> row{p.policy, std::to_string(p.used) + "/" + std::to_string(p.trials.size()),
                                 cell(p.time_s), p.energy_source.empty() ? "n/a" : cell(p.energy_j)};
    if (source_column) row.push_back(p.energy_source.empty() ? "—" : p.energy_source);
    row.push_back(p.energy_source.empty() ? "n/a" : cell(p.edp));
    row.push_back(is_base ? "(reference)" : cell(p.energy_saving_pct()));
    row.push_back(is_base ? "" : cell(p.time_loss_pct()));
    row.push_back(is_base ? "" : cell(p.edp_ratio));
    row.push_back(cell(p.steals));
    row.push_back(cell(p.transitions));
    row.push_back(cell(p.wait_s));
    row.push_back(cell(p.wait_slowed_s));
    row.push_back(cell(p.slowed_wakeups));
    row.push_back(level_cell(p.level_share));
    t.rows.push_back(std::move(row));
  }
  for (const auto& p : w.policies)
    if (!p.normalise_note.empty()) t.notes.push_back(p.policy + ": " + p.normalise_note);
  for (const auto& p : w.policies)
    if (p.raise_delay_s.n)
      t.notes.push_back(p.policy + ": a slowed worker's raise lands " + cell(p.raise_delay_s) +
                        " s after its wake-up (the profile's transition latency: work until then runs slowed)");
  // Figures merged from likwid are shown; other tools' extras (e.g. the
  // simulator's counters) stay in --json to keep the table readable.
  std::set<std::string> external_keys;
  std::size_t others = 0;
  for (const auto& p : w.policies)
    for (const auto& [k, s] : p.external) {
      if (k.rfind("likwid.", 0) == 0) external_keys.insert(k);
      else ++others;
    }
  if (others) t.notes.push_back("(more figures from the reports' 'external' maps in --json)");
  for (const auto& k : external_keys) {
    std::string line = k + ":";
    for (const auto& p : w.policies)
      if (const auto it = p.external.find(k); it != p.external.end()) line += "  " + p.policy + " " + cell(it->second);
    t.notes.push_back(line);
  }
  return t;
}

std::string failed_run_line(const FailedRun& f) {
  if (f.workload.empty()) return f.reason;
  return display_workload(f.workload) + " [" + workers_text(f.workers) + ", " + f.policy + "]" +
         (f.trial ? " trial " + std::to_string(*f.trial) : "") + ": " + f.reason + " — " + f.files;
}

std::string comparison_text(const Comparison& c) {
  const auto header = comparison_header(c);
  std::string out = "rubato compare: " + header[0] + "\n" + header[1] + "\n" + header[2] + "\n";
  for (std::size_t i = 3; i < header.size(); ++i) out += "  " + header[i] + "\n";
  for (const auto& w : c.workloads) {
    const WorkloadTable t = workload_table(c, w);
    TextTable table(t.header, t.numeric);
    for (const auto& row : t.rows) table.add_row(row);
    out += "\n" + t.title + "\n" + table.render("  ");
    for (const auto& n : t.notes) out += "  " + n + "\n";
  }
  if (!c.failed.empty()) {
    out += "\nfailed runs (kept, not averaged): " + std::to_string(c.failed.size()) + "\n";
    for (const auto& f : c.failed) out += "  " + failed_run_line(f) + "\n";
  }
  if (!c.notes.empty()) {
    out += "\nnotes:\n";
    for (const auto& n : c.notes) out += "  " + n + "\n";
  }
  return out;
}

std::string comparison_csv(const Comparison& c) {
  std::size_t levels = 0;
  for (const auto& w : c.workloads)
    for (const auto& p : w.policies) levels = std::max(levels, p.level_share.size());
  std::string out =
      "workload,workers,policy,trials,used,skipped,failed,time_s,time_s_ci95,energy_j,energy_j_ci95,energy_source,"
      "edp_js,edp_js_ci95,energy_saving_pct,energy_saving_pct_ci95,time_loss_pct,time_loss_pct_ci95,edp_norm,"
      "edp_norm_ci95,steals,transitions,emulated_delay_s,wait_s,wait_slowed_s,slowed_wakeups,raise_delay_s";
  for (std::size_t l = 0; l < levels; ++l) out += ",busy_share_level" + std::to_string(l);
  out += ",note\n";
  auto summary = [](const Summary& s) { return csv_number(s.n ? s.mean : NAN) + "," + csv_number(s.n ? s.ci95 : NAN); };
  auto ratio = [](const std::optional<Ratio>& r) {
    return r ? csv_number(r->value) + "," + csv_number(r->ci95) : std::string(",");
  };
  for (const auto& w : c.workloads)
    for (const auto& p : w.policies) {
      out += csv_quote(w.workload) + "," + std::to_string(w.workers) + "," + csv_quote(p.policy) + "," +
             std::to_string(p.trials.size()) + "," + std::to_string(p.used) + "," + std::to_string(p.skipped) + "," +
             std::to_string(p.failed) + "," + summary(p.time_s) + "," +
             (p.energy_source.empty() ? std::string(",") : summary(p.energy_j)) + "," + csv_quote(p.energy_source) +
             "," + (p.energy_source.empty() ? std::string(",") : summary(p.edp)) + "," + ratio(p.energy_saving_pct()) +
             "," + ratio(p.time_loss_pct()) + "," + ratio(p.edp_ratio) + "," +
             csv_number(p.steals.n ? p.steals.mean : NAN) + "," +
             csv_number(p.transitions.n ? p.transitions.mean : NAN) + "," +
             csv_number(p.emulated_delay_s.n ? p.emulated_delay_s.mean : NAN) + "," +
             csv_number(p.wait_s.n ? p.wait_s.mean : NAN) + "," +
             csv_number(p.wait_slowed_s.n ? p.wait_slowed_s.mean : NAN) + "," +
             csv_number(p.slowed_wakeups.n ? p.slowed_wakeups.mean : NAN) + "," +
             csv_number(p.raise_delay_s.n ? p.raise_delay_s.mean : NAN);
      for (std::size_t l = 0; l < levels; ++l)
        out += "," + (l < p.level_share.size() ? csv_number(p.level_share[l]) : std::string());
      out += "," + csv_quote(p.energy_note.empty() ? p.normalise_note : p.energy_note) + "\n";
    }
  return out;
}

namespace {

json trial_json(const TrialResult& t) {
  json tj{{"trial", t.trial}, {"ok", t.ok},       {"skipped", t.skipped},
          {"files", t.files}, {"ranks", t.ranks}, {"hosts", t.hosts}};
  if (!t.ok) {
    tj["failure"] = t.failure;
    return tj;
  }
  tj["time_s"] = t.time_s;
  tj["energy_j"] = t.energy_available ? json(t.energy_j) : json(nullptr);
  tj["energy_source"] = t.energy_source;
  tj["steals"] = t.steals;
  tj["tasks"] = t.tasks;
  tj["transitions"] = t.transitions;
  tj["wait_s"] = t.wait_s;
  tj["wait_slowed_s"] = t.wait_slowed_s;
  tj["slowed_wakeups"] = t.slowed_wakeups;
  tj["raise_delay_s"] = t.raise_delay_s;
  tj["busy_s_at_level"] = t.busy_s_at_level;
  return tj;
}

json policy_json(const PolicyResult& p) {
  json trials = json::array();
  for (const auto& t : p.trials) trials.push_back(trial_json(t));
  json external = json::object();
  for (const auto& [k, s] : p.external) external[k] = summary_json(s);
  return {{"policy", p.policy},
          {"trials", std::move(trials)},
          {"used", p.used},
          {"skipped", p.skipped},
          {"failed", p.failed},
          {"time_s", summary_json(p.time_s)},
          {"energy_j", p.energy_source.empty() ? json(nullptr) : summary_json(p.energy_j)},
          {"energy_source", p.energy_source},
          {"energy_note", p.energy_note},
          {"edp_js", p.energy_source.empty() ? json(nullptr) : summary_json(p.edp)},
          {"time_ratio", ratio_json(p.time_ratio)},
          {"energy_ratio", ratio_json(p.energy_ratio)},
          {"edp_ratio", ratio_json(p.edp_ratio)},
          {"energy_saving_pct", ratio_json(p.energy_saving_pct())},
          {"time_loss_pct", ratio_json(p.time_loss_pct())},
          {"normalise_note", p.normalise_note},
          {"steals", summary_json(p.steals)},
          {"tasks", summary_json(p.tasks)},
          {"transitions", summary_json(p.transitions)},
          {"emulated_delay_s", summary_json(p.emulated_delay_s)},
          {"wait_s", summary_json(p.wait_s)},
          {"wait_slowed_s", summary_json(p.wait_slowed_s)},
          {"slowed_wakeups", summary_json(p.slowed_wakeups)},
          {"raise_delay_s", summary_json(p.raise_delay_s)},
          {"busy_share_at_level", p.level_share},
          {"backends", p.backends},
          {"profiles", p.profiles},
          {"external", std::move(external)}};
}

}  // namespace

std::string comparison_json(const Comparison& c) {
  json groups = json::array();
  for (const auto& w : c.workloads) {
    json policies = json::array();
    for (const auto& p : w.policies) policies.push_back(policy_json(p));
    groups.push_back({{"workload", w.workload},
                      {"workers", w.workers},
                      {"nodes", std::vector<int>(w.nodes.begin(), w.nodes.end())},
                      {"ranks", std::vector<int>(w.ranks.begin(), w.ranks.end())},
                      {"policies", std::move(policies)}});
  }
  json failed = json::array();
  for (const auto& f : c.failed) {
    json fj{{"workload", f.workload},
            {"workers", f.workers},
            {"policy", f.policy},
            {"files", f.files},
            {"reason", f.reason}};
    fj["trial"] = f.trial ? json(*f.trial) : json(nullptr);
    failed.push_back(std::move(fj));
  }
  const json j{{"skip", c.skip},
               {"baseline", c.baseline},
               {"runs", c.runs},
               {"groups", std::move(groups)},
               {"failed", std::move(failed)},
               {"notes", c.notes},
               {"refused", c.refused}};
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace rubato::cli
