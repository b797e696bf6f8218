#include <nlohmann/json.hpp>
#include <type_traits>

#include "rubato/core/io/report.hpp"
#include "rubato/core/io/json_error.hpp"

namespace rubato {
namespace {

using json = nlohmann::json;

json energy_json(const EnergyFigure& e) {
  json j{{"available", e.available}};
  if (e.available) {
    j["joules"] = e.joules;
    j["source"] = e.source;
  } else {
    j["why_not"] = e.why_not;
  }
  return j;
}

// nlohmann converts -1 to a huge unsigned and 1.5 to 1; a report must not.
template <class T>
bool type_fits(const json& v) {
  if constexpr (std::is_same_v<T, bool>) return v.is_boolean();
  else if constexpr (std::is_unsigned_v<T>) return v.is_number_unsigned();
  else if constexpr (std::is_integral_v<T>) return v.is_number_integer();
  else if constexpr (std::is_floating_point_v<T>) return v.is_number();
  else if constexpr (std::is_same_v<T, std::string>) return v.is_string();
  else return true;  // containers: nlohmann checks element types on conversion
}

// Reads fields with their path so a malformed report names what is wrong.
class Reader {
 public:
  Reader(std::string& error, std::string_view text) : error_(error), text_(text) {}
  bool ok() const { return error_.empty(); }

  template <class T>
  void get(const json& j, const char* key, T& out, const std::string& path, bool required = false) {
    if (!ok()) return;
    const auto it = j.find(key);
    if (it == j.end()) {
      if (required) fail(path + key, "missing");
      return;
    }
    if (!type_fits<T>(*it)) {
      fail(path + key, std::string("wrong type (") + it->type_name() + ")");
      return;
    }
    try {
      out = it->template get<T>();
    } catch (const json::exception&) {
      fail(path + key, std::string("wrong type (") + it->type_name() + ")");
    }
  }
  const json* object(const json& j, const char* key, const std::string& path) {
    const auto it = j.find(key);
    if (it == j.end()) return nullptr;
    if (!it->is_object()) return fail(path + key, "expected an object"), nullptr;
    return &*it;
  }
  const json* array(const json& j, const char* key, const std::string& path) {
    const auto it = j.find(key);
    if (it == j.end()) return nullptr;
    if (!it->is_array()) return fail(path + key, "expected an array"), nullptr;
    return &*it;
  }
  void fail(const std::string& field, const std::string& what) {
    if (ok()) error_ = "offset " + std::to_string(offset_of(field)) + ": field '" + field + "': " + what;
  }

 private:
  // Where `field` ("workers[2].busy_s") is in the text, found by looking up
  // each key name in turn after the previous one: the parsed document keeps no
  // positions. A missing key gives its enclosing object's place (0: the document).
  std::size_t offset_of(const std::string& field) const {
    std::size_t at = 0;
    for (std::size_t from = 0; from < field.size();) {
      const std::size_t dot = std::min(field.find('.', from), field.size());
      const std::string key = field.substr(from, std::min(field.find('[', from), dot) - from);
      from = dot + 1;
      const std::size_t found = text_.find("\"" + key + "\"", at);
      if (key.empty() || found == std::string_view::npos) break;
      at = found;
    }
    return at;
  }

