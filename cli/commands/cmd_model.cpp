// `rubato model efs`: what [EFS]'s contention model says about a set of
// threads before running them — predicted bus utilisations (Eq. 10), slowdowns
// (Eq. 11), throughput (Eq. 12), power (Eq. 13), energy per work (Eq. 14) and
// the admission threshold for one more thread (Eqs. 10 + 16). `rubato model
// frequency` (cmd_model_frequency.cpp) shares the option table.
#include <cmath>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands/args.hpp"
#include "commands/cmd_model_frequency.hpp"
#include "commands/commands.hpp"
#include "rubato/core/efs/efs_admission.hpp"
#include "rubato/core/efs/efs_model.hpp"
#include "rubato/power/machine/profile.hpp"
#include "render/text_table.hpp"

namespace rubato::cli {

namespace {

// The options only `rubato model efs` takes (--profile and --json are shared).
std::vector<OptionSpec> efs_option_specs() {
  return {
      {"solo", kWhatToRun, "each thread's bus utilisation when it runs alone ([EFS] Eq. 10's b_i)", "B[,B...]", "",
       "values in [0, 1) (required)", true},
      {"identical", kWhatToRun, "N threads, each with the single --solo value", "N", "", "1..1024"},
      {"power", kWhatToRun, "P0..Pn directly, instead of --profile", "P0,P1,...", "", "watts"},
      {"candidate", kWhatToRun, "a thread to admit or not ([EFS] Eq. 16)", "B", "", "a value in [0, 1)"},
      {"max-iterations", kHowToMeasure, "Newton iterations before giving up", "N", "50", "1..10000"},
  };
}

}  // namespace

const CommandSpec& model_spec() {
  static const CommandSpec spec{
      "model",
      "what-if: [EFS]'s contention model for a set of threads (efs), or time and energy over core and uncore "
      "frequency (frequency)",
      "efs|frequency",
      "",
      with(with(efs_option_specs(),
                {
                    {"profile", kWhatToRun,
                     "machine profile: efs takes P0..Pn (active_cores_power_w) from it; frequency its levels, "
                     "their power and its memory-bandwidth knee (required there)",
                     "NAME", "", "a name from power/profiles or a JSON file"},
                    {"json", kOutputFormat, "the result as JSON", "", "", ""},
                }),
           model_frequency_option_specs()),
      "",
  };
  return spec;
}

namespace {

using json = nlohmann::json;

struct ModelOptions {
  std::vector<std::vector<double>> sets;  // solo utilisations; several with --identical
  bool identical = false;
  std::vector<double> power_w;  // P0..Pn; empty: no power table
  std::string power_source;     // "modeled:<profile>" or "modeled:power-table"
  double accesses_per_s = 0;    // µ from the profile; 0 unknown
  std::optional<double> candidate;
  efs::NewtonOptions newton;
  bool json = false;
};

double parse_solo(const std::string& option, const std::string& text) {
  const double b = parse_number(option, text, 0, 1);
  if (b >= 1)
    throw UsageError(option + " '" + text + "': a solo utilisation must be below 1 (a thread at 1 never leaves " +
                     "the bus; [EFS] Eq. 10 is undefined there)");
  return b;
}

ModelOptions setup(const Args& a) {
  reject_options_of(a, model_frequency_option_specs(), "frequency");
  if (a.positionals().size() > 1) throw UsageError("unexpected argument '" + a.positionals()[1] + "'");
  ModelOptions o;
  o.json = a.flag("json");

  std::vector<double> solo;
  for (const std::string& v : a.list_values("solo")) solo.push_back(parse_solo("--solo", v));
  if (solo.empty()) throw UsageError("--solo is required (solo bus utilisations in [0, 1), e.g. --solo 0.57,0.3)");
  if (const auto n = a.value("identical")) {
    o.identical = true;
    const auto count = static_cast<std::size_t>(parse_integer("--identical", *n, 1, 1024));
    for (double b : solo) o.sets.emplace_back(count, b);
  } else {
    o.sets.push_back(solo);
  }

  const auto profile_name = a.value("profile");
  const auto power = a.value("power");
  if (profile_name && power) throw UsageError("--profile and --power both give P0..Pn: use one");
  if (profile_name) {
    std::string error;
    const auto profile = load_profile(*profile_name, error);
    if (!profile) throw UsageError("--profile " + *profile_name + ": " + error);
    if (profile->active_cores_power_w.empty())
      throw UsageError("--profile " + *profile_name + " has no active_cores_power_w ([EFS] Eq. 13's P0..Pn); " +
                       "give them with --power");
    o.power_w = profile->active_cores_power_w;
    o.accesses_per_s = profile->memory_accesses_per_s;
    o.power_source = "modeled:" + profile->name;
  }
  if (power) {
    for (const std::string& p : split(*power, ',')) o.power_w.push_back(parse_number("--power", p, 0, 1e6));
    if (o.power_w.size() < 2)
      throw UsageError("--power needs P0 (no core active) and at least P1 (W, comma-separated)");
    o.power_source = "modeled:power-table";
  }
  if (const auto c = a.value("candidate")) {
    o.candidate = parse_solo("--candidate", *c);
    if (o.power_w.empty()) throw UsageError("--candidate needs a power table (--profile or --power)");
  }
  if (const auto it = a.value("max-iterations"))
    o.newton.max_iterations = static_cast<int>(parse_integer("--max-iterations", *it, 1, 10000));
  return o;
}

// Everything evaluated for one set of threads.
struct Evaluation {
  std::vector<double> solo;
  efs::SetPrediction set;
  std::optional<efs::AdmissionThreshold> admission;
  std::optional<efs::AdmissionCheck> candidate;
  // --identical: would EFS start the set's last thread with the others running?
  std::optional<efs::AdmissionThreshold> last_thread;
};

Evaluation evaluate(const std::vector<double>& solo, const ModelOptions& o) {
  Evaluation e;
  e.solo = solo;
  if (o.power_w.empty()) {
    e.set.utilisation = efs::predict_utilisations(solo, o.newton);
    if (e.set.utilisation.ok()) {
      e.set.slowdowns = efs::slowdowns(solo, e.set.utilisation.u);
      e.set.throughput = efs::throughput(solo, e.set.utilisation.u);
    }
    return e;
  }
  const efs::PowerTable table(o.power_w);
  e.set = efs::predict_set(solo, table, 1.0, o.newton);
  e.admission = efs::admission_threshold(solo, table, 1.0, o.newton);
  if (o.candidate) e.candidate = efs::check_admission(solo, *o.candidate, table, 1.0, o.newton);
  if (o.identical && !solo.empty())
    e.last_thread = efs::admission_threshold(std::span(solo).first(solo.size() - 1), table, 1.0, o.newton);
  return e;
}

std::string fixed(double v, int decimals) {
  if (std::isinf(v)) return "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string sci(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

std::string newton_note(const efs::UtilisationPrediction& u) {
  return std::string(efs::to_string(u.status)) + ", " + std::to_string(u.iterations) +
         (u.iterations == 1 ? " iteration" : " iterations") + ", residual " + sci(u.residual);
}

std::string threshold_cell(const efs::AdmissionThreshold& t) {
  switch (t.status) {
    case efs::AdmissionStatus::threshold_found: return "b < " + fixed(*t.max_solo, 4);
    case efs::AdmissionStatus::admits_any: return "any";
    case efs::AdmissionStatus::admits_none: return "none";
    case efs::AdmissionStatus::no_free_core: return "no free core";
    case efs::AdmissionStatus::not_converged: return "not converged (residual " + sci(t.residual) + ")";
    case efs::AdmissionStatus::invalid_input: return "invalid input";
  }
  return "?";
}

std::string candidate_cell(const efs::AdmissionCheck& c) {
  if (c.status != efs::SolveStatus::converged)
    return std::string("unknown (") + std::string(efs::to_string(c.status)) + ")";
  if (!c.energy_new) return "rejected: no free core";
  return std::string(c.admit ? "admitted" : "rejected") + ": energy per work " + fixed(*c.energy_current, 2) + " -> " +
         fixed(*c.energy_new, 2) + " J";
}

std::string power_table_text(const std::vector<double>& p) {
  std::string out;
  for (double w : p) out += (out.empty() ? "" : ", ") + fixed(w, 1);
  return "P0..P" + std::to_string(p.size() - 1) + " = " + out + " W";
}

void print_one(const Evaluation& e, const ModelOptions& o) {
  const auto& u = e.set.utilisation;
  std::printf("EFS model ([EFS] §3.1): %zu thread%s; power %s\n\n", e.solo.size(), e.solo.size() == 1 ? "" : "s",
              o.power_w.empty() ? "not modeled (no --profile or --power)"
                                : (o.power_source + " (" + power_table_text(o.power_w) + ")").c_str());
  std::vector<std::string> header{"thread", "solo b", "predicted u", "slowdown u/b"};
  if (o.accesses_per_s > 0) header.push_back("accesses/s");
  TextTable table(header, {false, true, true, true, true});
  for (std::size_t i = 0; i < e.solo.size(); ++i) {
    std::vector<std::string> row{std::to_string(i + 1), fixed(e.solo[i], 4), fixed(u.u[i], 4),
                                 u.ok() ? fixed(e.set.slowdowns[i], 4) : "—"};
    if (o.accesses_per_s > 0) row.push_back(sci(u.u[i] * o.accesses_per_s));
    table.add_row(row);
  }
  std::printf("%s\n", table.render("  ").c_str());
  std::printf("  bus utilisation U   %s   (Eq. 10 by Newton: %s)\n", fixed(u.total, 4).c_str(), newton_note(u).c_str());
  if (!u.ok()) {
    std::printf("  the model gives no answer for this set (%s; --max-iterations raises the bound)\n",
                std::string(efs::to_string(u.status)).c_str());
    return;
  }
  std::printf("  throughput          %s   (Eq. 12, α = 1: solo-thread equivalents)\n",
              fixed(e.set.throughput, 4).c_str());
  if (o.power_w.empty()) {
    std::printf("  power, energy per work and admission need P0..Pn: --profile NAME or --power P0,P1,...\n");
    return;
  }
  if (e.set.power_w) {
    std::printf("  power               %s W   (Eq. 13, %zu active cores, %s)\n", fixed(*e.set.power_w, 1).c_str(),
                e.solo.size(), o.power_source.c_str());
    std::printf("  energy per work     %s J per solo-thread-second   (Eq. 14, %s)\n",
                fixed(*e.set.energy_per_work, 2).c_str(), o.power_source.c_str());
  } else {
    std::printf("  power               unknown: %zu threads, the power table covers %zu cores\n", e.solo.size(),
                o.power_w.size() - 1);
  }
  std::printf("  one more thread     runs if %s   (Eqs. 10 + 16)\n", threshold_cell(*e.admission).c_str());
  if (e.candidate)
    std::printf("  candidate b = %s   %s   (Eq. 15)\n", fixed(*o.candidate, 4).c_str(),
                candidate_cell(*e.candidate).c_str());
}

void print_identical(const std::vector<Evaluation>& all, const ModelOptions& o) {
  std::printf("EFS model ([EFS] Fig. 4): %zu identical threads per row; power %s\n\n", all.front().solo.size(),
              o.power_w.empty() ? "not modeled (no --profile or --power)"
                                : (o.power_source + " (" + power_table_text(o.power_w) + ")").c_str());
  std::vector<std::string> header{"solo b", "u each", "slowdown", "U", "throughput"};
  if (!o.power_w.empty()) {
    const std::size_t n = all.front().solo.size();
    header.insert(header.end(), {"power W", "energy/work J", "thread " + std::to_string(n) + " runs if", "admitted",
                                 "thread " + std::to_string(n + 1) + " runs if"});
    if (o.candidate) header.push_back("candidate b = " + fixed(*o.candidate, 2));
  }
  TextTable table(header, {true, true, true, true, true, true, true, false, false, false, false});
  for (const Evaluation& e : all) {
    const auto& u = e.set.utilisation;
    std::vector<std::string> row{fixed(e.solo.front(), 2)};
    if (u.ok())
      row.insert(row.end(), {fixed(u.u.front(), 4), fixed(e.set.slowdowns.front(), 4), fixed(u.total, 4),
                             fixed(e.set.throughput, 4)});
    else row.insert(row.end(), {"—", "—", "—", "Newton " + newton_note(u)});
    if (!o.power_w.empty()) {
      row.push_back(e.set.power_w ? fixed(*e.set.power_w, 1) : "—");
      row.push_back(e.set.energy_per_work ? fixed(*e.set.energy_per_work, 2) : "—");
      const std::optional<bool> runs = e.last_thread->admits(e.solo.back());
      row.push_back(threshold_cell(*e.last_thread));
      row.push_back(runs ? (*runs ? "yes" : "no") : "—");
      row.push_back(threshold_cell(*e.admission));
      if (e.candidate) row.push_back(candidate_cell(*e.candidate));
    }
    table.add_row(row);
  }
  std::printf("%s", table.render("  ").c_str());
  if (!o.power_w.empty()) std::printf("\n  energy per work: J per solo-thread-second, %s\n", o.power_source.c_str());
}

json optional_number(const std::optional<double>& v) { return v && std::isfinite(*v) ? json(*v) : json(nullptr); }

json to_json(const Evaluation& e) {
  const auto& u = e.set.utilisation;
  json j{{"solo", e.solo},
         {"threads", e.solo.size()},
         {"newton", {{"status", efs::to_string(u.status)}, {"iterations", u.iterations}, {"residual", u.residual}}},
         {"u", u.u},
         {"total_u", u.total}};
  j["slowdowns"] = e.set.slowdowns;
  j["throughput"] = u.ok() ? json(e.set.throughput) : json(nullptr);
  j["power_w"] = optional_number(e.set.power_w);
  j["energy_per_work_j"] = optional_number(e.set.energy_per_work);
  if (e.admission) {
    const auto& t = *e.admission;
    j["admission"] = {{"status", efs::to_string(t.status)},
                      {"max_solo", optional_number(t.max_solo)},
                      {"current_throughput", t.current_throughput},
                      {"target_throughput", t.target_throughput},
                      {"current_power_w", t.current_power_w},
                      {"new_power_w", t.new_power_w},
                      {"residual", t.residual},
                      {"iterations", t.iterations}};
  }
  if (e.last_thread) {
    const auto& t = *e.last_thread;
    j["last_thread_admission"] = {{"status", efs::to_string(t.status)},
                                  {"max_solo", optional_number(t.max_solo)},
                                  {"admits", t.admits(e.solo.back()) ? json(*t.admits(e.solo.back())) : json(nullptr)}};
  }
  if (e.candidate) {
    const auto& c = *e.candidate;
    j["candidate"] = {{"status", efs::to_string(c.status)},
                      {"admit", c.admit},
                      {"energy_current_j", optional_number(c.energy_current)},
                      {"energy_new_j", optional_number(c.energy_new)},
                      {"throughput_current", c.throughput_current},
                      {"throughput_new", c.throughput_new}};
  }
  return j;
}

}  // namespace

int run_model(const std::vector<std::string>& argv) {
  const Args a(argv, model_spec());
  if (a.positionals().empty())
    throw UsageError(
        "which model? (efs: rubato model efs --solo ...; frequency: rubato model frequency --profile ...)");
  if (a.positionals().front() == "frequency") return run_model_frequency(a, efs_option_specs());
  if (a.positionals().front() != "efs")
    throw UsageError("unknown model '" + a.positionals().front() + "' (known: efs, frequency)");
  const ModelOptions o = setup(a);
  std::vector<Evaluation> all;
  for (const auto& set : o.sets) all.push_back(evaluate(set, o));
  if (o.json) {
    json doc{{"model", "efs"},
             {"source", "[EFS] §3.1"},
             {"power_source", o.power_w.empty() ? json(nullptr) : json(o.power_source)},
             {"power_table_w", o.power_w},
             {"accesses_per_s", o.accesses_per_s > 0 ? json(o.accesses_per_s) : json(nullptr)},
             {"energy_per_work_unit", "J per solo-thread-second"},
             {"newton_max_iterations", o.newton.max_iterations}};
    if (o.candidate) doc["candidate_solo"] = *o.candidate;
    doc["sets"] = json::array();
    for (const Evaluation& e : all) doc["sets"].push_back(to_json(e));
    std::printf("%s\n", doc.dump(2).c_str());
  } else if (o.identical) {
    print_identical(all, o);
  } else {
    print_one(all.front(), o);
  }
  for (const Evaluation& e : all)
    if (!e.set.utilisation.ok()) return 1;  // the model gave no answer for a set: said above
  return 0;
}

}  // namespace rubato::cli
