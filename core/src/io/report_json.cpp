#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include "rubato/core/io/report.hpp"
#include "rubato/core/io/json_error.hpp"

namespace rubato {
namespace {

using json = nlohmann::json;

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

// ---- the report's fields, each named once -----------------------------------
// A table of Field<S> says how a struct S is written and read: to_json and
// report_from_json walk the same tables. The reader goes through a table in
// order and stops at the first error, so the order is also that of the checks.

enum FieldFlags : unsigned {
  kOptional = 0,
  kRequired = 1u << 0,   // reading: absent is an error
  kOmitEmpty = 1u << 1,  // writing: an empty string is left out
};

template <class S>
struct Field {
  using Struct = S;
  const char* name;
  unsigned flags;
  void (*write)(json& object, const Field& f, const S& s);
  void (*read)(Reader& rd, const json& object, const Field& f, S& s, const std::string& path);
  bool (*present)(const S& s);       // nullptr: always; else written and read only where it holds
  const char* (*check)(const S& s);  // after reading: what is wrong, or nullptr
};

template <class S>
void write_fields(json& object, std::span<const Field<std::type_identity_t<S>>> fields, const S& s) {
  for (const Field<S>& f : fields)
    if (!f.present || f.present(s)) f.write(object, f, s);
}

template <class S>
void read_fields(Reader& rd, const json& object, std::span<const Field<std::type_identity_t<S>>> fields, S& s,
                 const std::string& path) {
  for (const Field<S>& f : fields) {
    if (!rd.ok()) return;
    if (f.present && !f.present(s)) continue;
    f.read(rd, object, f, s, path);
    if (f.check && rd.ok())
      if (const char* what = f.check(s)) rd.fail(path + f.name, what);
  }
}

template <class M>
struct MemberOf;
template <class S, class T>
struct MemberOf<T S::*> {
  using Struct = S;
  using Value = T;
};
template <auto Member>
using StructOf = typename MemberOf<decltype(Member)>::Struct;
template <auto Member>
using ValueOf = typename MemberOf<decltype(Member)>::Value;

template <class T>
inline constexpr bool kIsOptional = false;
template <class T>
inline constexpr bool kIsOptional<std::optional<T>> = true;

// A member written as one JSON value (number, string, bool, or a list or map
// of them). A std::optional is written when set and read when present.
template <auto Member>
constexpr Field<StructOf<Member>> value(const char* name, unsigned flags = kOptional,
                                        bool (*present)(const StructOf<Member>&) = nullptr,
                                        const char* (*check)(const StructOf<Member>&) = nullptr) {
  using S = StructOf<Member>;
  using T = ValueOf<Member>;
  return {name,
          flags,
          [](json& object, const Field<S>& f, const S& s) {
            const T& v = s.*Member;
            if constexpr (kIsOptional<T>) {
              if (v) object[f.name] = *v;
            } else if constexpr (std::is_same_v<T, std::string>) {
              if (!(f.flags & kOmitEmpty) || !v.empty()) object[f.name] = v;
            } else {
              object[f.name] = v;
            }
          },
          [](Reader& rd, const json& object, const Field<S>& f, S& s, const std::string& path) {
            if constexpr (kIsOptional<T>) {
              if (!object.contains(f.name)) return;
              typename T::value_type v{};
              rd.get(object, f.name, v, path);
              s.*Member = v;
            } else {
              rd.get(object, f.name, s.*Member, path, (f.flags & kRequired) != 0);
            }
          },
          present,
          check};
}

// A JSON object holding `Fields`, members of the enclosing struct itself
// ("backend": {"name", "note"} of Report::backend, Report::backend_note).
template <const auto& Fields>
constexpr auto group(const char* name, unsigned flags = kOptional) {
  using S = typename std::remove_cvref_t<decltype(Fields[0])>::Struct;
  return Field<S>{name,
                  flags,
                  [](json& object, const Field<S>& f, const S& s) {
                    json inner = json::object();
                    write_fields(inner, Fields, s);
                    object[f.name] = std::move(inner);
                  },
                  [](Reader& rd, const json& object, const Field<S>& f, S& s, const std::string& path) {
                    if (const json* inner = rd.object(object, f.name, path))
                      read_fields(rd, *inner, Fields, s, path + f.name + ".");
                    else if ((f.flags & kRequired) && rd.ok()) rd.fail(path + f.name, "missing");
                  },
                  nullptr,
                  nullptr};
}

// A JSON object for a struct member, holding that struct's `Fields`.
template <auto Member, const auto& Fields>
constexpr Field<StructOf<Member>> nested(const char* name) {
  using S = StructOf<Member>;
  return {name,
          kOptional,
          [](json& object, const Field<S>& f, const S& s) {
            json inner = json::object();
            write_fields(inner, Fields, s.*Member);
            object[f.name] = std::move(inner);
          },
          [](Reader& rd, const json& object, const Field<S>& f, S& s, const std::string& path) {
            if (const json* inner = rd.object(object, f.name, path))
              read_fields(rd, *inner, Fields, s.*Member, path + f.name + ".");
          },
          nullptr,
          nullptr};
}

// A JSON array of objects for a std::vector member, each element's `Fields`;
// with `omit_empty`, an empty vector is not written (fields added later, so
// that reports without them stay as they were).
template <auto Member, const auto& Fields, bool omit_empty = false>
constexpr Field<StructOf<Member>> list(const char* name) {
  using S = StructOf<Member>;
  return {name,
          kOptional,
          [](json& object, const Field<S>& f, const S& s) {
            if (omit_empty && (s.*Member).empty()) return;
            json items = json::array();
            for (const auto& element : s.*Member) {
              json item = json::object();
              write_fields(item, Fields, element);
              items.push_back(std::move(item));
            }
            object[f.name] = std::move(items);
          },
          [](Reader& rd, const json& object, const Field<S>& f, S& s, const std::string& path) {
            const json* items = rd.array(object, f.name, path);
            for (std::size_t i = 0; items && i < items->size() && rd.ok(); ++i) {
              const std::string at = path + f.name + "[" + std::to_string(i) + "]";
              if (!(*items)[i].is_object()) return rd.fail(at, "expected an object");
              typename ValueOf<Member>::value_type element;
              read_fields(rd, (*items)[i], Fields, element, at + ".");
              (s.*Member).push_back(std::move(element));
            }
          },
          nullptr,
          nullptr};
}

bool energy_available(const EnergyFigure& e) { return e.available; }
bool energy_unavailable(const EnergyFigure& e) { return !e.available; }
const char* energy_source_named(const EnergyFigure& e) {
  return e.source.empty() ? "an energy figure must name its source" : nullptr;
}
const char* trial_not_negative(const Report& r) { return r.trial && *r.trial < 0 ? "must not be negative" : nullptr; }
// As a shell reports it: exit()'s 0..255, or 128 + a signal number.
const char* exit_status_in_range(const Report& r) {
  return r.exit_status && (*r.exit_status < 0 || *r.exit_status > 255) ? "must be 0..255" : nullptr;
}

constexpr Field<EnergyFigure> kEnergyFields[] = {
    value<&EnergyFigure::available>("available", kRequired),
    value<&EnergyFigure::joules>("joules", kRequired, energy_available),
    value<&EnergyFigure::source>("source", kRequired, energy_available, energy_source_named),
    value<&EnergyFigure::why_not>("why_not", kOptional, energy_unavailable),
};

constexpr Field<WorkerReport> kWorkerFields[] = {
    value<&WorkerReport::id>("id", kRequired),
    value<&WorkerReport::core>("core"),
    value<&WorkerReport::domain>("domain"),
    value<&WorkerReport::tasks_completed>("tasks_completed"),
    value<&WorkerReport::segments>("segments"),
    value<&WorkerReport::pushes>("pushes"),
    value<&WorkerReport::pops>("pops"),
    value<&WorkerReport::steals>("steals"),
    value<&WorkerReport::stolen_from>("stolen_from"),
    value<&WorkerReport::idles>("idles"),
    value<&WorkerReport::max_depth>("max_depth"),
    value<&WorkerReport::mean_depth>("mean_depth"),
    value<&WorkerReport::busy_s_at_level>("busy_s_at_level"),
    value<&WorkerReport::busy_s>("busy_s"),
    value<&WorkerReport::alive_s>("alive_s"),
    value<&WorkerReport::level_changes>("level_changes"),
    value<&WorkerReport::emulated_delay_s>("emulated_delay_s"),
    value<&WorkerReport::throttled_s>("throttled_s"),
    value<&WorkerReport::wait_s>("wait_s"),
    value<&WorkerReport::wait_slowed_s>("wait_slowed_s"),
    value<&WorkerReport::slowed_wakeups>("slowed_wakeups"),
    value<&WorkerReport::raise_delay_s>("raise_delay_s"),
    value<&WorkerReport::guard_holds>("guard_holds"),
    value<&WorkerReport::critical_raises>("critical_raises"),
};

constexpr Field<DomainReport> kDomainFields[] = {
    value<&DomainReport::id>("id", kRequired),
    value<&DomainReport::workers>("workers"),
    value<&DomainReport::cpus>("cpus"),
    value<&DomainReport::transitions>("transitions"),
    value<&DomainReport::applied_transitions>("applied_transitions"),
    value<&DomainReport::conflicts>("conflicts"),
};

constexpr Field<ThrottleEvent> kThrottleFields[] = {
    value<&ThrottleEvent::t_s>("t_s"),
    value<&ThrottleEvent::worker>("worker"),
    value<&ThrottleEvent::parked>("parked"),
    value<&ThrottleEvent::reason>("reason"),
};

constexpr Field<MigrationEvent> kMigrationFields[] = {
    value<&MigrationEvent::t_s>("t_s"),           value<&MigrationEvent::worker>("worker"),
    value<&MigrationEvent::from_cpu>("from_cpu"), value<&MigrationEvent::to_cpu>("to_cpu"),
    value<&MigrationEvent::reason>("reason"),
};

constexpr Field<FrequencyPairEvent> kFrequencyPairFields[] = {
    value<&FrequencyPairEvent::t_s>("t_s"),
    value<&FrequencyPairEvent::core_sensitivity>("core_sensitivity"),
    value<&FrequencyPairEvent::uncore_sensitivity>("uncore_sensitivity"),
    value<&FrequencyPairEvent::core_sensitivity_source>("core_sensitivity_source"),
    value<&FrequencyPairEvent::uncore_sensitivity_source>("uncore_sensitivity_source"),
    value<&FrequencyPairEvent::transaction_rate_per_s>("transaction_rate_per_s"),
    value<&FrequencyPairEvent::working>("working"),
    value<&FrequencyPairEvent::waiting>("waiting"),
    value<&FrequencyPairEvent::core_level>("core_level"),
    value<&FrequencyPairEvent::core_hz>("core_hz"),
    value<&FrequencyPairEvent::uncore_level>("uncore_level"),
    value<&FrequencyPairEvent::uncore_hz>("uncore_hz"),
    value<&FrequencyPairEvent::time_factor>("time_factor"),
    value<&FrequencyPairEvent::energy_ratio>("energy_ratio"),
    value<&FrequencyPairEvent::model>("model"),
    value<&FrequencyPairEvent::reason>("reason"),
};

constexpr Field<LearningProbe> kLearningProbeFields[] = {
    value<&LearningProbe::t_s>("t_s"),
    value<&LearningProbe::phase>("phase"),
    value<&LearningProbe::lever>("lever"),
    value<&LearningProbe::level>("level"),
    value<&LearningProbe::type>("type"),
    value<&LearningProbe::time_factor>("time_factor"),
    value<&LearningProbe::time_factor_se>("time_factor_se"),
    value<&LearningProbe::energy_ratio>("energy_ratio"),
    value<&LearningProbe::energy_source>("energy_source"),
    value<&LearningProbe::segments>("segments"),
    value<&LearningProbe::kept>("kept"),
    value<&LearningProbe::why>("why"),
};

constexpr Field<LearnedType> kLearnedTypeFields[] = {
    value<&LearnedType::type>("type"),
    value<&LearnedType::name>("name", kOmitEmpty),
    value<&LearnedType::segments>("segments"),
    value<&LearnedType::reference_ns>("reference_ns"),
    value<&LearnedType::core_sensitivity>("core_sensitivity"),
    value<&LearnedType::uncore_sensitivity>("uncore_sensitivity"),
    value<&LearnedType::core_level>("core_level"),
    value<&LearnedType::source>("source"),
};

// "tool": {"name": "rubato", "version": ...}; the name is written, not read.
constexpr Field<Report> kToolFields[] = {
    {"name", kOptional, [](json& object, const Field<Report>& f, const Report&) { object[f.name] = "rubato"; },
     [](Reader&, const json&, const Field<Report>&, Report&, const std::string&) {}, nullptr, nullptr},
    value<&Report::tool_version>("version"),
};

constexpr Field<Report> kBackendFields[] = {
    value<&Report::backend>("name", kRequired),
    value<&Report::backend_note>("note"),
};

constexpr Field<Report> kPolicyFields[] = {
    value<&Report::policy>("name", kRequired),
    value<&Report::parameters>("parameters"),
};

// schema_version comes first: the reader checks it before reading the rest.
constexpr Field<Report> kReportFields[] = {
    value<&Report::schema_version>("schema_version", kRequired),
    group<kToolFields>("tool"),
    value<&Report::host>("host"),
    value<&Report::rank>("rank"),
    value<&Report::pid>("pid"),
    value<&Report::started_at>("started_at"),
    value<&Report::command>("command"),
    value<&Report::ended>("ended", kOmitEmpty),  // optional: absent from older reports
    value<&Report::workload>("workload", kOmitEmpty),
    value<&Report::trial>("trial", kOptional, nullptr, trial_not_negative),
    value<&Report::runtime>("runtime"),
    value<&Report::frontend>("frontend"),
    value<&Report::steals_observed>("steals_observed"),
    group<kBackendFields>("backend"),
    value<&Report::profile>("profile"),
    group<kPolicyFields>("policy", kRequired),
    value<&Report::frequencies_hz>("frequencies_hz"),
    value<&Report::binding>("binding"),
    value<&Report::workers_requested>("workers_requested"),
    value<&Report::wall_s>("wall_s", kRequired),
    nested<&Report::energy, kEnergyFields>("energy"),
    list<&Report::workers, kWorkerFields>("workers"),
    list<&Report::domains, kDomainFields>("domains"),
    list<&Report::throttle_events, kThrottleFields>("throttle_events"),
    list<&Report::migrations, kMigrationFields>("migrations"),
    list<&Report::frequency_pairs, kFrequencyPairFields>("frequency_pairs"),
    list<&Report::learning_probes, kLearningProbeFields, true>("learning_probes"),
    list<&Report::learned_types, kLearnedTypeFields, true>("learned_types"),
    value<&Report::dropped_events>("dropped_events"),
    value<&Report::tool_errors>("tool_errors"),
    value<&Report::notes>("notes"),
    value<&Report::external>("external"),
    value<&Report::exit_status>("exit_status", kOptional, nullptr, exit_status_in_range),  // absent: not known
};
static_assert(std::string_view(kReportFields[0].name) == "schema_version");

// The text as a JSON object, or nullopt with `error` set.
std::optional<json> parse_report_object(std::string_view text, std::string& error) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    error = json_syntax_error(text, e);
    return std::nullopt;
  }
  if (!j.is_object()) {
    error = "offset 0: a report is a JSON object";
    return std::nullopt;
  }
  return j;
}

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
    w.critical_raises = s.critical_raises;
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
  json j = json::object();
  write_fields(j, kReportFields, r);
  // Replace invalid UTF-8 (a command line may hold anything) instead of throwing.
  return j.dump(pretty ? 2 : -1, ' ', false, json::error_handler_t::replace);
}

std::optional<Report> report_from_json(std::string_view text, std::string& error) {
  error.clear();
  const std::optional<json> j = parse_report_object(text, error);
  if (!j) return std::nullopt;
  const std::span<const Field<Report>> fields(kReportFields);
  Report r;
  Reader rd(error, text);
  read_fields(rd, *j, fields.first(1), r, "");
  if (rd.ok() && r.schema_version != kReportSchemaVersion) {
    error = "offset " + std::to_string(text.find("\"schema_version\"")) + ": schema_version " +
            std::to_string(r.schema_version) + " is not supported (this rubato reads " +
            std::to_string(kReportSchemaVersion) + ")";
    return std::nullopt;
  }
  read_fields(rd, *j, fields.subspan(1), r, "");
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
