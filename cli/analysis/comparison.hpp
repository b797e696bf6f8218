// The analysis behind `rubato compare` and `rubato report` ([HERMES] §4.1):
// runs grouped by workload x workers x policy; a trial's ranks merged (time of
// the slowest rank; energy once per node: a measured figure is the node's
// meter, taken once, a modeled one the node's uncore once plus each rank's
// cores; steals and tasks summed); the first `skip` trials of each
// series dropped; failed trials kept and listed but never averaged; time,
// energy and EDP as mean ± 95% CI, normalised to the baseline policy of the
// same workload and worker count (energy saving %, time loss %, normalised EDP:
// the paper's Figs. 6-9).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/run_records.hpp"
#include "analysis/stats.hpp"

namespace rubato::cli {

// One trial of one policy: its ranks merged.
struct TrialResult {
  std::string series;
  int trial = 0;
  std::vector<std::string> files;
  bool ok = true;
  std::string failure;   // why not ok
  bool skipped = false;  // among the first `skip` of its series
  int ranks = 1;
  int hosts = 1;  // nodes
  double time_s = 0;
  bool energy_available = false;
  double energy_j = 0;
  std::string energy_source;  // common to the ranks; "mixed: a, b" when not
  std::string energy_why_not;
  std::uint64_t steals = 0;
  std::uint64_t tasks = 0;  // completed, summed over workers and ranks
  std::uint64_t transitions = 0;
  double emulated_delay_s = 0;
  // Waiting (rubato's own, beyond the papers), summed over workers and ranks.
  double wait_s = 0;
  double wait_slowed_s = 0;
  std::uint64_t slowed_wakeups = 0;
  double raise_delay_s = 0;
  std::vector<double> busy_s_at_level;  // summed over workers and ranks
  std::map<std::string, double> external;
  std::string backend;
  std::string profile;
};

struct PolicyResult {
  std::string policy;
  std::vector<TrialResult> trials;  // every trial, in order (skipped and failed too)
  std::size_t used = 0, skipped = 0, failed = 0;
  Summary time_s, energy_j, edp;
  std::string energy_source;  // of the averaged trials; empty when energy is not averaged
  std::string energy_note;    // why energy is not averaged, or ""
  Summary steals, tasks, transitions, emulated_delay_s;
  Summary wait_s, wait_slowed_s, slowed_wakeups;
  Summary raise_delay_s;            // per slowed wake-up (trials without one left out)
  std::vector<double> level_share;  // mean share of busy time at each tempo level (0 = fastest)
  std::map<std::string, Summary> external;
  std::vector<std::string> backends, profiles;  // seen in the averaged trials
  // Normalised to the baseline of the same workload and workers (absent for the baseline itself
  // or when it cannot be computed; `normalise_note` then says why).
  std::optional<Ratio> time_ratio, energy_ratio, edp_ratio;
  std::string normalise_note;

  // Percentages as the paper plots them (Figs. 6-7): positive = saved / lost.
  std::optional<Ratio> energy_saving_pct() const;
  std::optional<Ratio> time_loss_pct() const;
};

struct WorkloadResult {
  std::string workload;
  int workers = 0;
  // Nodes and ranks per trial, over the trials of every policy that did not
  // fail (the dropped first ones too; empty when none): several node counts
  // make the group incomparable.
  std::set<int> nodes, ranks;
  std::vector<PolicyResult> policies;  // baseline first, then workpath, workload, hermes, others by name
  const PolicyResult* find(const std::string& policy) const;
};

struct FailedRun {
  std::string workload;  // empty when the report could not be read at all
  int workers = 0;
  std::string policy;
  std::optional<int> trial;
  std::string files;
  std::string reason;
};

struct Comparison {
  int skip = 0;
  std::string baseline;
  std::vector<WorkloadResult> workloads;
  std::vector<FailedRun> failed;
  std::vector<std::string> notes;  // merges, mixed sources, groups left empty by --skip
  // Groups whose trials ran on different numbers of nodes, one line each:
  // time and energy across node counts are not compared (compare exits 1).
  std::vector<std::string> refused;
  std::size_t runs = 0;  // records read
};

struct CompareOptions {
  // First trials dropped per series: `skip` when given on the command line,
  // else the series' own (the index of the rubato run that made it), else `skip`.
  int skip = 2;
  std::string baseline = "baseline";
  bool skip_given = false;
};

Comparison compare_runs(const std::vector<RunRecord>& records, const CompareOptions& options);

// Where a report keeps the modeled energy's node part (the uncore over its wall
// time) beside the whole modeled figure, in `external` (power/src/session/session.cpp):
// the cores' part is the difference. Older reports lack it.
inline constexpr const char* kModeledEnergyKey = "energy_modeled_j";
inline constexpr const char* kModeledUncoreKey = "energy_modeled_uncore_j";

// "1 node, 2 ranks"; "1-2 nodes" / "2-4 ranks" when they vary; "" when unknown.
std::string nodes_ranks_text(const WorkloadResult& w);

// [HERMES] Figs. 10-13: a policy's energy saving (or time loss) divided by
// that of `reference` (hermes). Absent when either is unavailable or the
// reference's figure is zero or within its own 95% interval of zero.
std::optional<double> contribution(const WorkloadResult& w, const std::string& policy, const std::string& reference,
                                   bool energy);

}  // namespace rubato::cli
