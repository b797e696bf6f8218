// The counter-source table, make_counter_source and CounterSet:
// RUBATO_COUNTERS names the sources; each metric is taken from the first that
// has it here.
#include <algorithm>
#include <array>

#include "counters/counter_source_makers.hpp"

namespace rubato {
namespace detail {

void mark_unavailable(counters::MetricAvailability& a, const std::string& why) {
  for (counters::Metric m : counters::kAllMetrics)
    if (!a.has(m) && a[m].note.empty()) a[m].note = why;
}

}  // namespace detail

namespace {

const std::array kSources = {
    CounterSourceEntry{"papi", "PAPI perf_event component: one event set per thread", true,
                       [](const CounterSourceOptions& o, std::string& why) {
                         auto s = detail::make_papi_counters(o.want);
                         if (!s) why = "rubato was built without PAPI (RUBATO_WITH_PAPI=OFF)";
                         return s;
                       }},
    CounterSourceEntry{"likwid", "likwid perfmon in direct mode, per CPU (probed in a child)", true,
                       [](const CounterSourceOptions& o, std::string& why) {
                         auto s = detail::make_likwid_counters(o.want);
                         if (!s) why = "rubato was built without likwid (RUBATO_WITH_LIKWID=OFF)";
                         return s;
                       }},
    CounterSourceEntry{"perf", "perf_event_open: task-clock, instructions, cycles, LLC misses", true,
                       [](const CounterSourceOptions& o, std::string&) { return detail::make_perf_counters(o.want); }},
    CounterSourceEntry{"proc", "/proc/<pid>/task/<tid>/schedstat or stat: CPU time only", true,
                       [](const CounterSourceOptions&, std::string&) { return detail::make_proc_counters(); }},
    CounterSourceEntry{"replay", "a recorded series (replay:<file>)", false,
                       [](const CounterSourceOptions& o, std::string& why) {
                         return detail::make_replay_counters(o.replay_path, why);
                       }},
};

}  // namespace

std::span<const CounterSourceEntry> counter_sources() { return kSources; }

std::unique_ptr<CounterSource> make_counter_source(std::string_view name, const CounterSourceOptions& options,
                                                   std::string& why) {
  if (const CounterSourceEntry* entry = find_plugin(counter_sources(), name)) return entry->make(options, why);
  why = "unknown counter source '" + std::string(name) + "'";
  return nullptr;
}

CounterSet::CounterSet(std::string_view setting, const CounterSourceOptions& options) {
  using counters::Metric;
  std::vector<std::string> names;
  CounterSourceOptions opts = options;
  if (setting == "auto") {
    for (const auto& entry : counter_sources())
      if (entry.in_auto && std::find(options.auto_leaves_out.begin(), options.auto_leaves_out.end(), entry.name) ==
                               options.auto_leaves_out.end())
        names.emplace_back(entry.name);
  } else if (setting.substr(0, 7) == "replay:") {
    names = {"replay"};
    opts.replay_path = std::string(setting.substr(7));
  } else if (setting != "none") {
    names = {std::string(setting)};
  }
  std::array<std::string, counters::kMetricCount> why_not{};
  for (const std::string& name : names) {
    std::string why;
    auto source = make_counter_source(name, opts, why);
    if (!source) {
      for (std::string& w : why_not) w += (w.empty() ? "" : "; ") + name + ": " + why;
      continue;
    }
    bool useful = false;
    for (Metric m : counters::kAllMetrics) {
      const auto& status = source->availability()[m];
      auto& w = why_not[static_cast<std::size_t>(m)];
      if (availability_.has(m)) continue;
      if (status.available && (options.want.empty() || detail::wants(options.want, m))) {
        availability_[m] = status;
        useful = true;
      } else if (!status.available) {
        w += (w.empty() ? "" : "; ") + status.note;
      }
    }
    if (useful) sources_.push_back(std::move(source));
  }
  for (Metric m : counters::kAllMetrics) {
    if (availability_.has(m)) continue;
    if (setting == "none") availability_[m].note = "RUBATO_COUNTERS=none";
    else if (!detail::wants(options.want, m)) availability_[m].note = "not needed by the policies in force";
    else availability_[m].note = why_not[static_cast<std::size_t>(m)];
  }
}

std::string CounterSet::names() const {
  std::string out;
  for (const auto& s : sources_) out += (out.empty() ? "" : "+") + std::string(s->name());
  return out.empty() ? "none" : out;
}

void CounterSet::track(const CounterTarget& target) {
  for (auto& s : sources_) s->track(target);
}

void CounterSet::untrack(std::uint64_t id) {
  for (auto& s : sources_) s->untrack(id);
}

counters::CounterSample CounterSet::sample(double elapsed_s) {
  using counters::Metric;
  counters::CounterSample out;
  out.elapsed_s = elapsed_s;
  bool first = true;
  for (auto& source : sources_) {
    counters::CounterSample s = source->sample(elapsed_s);
    if (first) out.elapsed_s = s.elapsed_s > 0 ? s.elapsed_s : elapsed_s;  // a replay says how long its interval was
    first = false;
    // Each metric from the source chosen for it only.
    for (Metric m : counters::kAllMetrics) {
      if (availability_[m].source != source->name()) continue;
      if (counters::is_chip_metric(m)) {
        *out.chip.field(m) = *s.chip.field(m);
      } else {
        for (const auto& t : s.threads) *out.thread_or_add(t.id).field(m) = *t.field(m);
      }
    }
  }
  return out;
}

bool CounterSet::exhausted() const noexcept {
  for (const auto& s : sources_)
    if (s->exhausted()) return true;
  return false;
}

}  // namespace rubato
