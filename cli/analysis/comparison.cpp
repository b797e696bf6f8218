#include "analysis/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

namespace rubato::cli {
namespace {

bool is_measured(const std::string& source) { return source.rfind("measured:", 0) == 0; }

// The order the paper discusses them in, then rubato's own (beyond the papers);
// anything else follows by name.
int policy_rank(const std::string& p, const std::string& baseline) {
  if (p == baseline) return 0;
  static const char* known[] = {"workpath", "workload", "hermes", "slack", "eco"};
  for (int i = 0; i < 5; ++i)
    if (p == known[i]) return i + 1;
  return 6;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (!s.empty() && std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

// Energy of a trial's ranks, node by node. Measured: the node's meter
// (RAPL counts every package of the node, whichever rank reads it) as every
// rank on it saw it, taken once: the largest reading, the longest window.
// Modeled: the uncore belongs to the node, taken once (the longest rank's),
// plus each rank's own cores. A modeled figure without its uncore part (a
// report from before it was kept) can only be summed whole: its uncore then
// counts once per rank, and `whole_per_rank` says so.
class NodeEnergies {
 public:
  void add(const std::string& host, double joules, bool measured, std::optional<double> uncore) {
    Node& n = nodes_[host];
    ++n.ranks;
    if (measured) {
      n.measured = std::max(n.measured, joules);
    } else if (uncore && *uncore >= 0 && *uncore <= joules) {
      n.uncore = std::max(n.uncore, *uncore);
      n.cores += joules - *uncore;
    } else {
      n.whole += joules;
      n.whole_ranks += 1;
    }
  }
  double total() const {
    double j = 0;
    for (const auto& [host, n] : nodes_) j += n.measured + n.uncore + n.cores + n.whole;
    return j;
  }
  // Hosts where a modeled uncore was counted for more than one rank.
  std::vector<std::string> whole_per_rank() const {
    std::vector<std::string> out;
    for (const auto& [host, n] : nodes_)
      if (n.whole_ranks > 1 || (n.whole_ranks == 1 && n.uncore > 0)) out.push_back(host);
    return out;
  }
  bool empty() const { return nodes_.empty(); }

 private:
  struct Node {
    int ranks = 0;
    double measured = 0, uncore = 0, cores = 0, whole = 0;
    int whole_ranks = 0;
  };
  std::map<std::string, Node> nodes_;
};

std::optional<double> external_value(const Report& r, const char* key) {
  const auto it = r.external.find(key);
  if (it == r.external.end()) return std::nullopt;
  return it->second;
}

// Sums a rank's counts into its trial: time is the slowest rank's; steals,
// tasks, waiting, transitions and the other counters add up.
void add_rank_counts(TrialResult& t, const Report& rep) {
  t.time_s = std::max(t.time_s, rep.wall_s);
  for (const WorkerReport& w : rep.workers) {
    t.steals += w.steals;
    t.tasks += w.tasks_completed;
    t.emulated_delay_s += w.emulated_delay_s;
    t.wait_s += w.wait_s;
    t.wait_slowed_s += w.wait_slowed_s;
    t.slowed_wakeups += w.slowed_wakeups;
    t.raise_delay_s += w.raise_delay_s;
    if (t.busy_s_at_level.size() < w.busy_s_at_level.size()) t.busy_s_at_level.resize(w.busy_s_at_level.size(), 0.0);
    for (std::size_t l = 0; l < w.busy_s_at_level.size(); ++l) t.busy_s_at_level[l] += w.busy_s_at_level[l];
  }
  for (const DomainReport& d : rep.domains) t.transitions += d.transitions;
  for (const auto& [k, v] : rep.external)
    if (k != kModeledEnergyKey && k != kModeledUncoreKey) t.external[k] += v;
  if (t.backend.empty()) t.backend = rep.backend;
  if (t.profile.empty()) t.profile = rep.profile;
}

// A trial's energy from its ranks' reports, once per node (NodeEnergies);
// available only when every rank has it from one source.
void merge_energy(const std::vector<const RunRecord*>& recs, TrialResult& t, const std::string& which,
                  std::vector<std::string>& notes) {
  std::vector<std::string> sources;
  bool energy_everywhere = true;
  NodeEnergies energy, modeled;  // the reports' energy; the model's figure kept beside a measured one
  double modeled_uncore = 0;
  std::map<std::string, double> uncore_by_host;
  for (const RunRecord* r : recs) {
    const Report& rep = *r->report;
    add_unique(sources, rep.energy.available ? rep.energy.source : std::string());
    const auto uncore = external_value(rep, kModeledUncoreKey);
    if (!rep.energy.available) {
      energy_everywhere = false;
      if (t.energy_why_not.empty())
        t.energy_why_not = rep.energy.why_not.empty() ? "not available" : rep.energy.why_not;
    } else {
      const bool measured = is_measured(rep.energy.source);
      // A modeled figure is the report's energy_modeled_j (same model, same run): its uncore part applies.
      const auto model = external_value(rep, kModeledEnergyKey);
      const bool split = !measured && model && std::fabs(*model - rep.energy.joules) <= 1e-9 * std::max(1.0, *model);
      energy.add(rep.host, rep.energy.joules, measured, split ? uncore : std::nullopt);
    }
    if (const auto model = external_value(rep, kModeledEnergyKey)) modeled.add(rep.host, *model, false, uncore);
    if (uncore) uncore_by_host[rep.host] = std::max(uncore_by_host[rep.host], *uncore);
  }
  for (const auto& [host, j] : uncore_by_host) modeled_uncore += j;
  if (!modeled.empty()) t.external[kModeledEnergyKey] = modeled.total();
  if (!uncore_by_host.empty()) t.external[kModeledUncoreKey] = modeled_uncore;
  if (energy_everywhere && sources.size() == 1) {
    t.energy_available = true;
    t.energy_source = sources.front();
    t.energy_j = energy.total();
    for (const std::string& host : energy.whole_per_rank())
      notes.push_back(which + ": the modeled energy of the ranks on " + host +
                      " is summed whole (their reports do not keep the uncore part apart): the uncore counts once "
                      "per rank there");
  } else if (energy_everywhere) {
    t.energy_source = "mixed: " + join(sources, ", ");
    t.energy_why_not = "ranks report different energy sources (" + join(sources, ", ") + ")";
  }
}

// One trial's process reports (one per rank) into one result. Time is the
// slowest rank's; energy once per node (NodeEnergies); steals, tasks and the
// other counts summed over ranks.
TrialResult merge_trial(const std::vector<const RunRecord*>& recs, std::vector<std::string>& notes) {
  TrialResult t;
  t.series = recs.front()->series;
  t.trial = recs.front()->trial.value_or(0);
  t.ranks = static_cast<int>(recs.size());
  std::set<std::string> hosts;
  std::set<int> ranks;
  for (const RunRecord* r : recs) {
    t.files.push_back(r->file);
    hosts.insert(r->host);
    ranks.insert(r->rank.value_or(0));  // a process no launcher started is rank 0
    if (!r->ok()) {
      t.ok = false;
      if (t.failure.empty()) t.failure = r->error.empty() ? "failed" : r->error;
    }
  }
  t.hosts = static_cast<int>(hosts.size());
  const std::string which = "trial " + std::to_string(t.trial) + " of " + recs.front()->policy;
  if (recs.size() > 1 && ranks.size() != recs.size())
    notes.push_back(which + " has " + std::to_string(recs.size()) +
                    " reports without distinct MPI/Slurm ranks; merged as ranks");
  if (!t.ok) return t;
  for (const RunRecord* r : recs) add_rank_counts(t, *r->report);
  merge_energy(recs, t, which, notes);
  return t;
}

// Mean and interval of each count over the trials used.
void summarize_counts(PolicyResult& p, const std::vector<const TrialResult*>& used) {
  std::vector<double> time, steals, tasks, transitions, delay, wait, wait_slowed, wakeups, raise_delay;
  for (const TrialResult* t : used) {
    time.push_back(t->time_s);
    steals.push_back(static_cast<double>(t->steals));
    tasks.push_back(static_cast<double>(t->tasks));
    transitions.push_back(static_cast<double>(t->transitions));
    delay.push_back(t->emulated_delay_s);
    wait.push_back(t->wait_s);
    wait_slowed.push_back(t->wait_slowed_s);
    wakeups.push_back(static_cast<double>(t->slowed_wakeups));
    if (t->slowed_wakeups > 0) raise_delay.push_back(t->raise_delay_s / static_cast<double>(t->slowed_wakeups));
    add_unique(p.backends, t->backend);
    add_unique(p.profiles, t->profile);
  }
  p.time_s = summarize(time);
  p.steals = summarize(steals);
  p.tasks = summarize(tasks);
  p.transitions = summarize(transitions);
  p.emulated_delay_s = summarize(delay);
  p.wait_s = summarize(wait);
  p.wait_slowed_s = summarize(wait_slowed);
  p.slowed_wakeups = summarize(wakeups);
  p.raise_delay_s = summarize(raise_delay);
}

// Energy is averaged only when every used trial has it from one source: a
// mean over a model and a meter would be neither.
void summarize_energy(PolicyResult& p, const std::vector<const TrialResult*>& used, std::vector<std::string>& notes,
                      const std::string& where) {
  std::vector<double> energy, edp;
  std::vector<std::string> sources;
  std::size_t without_energy = 0;
  std::string why_not;
  for (const TrialResult* t : used) {
    if (t->energy_available) {
      add_unique(sources, t->energy_source);
      energy.push_back(t->energy_j);
      edp.push_back(t->energy_j * t->time_s);
    } else {
      ++without_energy;
      if (why_not.empty()) why_not = t->energy_why_not;
    }
  }
  if (!used.empty() && without_energy == used.size()) {
    p.energy_note = "energy not available" + (why_not.empty() ? std::string() : ": " + why_not);
  } else if (without_energy > 0) {
    p.energy_note = "energy missing in " + std::to_string(without_energy) + " of " + std::to_string(used.size()) +
                    " trials (" + why_not + "); not averaged";
  } else if (sources.size() > 1) {
    p.energy_note = "energy sources differ between trials (" + join(sources, ", ") + "); not averaged";
  } else if (!sources.empty()) {
    p.energy_source = sources.front();
    p.energy_j = summarize(energy);
    p.edp = summarize(edp);
  }
  if (!p.energy_note.empty()) notes.push_back(where + ": " + p.energy_note);
}

// The mean share of busy time at each tempo level, over the trials that were busy.
void summarize_level_shares(PolicyResult& p, const std::vector<const TrialResult*>& used) {
  std::size_t levels = 0;
  for (const TrialResult* t : used) levels = std::max(levels, t->busy_s_at_level.size());
  if (levels == 0) return;
  p.level_share.assign(levels, 0.0);
  std::size_t counted = 0;
  for (const TrialResult* t : used) {
    double busy = 0;
    for (double s : t->busy_s_at_level) busy += s;
    if (busy <= 0) continue;
    ++counted;
    for (std::size_t l = 0; l < t->busy_s_at_level.size(); ++l) p.level_share[l] += t->busy_s_at_level[l] / busy;
  }
  for (double& s : p.level_share) s = counted ? s / static_cast<double>(counted) : 0.0;
  if (counted == 0) p.level_share.clear();
}

void summarize_policy(PolicyResult& p, std::vector<std::string>& notes, const std::string& where) {
  std::vector<const TrialResult*> used;
  for (const TrialResult& t : p.trials) {
    if (t.skipped) ++p.skipped;
    else if (!t.ok) ++p.failed;
    else used.push_back(&t);
  }
  p.used = used.size();
  if (used.empty()) {
    notes.push_back(where + ": no trial left to average (" + std::to_string(p.skipped) + " dropped by --skip, " +
                    std::to_string(p.failed) + " failed)");
  }
  summarize_counts(p, used);
  summarize_energy(p, used, notes, where);
  summarize_level_shares(p, used);
  std::map<std::string, std::vector<double>> external;
  for (const TrialResult* t : used)
    for (const auto& [k, v] : t->external) external[k].push_back(v);
  for (const auto& [k, values] : external) p.external[k] = summarize(values);
}

void normalise(PolicyResult& p, const PolicyResult& base) {
  if (p.used == 0 || base.used == 0) {
    p.normalise_note = base.used == 0 ? "baseline has no trial to compare with" : "no trial to compare";
    return;
  }
  p.time_ratio = ratio_of_means(p.time_s, base.time_s);
  if (p.energy_source.empty() || base.energy_source.empty()) {
    p.normalise_note = "energy not normalised: " + (p.energy_source.empty() ? p.energy_note : base.energy_note);
  } else if (p.energy_source != base.energy_source) {
    p.normalise_note =
        "energy not normalised: source " + p.energy_source + " differs from the baseline's " + base.energy_source;
  } else {
    p.energy_ratio = ratio_of_means(p.energy_j, base.energy_j);
    p.edp_ratio = ratio_of_means(p.edp, base.edp);
  }
}

}  // namespace

std::optional<Ratio> PolicyResult::energy_saving_pct() const {
  if (!energy_ratio) return std::nullopt;
  return Ratio{(1.0 - energy_ratio->value) * 100.0, energy_ratio->ci95 * 100.0};
}

std::optional<Ratio> PolicyResult::time_loss_pct() const {
  if (!time_ratio) return std::nullopt;
  return Ratio{(time_ratio->value - 1.0) * 100.0, time_ratio->ci95 * 100.0};
}

const PolicyResult* WorkloadResult::find(const std::string& policy) const {
  for (const auto& p : policies)
    if (p.policy == policy) return &p;
  return nullptr;
}

namespace {

// workload -> workers -> policy -> series -> the records of each trial.
using Trials = std::map<int, std::vector<const RunRecord*>>;
using GroupKey = std::tuple<std::string, int, std::string>;
using Groups = std::map<GroupKey, std::map<std::string, Trials>>;

// The first trials a series drops: the command line's --skip, else what the
// series' rubato run was given (its index), else the default.
int series_skip(const Trials& trials, const CompareOptions& options) {
  if (options.skip_given) return options.skip;
  for (const auto& [number, recs] : trials)
    for (const RunRecord* r : recs)
      if (r->series_skip) return *r->series_skip;
  return options.skip;
}

// The records by workload, workers, policy, series and trial; records that do
// not say what they ran go to c.failed.
Groups group_records(const std::vector<RunRecord>& records, Comparison& c) {
  Groups groups;
  std::map<GroupKey, std::map<std::string, std::vector<const RunRecord*>>> unnumbered;
  for (const RunRecord& r : records) {
    if (!r.identified()) {
      c.failed.push_back({"", 0, "", std::nullopt, r.file, r.error});
      continue;
    }
    const auto key = std::make_tuple(r.workload, r.workers, r.policy);
    if (r.trial) groups[key][r.series][*r.trial].push_back(&r);
    else unnumbered[key][r.series].push_back(&r);
  }
  // Reports without a trial number (not written through rubato run): one trial
  // each, in the order they started, after any numbered ones.
  for (auto& [key, by_series] : unnumbered) {
    for (auto& [series, recs] : by_series) {
      std::sort(recs.begin(), recs.end(), [](const RunRecord* a, const RunRecord* b) {
        return std::tie(a->started_at, a->file) < std::tie(b->started_at, b->file);
      });
      Trials& trials = groups[key][series];
      int next = trials.empty() ? 0 : trials.rbegin()->first + 1;
      for (const RunRecord* r : recs) trials[next++].push_back(r);
    }
  }
  return groups;
}

// One policy of one workload and worker count: its trials merged over ranks,
// the first ones of each series dropped, the rest summarised.
PolicyResult policy_result(const GroupKey& key, const std::map<std::string, Trials>& by_series,
                           const CompareOptions& options, Comparison& c, std::set<int>& skips_used) {
  const auto& [workload, workers, policy] = key;
  PolicyResult p;
  p.policy = policy;
  bool merged_ranks = false;
  for (const auto& [series, trials] : by_series) {
    int position = 0;
    const int skip = series_skip(trials, options);
    skips_used.insert(skip);
    for (const auto& [number, recs] : trials) {
      TrialResult t = merge_trial(recs, c.notes);
      t.trial = number;
      t.skipped = position++ < skip;
      merged_ranks |= t.ranks > 1;
      if (!t.ok)
        c.failed.push_back({workload, workers, policy, number, join(t.files, ", "),
                            t.failure + (t.skipped ? " (among the dropped first trials)" : "")});
      p.trials.push_back(std::move(t));
    }
  }
  const std::string where =
      workload + " [" + std::to_string(workers) + (workers == 1 ? " worker, " : " workers, ") + policy + "]";
  if (merged_ranks)
    c.notes.push_back(where +
                      ": multi-rank trials merged (time = slowest rank; energy once per node: measured = "
                      "the node's meter once, modeled = the node's uncore once + each rank's cores; steals and "
                      "tasks summed)");
  summarize_policy(p, c.notes, where);
  return p;
}

// A workload's trials on different numbers of nodes are not compared: why, per policy.
std::string node_counts_refusal(const WorkloadResult& w) {
  std::string counts;
  for (const PolicyResult& p : w.policies) {
    std::set<int> n;
    for (const TrialResult& t : p.trials)
      if (t.ok) n.insert(t.hosts);
    std::string list;
    for (int x : n) list += (list.empty() ? "" : "/") + std::to_string(x);
    if (!list.empty()) counts += (counts.empty() ? "" : ", ") + p.policy + " " + list;
  }
  return w.workload + " [" + std::to_string(w.workers) + (w.workers == 1 ? " worker" : " workers") +
         "]: trials ran on different numbers of nodes (" + counts +
         "); not compared: compare the runs of each node count separately";
}

// The policies in order, each normalised to the baseline.
void finish_workload(WorkloadResult& w, const CompareOptions& options, Comparison& c) {
  std::stable_sort(w.policies.begin(), w.policies.end(), [&](const PolicyResult& a, const PolicyResult& b) {
    return std::make_pair(policy_rank(a.policy, options.baseline), a.policy) <
           std::make_pair(policy_rank(b.policy, options.baseline), b.policy);
  });
  if (w.nodes.size() > 1) c.refused.push_back(node_counts_refusal(w));
  const PolicyResult* base = w.find(options.baseline);
  for (PolicyResult& p : w.policies) {
    if (&p == base) continue;
    if (!base) p.normalise_note = "no " + options.baseline + " runs for this workload and worker count";
    else normalise(p, *base);
  }
}

}  // namespace

Comparison compare_runs(const std::vector<RunRecord>& records, const CompareOptions& options) {
  Comparison c;
  c.skip = options.skip;
  c.baseline = options.baseline;
  c.runs = records.size();
  const Groups groups = group_records(records, c);

  std::map<std::pair<std::string, int>, WorkloadResult> workloads;
  std::set<int> skips_used;
  for (const auto& [key, by_series] : groups) {
    const auto& [workload, workers, policy] = key;
    WorkloadResult& w = workloads[{workload, workers}];
    w.workload = workload;
    w.workers = workers;
    PolicyResult p = policy_result(key, by_series, options, c, skips_used);
    for (const TrialResult& t : p.trials)
      if (t.ok) {
        w.nodes.insert(t.hosts);
        w.ranks.insert(t.ranks);
      }
    w.policies.push_back(std::move(p));
  }
  for (auto& [key, w] : workloads) {
    finish_workload(w, options, c);
    c.workloads.push_back(std::move(w));
  }
  if (skips_used.size() == 1) {
    c.skip = *skips_used.begin();
  } else if (skips_used.size() > 1) {
    std::string list;
    for (int k : skips_used) list += (list.empty() ? "" : ", ") + std::to_string(k);
    c.notes.push_back("the series drop different numbers of first trials (" + list +
                      ": each as its rubato run was given --skip); --skip N sets one for all");
  }
  return c;
}

std::string nodes_ranks_text(const WorkloadResult& w) {
  auto range = [](const std::set<int>& v, const char* one, const char* many) {
    if (v.empty()) return std::string();
    const std::string n =
        v.size() == 1 ? std::to_string(*v.begin()) : std::to_string(*v.begin()) + "-" + std::to_string(*v.rbegin());
    return n + " " + (v.size() == 1 && *v.begin() == 1 ? one : many);
  };
  if (w.nodes.empty()) return "";
  return range(w.nodes, "node", "nodes") + ", " + range(w.ranks, "rank", "ranks");
}

std::optional<double> contribution(const WorkloadResult& w, const std::string& policy, const std::string& reference,
                                   bool energy) {
  const PolicyResult* p = w.find(policy);
  const PolicyResult* ref = w.find(reference);
  if (!p || !ref) return std::nullopt;
  const auto a = energy ? p->energy_saving_pct() : p->time_loss_pct();
  const auto b = energy ? ref->energy_saving_pct() : ref->time_loss_pct();
  if (!a || !b || b->value == 0 || !std::isfinite(a->value) || !std::isfinite(b->value)) return std::nullopt;
  // Dividing by a figure indistinguishable from zero gives noise, not a share.
  if (std::isfinite(b->ci95) && std::fabs(b->value) <= b->ci95) return std::nullopt;
  return a->value / b->value;
}

}  // namespace rubato::cli