  std::string& error_;
  std::string_view text_;
};

}  // namespace

void fill_from_engine(Report& r, const Engine& engine) {
  const TempoLadder& ladder = engine.ladder();
  r.frequencies_hz = ladder.frequencies_hz();
  r.workers.clear();
  for (const WorkerStats& s : engine.worker_stats()) {
    WorkerReport w;
    w.id = s.id;
    w.domain = s.domain;
    w.tasks_completed = s.tasks_completed;
    w.segments = s.segments;
    w.pushes = s.pushes;
    w.pops = s.pops;
    w.steals = s.steals;
    w.stolen_from = s.stolen_from;
    w.idles = s.idles;
    w.max_depth = s.max_depth;
    w.mean_depth = s.mean_depth;
    for (int l = 0; l < ladder.levels(); ++l)
      w.busy_s_at_level.push_back(static_cast<double>(s.busy_ns_at_level[static_cast<std::size_t>(l)]) * 1e-9);
    w.busy_s = static_cast<double>(s.busy_ns) * 1e-9;
    w.alive_s = s.last_seen_ns > s.first_seen_ns ? static_cast<double>(s.last_seen_ns - s.first_seen_ns) * 1e-9 : 0;
    w.level_changes = s.level_changes;
    w.wait_s = static_cast<double>(s.wait_ns) * 1e-9;
    w.wait_slowed_s = static_cast<double>(s.wait_slowed_ns) * 1e-9;
    w.slowed_wakeups = s.slowed_wakeups;
    w.raise_delay_s = static_cast<double>(s.raise_delay_ns) * 1e-9;
    w.guard_holds = s.guard_holds;
    r.workers.push_back(std::move(w));
  }
  r.domains.clear();
  for (const DomainStats& d : engine.domain_stats()) {
    DomainReport dr;
    dr.id = d.id;
    dr.workers = d.workers;
    dr.transitions = d.transitions;
    dr.conflicts = d.conflicts;
    r.domains.push_back(std::move(dr));
  }
  r.dropped_events = engine.dropped_events();
  r.policy = engine.policy().name();
}

std::string to_json(const Report& r, bool pretty) {
  json j;
  j["schema_version"] = r.schema_version;
  j["tool"] = {{"name", "rubato"}, {"version", r.tool_version}};
  j["host"] = r.host;
  if (r.rank) j["rank"] = *r.rank;
  j["pid"] = r.pid;
  j["started_at"] = r.started_at;
  j["command"] = r.command;
  if (!r.ended.empty()) j["ended"] = r.ended;
  if (!r.workload.empty()) j["workload"] = r.workload;
  if (r.trial) j["trial"] = *r.trial;
  j["runtime"] = r.runtime;
  j["frontend"] = r.frontend;
  j["steals_observed"] = r.steals_observed;
  j["backend"] = {{"name", r.backend}, {"note", r.backend_note}};
  j["profile"] = r.profile;
  j["policy"] = {{"name", r.policy}, {"parameters", r.parameters}};
  j["frequencies_hz"] = r.frequencies_hz;
  j["binding"] = r.binding;
  j["workers_requested"] = r.workers_requested;
  j["wall_s"] = r.wall_s;
  j["energy"] = energy_json(r.energy);
  json workers = json::array();
  for (const auto& w : r.workers) {
    workers.push_back({{"id", w.id},
                       {"core", w.core},
                       {"domain", w.domain},
                       {"tasks_completed", w.tasks_completed},
                       {"segments", w.segments},
                       {"pushes", w.pushes},
                       {"pops", w.pops},
                       {"steals", w.steals},
                       {"stolen_from", w.stolen_from},
                       {"idles", w.idles},
                       {"max_depth", w.max_depth},
                       {"mean_depth", w.mean_depth},
                       {"busy_s_at_level", w.busy_s_at_level},
                       {"busy_s", w.busy_s},
                       {"alive_s", w.alive_s},
                       {"level_changes", w.level_changes},
                       {"emulated_delay_s", w.emulated_delay_s},
                       {"throttled_s", w.throttled_s},
                       {"wait_s", w.wait_s},
                       {"wait_slowed_s", w.wait_slowed_s},
                       {"slowed_wakeups", w.slowed_wakeups},
                       {"raise_delay_s", w.raise_delay_s},
                       {"guard_holds", w.guard_holds}});
  }
  j["workers"] = std::move(workers);
  json domains = json::array();
  for (const auto& d : r.domains) {
    domains.push_back({{"id", d.id},
                       {"workers", d.workers},
                       {"cpus", d.cpus},
                       {"transitions", d.transitions},
                       {"applied_transitions", d.applied_transitions},
                       {"conflicts", d.conflicts}});
  }
  j["domains"] = std::move(domains);
  json throttles = json::array();
  for (const auto& t : r.throttle_events)
    throttles.push_back({{"t_s", t.t_s}, {"worker", t.worker}, {"parked", t.parked}, {"reason", t.reason}});
  j["throttle_events"] = std::move(throttles);
  json migrations = json::array();
  for (const auto& m : r.migrations)
    migrations.push_back(
        {{"t_s", m.t_s}, {"worker", m.worker}, {"from_cpu", m.from_cpu}, {"to_cpu", m.to_cpu}, {"reason", m.reason}});
  j["migrations"] = std::move(migrations);
  j["dropped_events"] = r.dropped_events;
  j["tool_errors"] = r.tool_errors;
  j["notes"] = r.notes;
  j["external"] = r.external;
  j["exit_status"] = r.exit_status;
  // Replace invalid UTF-8 (a command line may hold anything) instead of throwing.
  return j.dump(pretty ? 2 : -1, ' ', false, json::error_handler_t::replace);
}

std::optional<Report> report_from_json(std::string_view text, std::string& error) {
  error.clear();
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    error = json_syntax_error(text, e.what(), e.byte);
    return std::nullopt;
  } catch (const json::exception& e) {  // a number too large for a double (found by fuzzing)
    error = json_syntax_error(text, e.what(), std::nullopt);
    return std::nullopt;
  }
  if (!j.is_object()) {
    error = "offset 0: a report is a JSON object";
    return std::nullopt;
  }
  Report r;
  Reader rd(error, text);
  rd.get(j, "schema_version", r.schema_version, "", true);
  if (rd.ok() && r.schema_version != kReportSchemaVersion) {
    error = "offset " + std::to_string(text.find("\"schema_version\"")) + ": schema_version " +
            std::to_string(r.schema_version) + " is not supported (this rubato reads " +
            std::to_string(kReportSchemaVersion) + ")";
    return std::nullopt;
  }
  if (const json* tool = rd.object(j, "tool", "")) rd.get(*tool, "version", r.tool_version, "tool.");
  rd.get(j, "host", r.host, "");
  if (j.contains("rank")) {
    int rank = 0;
    rd.get(j, "rank", rank, "");
    r.rank = rank;
  }
  rd.get(j, "pid", r.pid, "");
  rd.get(j, "started_at", r.started_at, "");
  rd.get(j, "command", r.command, "");
  rd.get(j, "ended", r.ended, "");  // optional: absent from older reports
  rd.get(j, "workload", r.workload, "");
  if (j.contains("trial")) {
    int trial = 0;
    rd.get(j, "trial", trial, "");
    if (rd.ok() && trial < 0) rd.fail("trial", "must not be negative");
    r.trial = trial;
  }
  rd.get(j, "runtime", r.runtime, "");
  rd.get(j, "frontend", r.frontend, "");
  rd.get(j, "steals_observed", r.steals_observed, "");
  if (const json* b = rd.object(j, "backend", "")) {
    rd.get(*b, "name", r.backend, "backend.", true);
    rd.get(*b, "note", r.backend_note, "backend.");
  }
  rd.get(j, "profile", r.profile, "");
  if (const json* p = rd.object(j, "policy", "")) {
    rd.get(*p, "name", r.policy, "policy.", true);
    rd.get(*p, "parameters", r.parameters, "policy.");
  } else if (rd.ok()) {
    rd.fail("policy", "missing");
  }
  rd.get(j, "frequencies_hz", r.frequencies_hz, "");
  rd.get(j, "binding", r.binding, "");
  rd.get(j, "workers_requested", r.workers_requested, "");
  rd.get(j, "wall_s", r.wall_s, "", true);
  if (const json* e = rd.object(j, "energy", "")) {
    rd.get(*e, "available", r.energy.available, "energy.", true);
    if (r.energy.available) {
      rd.get(*e, "joules", r.energy.joules, "energy.", true);
      rd.get(*e, "source", r.energy.source, "energy.", true);
      if (rd.ok() && r.energy.source.empty()) rd.fail("energy.source", "an energy figure must name its source");
    } else {
      rd.get(*e, "why_not", r.energy.why_not, "energy.");
    }
  }
  if (const json* ws = rd.array(j, "workers", "")) {
    for (std::size_t i = 0; i < ws->size() && rd.ok(); ++i) {
      const json& wj = (*ws)[i];
      const std::string path = "workers[" + std::to_string(i) + "].";
      if (!wj.is_object()) {
        rd.fail(path.substr(0, path.size() - 1), "expected an object");
        break;
      }
      WorkerReport w;
      rd.get(wj, "id", w.id, path, true);
      rd.get(wj, "core", w.core, path);
      rd.get(wj, "domain", w.domain, path);
      rd.get(wj, "tasks_completed", w.tasks_completed, path);
      rd.get(wj, "segments", w.segments, path);
      rd.get(wj, "pushes", w.pushes, path);
      rd.get(wj, "pops", w.pops, path);
      rd.get(wj, "steals", w.steals, path);
      rd.get(wj, "stolen_from", w.stolen_from, path);
      rd.get(wj, "idles", w.idles, path);
      rd.get(wj, "max_depth", w.max_depth, path);
      rd.get(wj, "mean_depth", w.mean_depth, path);
      rd.get(wj, "busy_s_at_level", w.busy_s_at_level, path);
      rd.get(wj, "busy_s", w.busy_s, path);
      rd.get(wj, "alive_s", w.alive_s, path);
      rd.get(wj, "level_changes", w.level_changes, path);
      rd.get(wj, "emulated_delay_s", w.emulated_delay_s, path);
      rd.get(wj, "throttled_s", w.throttled_s, path);
      rd.get(wj, "wait_s", w.wait_s, path);
      rd.get(wj, "wait_slowed_s", w.wait_slowed_s, path);
      rd.get(wj, "slowed_wakeups", w.slowed_wakeups, path);
      rd.get(wj, "raise_delay_s", w.raise_delay_s, path);
      rd.get(wj, "guard_holds", w.guard_holds, path);
      r.workers.push_back(std::move(w));
    }
  }
  if (const json* ds = rd.array(j, "domains", "")) {
    for (std::size_t i = 0; i < ds->size() && rd.ok(); ++i) {
      const json& dj = (*ds)[i];
      const std::string path = "domains[" + std::to_string(i) + "].";
      if (!dj.is_object()) {
        rd.fail(path.substr(0, path.size() - 1), "expected an object");
        break;
      }
      DomainReport d;
      rd.get(dj, "id", d.id, path, true);
      rd.get(dj, "workers", d.workers, path);
      rd.get(dj, "cpus", d.cpus, path);
      rd.get(dj, "transitions", d.transitions, path);
      rd.get(dj, "applied_transitions", d.applied_transitions, path);
      rd.get(dj, "conflicts", d.conflicts, path);
      r.domains.push_back(std::move(d));
    }
  }
  if (const json* ts = rd.array(j, "throttle_events", "")) {
    for (std::size_t i = 0; i < ts->size() && rd.ok(); ++i) {
      const json& tj = (*ts)[i];
      const std::string path = "throttle_events[" + std::to_string(i) + "].";
      if (!tj.is_object()) {
        rd.fail(path.substr(0, path.size() - 1), "expected an object");
        break;
      }
      ThrottleEvent t;
      rd.get(tj, "t_s", t.t_s, path);
      rd.get(tj, "worker", t.worker, path);
      rd.get(tj, "parked", t.parked, path);
      rd.get(tj, "reason", t.reason, path);
      r.throttle_events.push_back(std::move(t));
    }
  }
  if (const json* ms = rd.array(j, "migrations", "")) {
    for (std::size_t i = 0; i < ms->size() && rd.ok(); ++i) {
      const json& mj = (*ms)[i];
      const std::string path = "migrations[" + std::to_string(i) + "].";
      if (!mj.is_object()) {
        rd.fail(path.substr(0, path.size() - 1), "expected an object");
        break;
      }
      MigrationEvent m;
      rd.get(mj, "t_s", m.t_s, path);
      rd.get(mj, "worker", m.worker, path);
      rd.get(mj, "from_cpu", m.from_cpu, path);
      rd.get(mj, "to_cpu", m.to_cpu, path);
      rd.get(mj, "reason", m.reason, path);
      r.migrations.push_back(std::move(m));
    }
  }
  rd.get(j, "dropped_events", r.dropped_events, "");
  rd.get(j, "tool_errors", r.tool_errors, "");
  rd.get(j, "notes", r.notes, "");
  rd.get(j, "external", r.external, "");
  rd.get(j, "exit_status", r.exit_status, "");
  if (!rd.ok()) return std::nullopt;
  return r;
}

std::string expand_path_pattern(std::string_view pattern, std::int64_t pid, std::string_view host,
                                std::optional<int> rank) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    switch (pattern[++i]) {
      case 'p': out += std::to_string(pid); break;
      case 'h': out += host; break;
      case 'r': out += std::to_string(rank.value_or(0)); break;
      case '%': out += '%'; break;
      default:
        out += '%';
        out += pattern[i];
        break;
    }
  }
  return out;
}

}  // namespace rubato
