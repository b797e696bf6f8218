// min-energy's closed loop (docs/min-energy.md "The closed loop"): instead of
// acting on sensitivities it assumes, it measures what each setting does to
// the work and keeps a step only while the measured time stays within the
// bound. Its sensor is the one every run has — segment durations by task type
// and level from the scheduler's events (rubato/core/tempo/task_type_stats.hpp);
// an energy meter (RAPL) where readable; counters, where the profile relates
// them to the uncore share, only to seed the search.
//
// Per phase (the set of task types that carry the work now):
//  1. reference: every type's mean segment at the fastest pair, kept fixed
//     (never taken from a slowed interval);
//  2. core, for each type on its own core ceiling where types co-run
//     (per-type ceilings, Engine::set_type_ceilings), else for the mix: the
//     search of 3. down the core ladder, each type judged by its own time;
//  3. uncore, for the running mix at those core levels: a galloping search down the uncore ladder
//     (1, 2, 4 … levels below the last good one; a seed from counters or the
//     settings goes straight to the model's level), then bisection after the
//     first miss. A level is good when the mix's measured time factor
//     Σ w_T · d_T(level) / d_T(reference) is within 1 + bound at a one-sided
//     95 % confidence, and, where a meter reads energy, its energy per
//     reference work is not above the last good level's (a step that
//     measures more energy is undone). A probe clearly beyond the bound ends
//     while it settles: probing time counts against the bound (what probes
//     lose beyond it narrows the bound later settings must keep). Core first,
//     as [Cuttlefish]: a core step saves most where work waits on memory;
//     where the core's steps left no uncore step room, the core goes one good
//     level back and the uncore is searched again (kept where it measures
//     less energy; once per phase);
//  4. steady: the chosen levels, watched. A bound broken at the same
//     confidence backs off one step (GEOPM's energy_efficient agent: up once,
//     then stay); a type whose duration at the setting drifts more than 15 %
//     from what its probe measured (EAR's signature rule) is relearnt from its
//     reference.
// Types whose segments are shorter than min_type_ns, or too few to measure,
// stay at the reference. A phase seen before takes its learnt levels at once.
//
// Pure: the hosts (power/src/session/min_energy_runner.cpp, the simulator)
// hand it each interval's duration deltas, the uncore level in force, the
// meter's energy and the counters, and carry out its decision.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rubato/core/counters/counter_sample.hpp"
#include "rubato/core/io/report.hpp"
#include "rubato/core/min_energy/sensitivity_source.hpp"
#include "rubato/core/model/frequency_model.hpp"
#include "rubato/core/model/frequency_pair.hpp"
#include "rubato/core/tempo/engine.hpp"
#include "rubato/core/tempo/task_type_stats.hpp"

namespace rubato::min_energy {

struct LearnerParams {
  explicit LearnerParams(FrequencyModel frequency_model) : model(std::move(frequency_model)) {}

  // The beliefs: the run's core ladder and uncore lever levels with the
  // profile's power at each. Used to rank energies where no meter reads them
  // and to turn a seed share into a first level; never for time.
  FrequencyModel model;
  double max_time_loss = kDefaultMaxTimeLoss;
  double interval_s = 0.01;
  // Seeds: the settings' shares (RUBATO_CORE_SENSITIVITY /
  // RUBATO_UNCORE_SENSITIVITY) and the counter relation (0: counters unused).
  SensitivityFallbacks fallbacks;
  double saturated_transaction_rate_per_s = 0;
  // Measuring: segments per type a measurement needs, its longest length,
  // the shortest type measured, a type's share of the busy time to count in
  // the phase, the drift that relearns, the one-sided confidence quantile.
  std::uint64_t min_segments = 30;
  int max_measure_intervals = 12;
  // The reference is measured until each type's mean is known to this
  // relative standard error (it costs no time: the fastest pair), or for at
  // most three times the longest measurement: every probe is judged against it.
  double reference_rel_se = 0.004;
  double min_type_ns = 1000;
  double dominant_share = 0.05;
  double drift = 0.15;
  double z = 1.645;
  // A type gets a core ceiling of its own only where its segments last at
  // least 5 core transitions (else the level changes between its tasks and
  // another type's cost a fifth of a task or more at the wrong level), and
  // where the host can set per-type ceilings.
  double transition_latency_s = 0;
  bool per_type_core = true;
  // A meter reads energy during the run. Without one, and with a profile
  // whose uncore power is the same at every level (no uncore_power ladder),
  // nothing can show a lower uncore saving energy: the uncore stays at its
  // fastest level rather than follow the durations' noise.
  bool metered = false;
  // How probes' energies are labelled: the meter's ("measured:rapl") and the model's ("modeled:<profile>").
  std::string measured_energy_label = "measured";
  std::string modelled_energy_label = "modeled";
};

// One control interval, as the host saw it.
struct LearnerInput {
  double now_s = 0;
  WorkerActivity activity;
  // This interval's segments per (type, level): the difference of two
  // Engine::task_type_stats() snapshots.
  std::vector<TaskTypeCell> segments;
  // The uncore level in force over the whole interval; -1: it changed
  // within, or there is no uncore lever.
  int uncore_level = -1;
  std::optional<double> energy_j;  // measured over the interval (a meter); nullopt: none
  // The time energy_j covers (between the meter's two reads); 0: the nominal
  // interval. A controller thread woken late on a busy machine covers more.
  double metered_s = 0;
  const counters::CounterSample* sample = nullptr;
};

// What the host carries out.
struct LearnerDecision {
  double t_s = 0;
  int working = 0, waiting = 0;  // at the decision
  std::size_t uncore_level = 0;
  Level core_ceiling = 0;           // for every type without its own
  std::vector<Level> type_ceiling;  // by type index; empty: core_ceiling for all
  WorkSensitivity sensitivity;      // the mix's shares as learnt (for the cost guard), b_c 1 b_u 0 before
  std::string stage;                // reference | uncore | core | steady | idle
  std::string reason;
};

class Learner {
 public:
  // Throws std::invalid_argument for a bound that is negative or not finite.
  explicit Learner(LearnerParams params);

  // One interval. Returns the decision when it changed (the first step always).
  std::optional<LearnerDecision> step(const LearnerInput& input);
  const std::optional<LearnerDecision>& current() const noexcept { return current_; }
  const LearnerParams& params() const noexcept { return params_; }

  // What the report shows: per type what was learnt and from what, every
  // probe, the time spent probing and the run's measured time factor.
  void fill_report(Report& r, const std::vector<std::string>& type_names) const;
  double probing_s() const noexcept { return probing_s_; }
  // Σ measured busy time / Σ its reference time, over the work with a reference.
  double measured_time_factor() const noexcept { return reference_ns_ > 0 ? measured_ns_ / reference_ns_ : 1.0; }

  // The galloping search over one ladder (public for its tests).
  struct Search {
    int lo_ok = 0;                  // the slowest level known good (0: the fastest, the reference)
    int hi_bad = 1;                 // the fastest level known bad (levels: none)
    int step = 1;                   // galloping: the next try is lo_ok + step
    bool missed = false;            // a try failed: bisect from now on
    int trying = -1;                // the level being measured; -1: none
    bool refining = false;          // trying a level next to the best (refine), outside the search
    int seed = -1;                  // the level counters or the settings pointed to (-1: none)
    double seed_time_factor = 1.0;  // the model's time factor there
    void start(int levels, std::optional<int> seeded);
    bool done() const noexcept { return hi_bad - lo_ok <= 1 && trying < 0; }
    int next();  // the next level to try (sets trying); only when !done()
    void result(bool good);
    // Once done: galloping skips levels, and energy need not fall all the
    // way down, so the unmeasured levels next to the best are tried too.
    void refine(int level) noexcept {
      trying = level;
      refining = true;
    }
  };

 private:
  struct Stat {
    double n = 0, sum_ns = 0, sq_ns = 0;
    void add(double segments, double ns, double sq_us) noexcept {
      n += segments;
      sum_ns += ns;
      sq_ns += sq_us * 1e6;
    }
    double mean() const noexcept { return n > 0 ? sum_ns / n : 0; }
    double variance() const noexcept;  // of one segment (ns²)
  };
  struct Evaluation {  // one setting, measured
    double time_factor = 1, se = 0;
    // The part of se from this measurement alone (not the reference's): the
    // larger of the segments' spread (se_segments) and the intervals' (batch
    // means over `batches` intervals): noise that every task of an interval
    // shares (a neighbour's load, the meter's tick, a clock's transition)
    // does not shrink with more segments.
    double se_own = 0;
    double se_segments = 0;
    int batches = 0;                      // intervals with segments of the types judged
    double energy_per_work = 0;           // J per reference second: measured where it was, else modelled
    double modelled_energy_per_work = 0;  // the model's power times the measured time factor
    double measured_power_w = 0;          // the meter's, per working worker
    // Its relative standard error from the intervals' powers (infinite with
    // fewer than 2), widened by Student's t for their number: a meter that
    // ticks coarsely against the interval (the fake node's 5 ms against
    // 10 ms) reads ±50 % per interval.
    double measured_power_rel_se = 0;
    bool measured_energy = false;
    std::uint64_t segments = 0;
  };
  struct TypeState {
    Stat reference;
    bool has_reference = false;
    double reference_mean = 0, reference_var = 0;
    std::uint64_t segments = 0;  // seen in all
    double busy_ns = 0;
    bool too_short = false;
    // Measured time factors: by (core level, uncore level).
    std::map<std::pair<int, int>, double> time_factor;
    Level level = 0;  // its ceiling now
    std::string source = "durations";
  };
  enum class Stage { reference, uncore, core, steady };
  enum class Verdict { pending, good, bad };
  enum class Trade { none, under_way, done };  // the core given back for the uncore (trade_core_for_uncore)
  struct Phase {
    std::vector<TaskType> signature;
    std::map<TaskType, double> weight;  // reference busy shares, summing to 1
    Stage stage = Stage::reference;
    bool per_type = false;
    Search uncore;
    std::map<TaskType, Search> core;        // per type, or the mix under kUntypedTask's key when !per_type
    Evaluation reference_eval;              // the fastest pair, as the reference stage measured it
    std::map<int, Evaluation> uncore_eval;  // the good levels measured
    std::map<TaskType, std::map<int, Evaluation>> core_eval;
    std::set<int> uncore_bad;  // levels measured and not kept
    std::map<TaskType, std::set<int>> core_bad;
    int uncore_level = 0;
    std::map<TaskType, Level> level;
    Level mix_level = 0;
    // Steady: what each type measured at the setting when it was chosen.
    std::map<TaskType, double> expected_mean;
    bool backed_off = false;
    int relearnt = 0;                      // times its references were taken again (drift)
    bool unmeasurable = false;             // its durations cannot judge a level: it follows the seeds
    bool uncore_refused_for_time = false;  // an uncore level below the fastest was not within the bound
    Trade trade = Trade::none;
    Evaluation before_trade;  // the core levels chosen, at the fastest uncore, as measured
    std::map<TaskType, Level> before_trade_levels;
    Level before_trade_mix_level = 0;
    std::uint64_t id = 0;
  };
  // Accumulated since the setting last changed (after the settle interval).
  struct Measurement {
    std::map<TaskType, Stat> at_ceiling;                           // segments run at their type's ceiling
    std::vector<std::map<TaskType, Stat>> at_ceiling_by_interval;  // the same, interval by interval (batch means)
    double energy_j = 0, metered_s = 0;                            // the meter's energy and the time it covers
    double power_sum = 0, power_sq = 0;                            // the intervals' powers (W), for their spread
    int metered = 0;                                               // intervals the meter read
    double working = 0, waiting = 0;                               // summed over intervals
    int intervals = 0;
    bool energy_measured = true;
  };

  void go_idle(double now_s);
  void follow_phase(const std::vector<TaskType>& signature, double now_s);
  void measure(Phase& ph, const LearnerInput& in, const std::map<TaskType, std::map<Level, Stat>>& by_type);
  void observe_types(const LearnerInput& in, std::map<TaskType, std::map<Level, Stat>>& by_type);
  std::vector<TaskType> signature_of(const std::map<TaskType, std::map<Level, Stat>>& by_type) const;
  void enter_phase(const std::vector<TaskType>& signature);
  void accumulate(const LearnerInput& in, const std::map<TaskType, std::map<Level, Stat>>& by_type);
  // Whether the measurement has min_segments of each of `types` (those with a
  // reference, unless `all`) over at least one interval.
  bool enough(const std::vector<TaskType>& types, bool all = false) const;
  bool reference_precise(const std::vector<TaskType>& types) const;
  bool any_measured(const std::vector<TaskType>& types) const;
  double reference_spread(const std::vector<TaskType>& types) const;
  // The variance of the measurement's time factor of `types` from the
  // intervals' own factors (the ratio estimator over batch means), widened
  // for its few degrees of freedom (Student's t); sets `batches`.
  double batch_variance(const std::vector<TaskType>& types, int& batches) const;
  void follow_seeds(Phase& ph);
  Evaluation evaluate(const Phase& ph, const std::vector<TaskType>& types, int uncore_level,
                      const std::map<TaskType, Level>& levels) const;
  double modelled_power_w(const Phase& ph, int uncore_level, const std::map<TaskType, Level>& levels) const;
  bool within_bound(const Evaluation& e, const Evaluation* previous = nullptr) const noexcept;
  double debt_now() const noexcept;
  bool clearly_beyond(const Evaluation& e) const noexcept;
  void finish_reference(Phase& ph);
  void advance_uncore(Phase& ph);
  void advance_core(Phase& ph);
  bool trade_core_for_uncore(Phase& ph);
  void conclude_trade(Phase& ph);
  Verdict time_verdict(const Evaluation& e, const std::vector<TaskType>& types, std::string& why,
                       const Evaluation* previous = nullptr) const;
  void conclude_core(Phase& ph, TaskType key, Evaluation e, Verdict v, std::string why);
  // Whether `now` takes more energy per work than `before`: the meter's
  // verdict where both were measured and they differ beyond the meter's 95 %
  // interval, else the model's (`now_model`, `before_model`: its energies).
  // `why` says which and by how much.
  bool more_energy(const Evaluation& now, const Evaluation& before, double now_model, double before_model,
                   std::string& why) const;
  double type_energy(const Phase& ph, double time_factor, int level) const;
  void start_core(Phase& ph);
  void start_uncore(Phase& ph);
  bool uncore_power_known() const;  // the model's uncore power differs between levels
  Level ceiling_of(const Phase& ph, TaskType t) const;
  // The good level of least energy in `good`, and an unmeasured level next to it below `hi_bad` (-1: none).
  int best_level(const std::map<int, Evaluation>& good) const;
  static int unmeasured_neighbour(int best, const std::map<int, Evaluation>& good, const std::set<int>& bad,
                                  int hi_bad);
  void settle_steady(Phase& ph);
  void watch_steady(Phase& ph);
  void relearn(Phase& ph, const std::string& why);
  // The model's pair for what counters or the settings say of the work's
  // shares (core_lever: only where the settings give b_c); nullopt: no seed.
  std::optional<FrequencyPairEstimate> seeded_pair(bool core_lever) const;
  void accept_seed(const Search& s, int level, Evaluation& e, Verdict& v, std::string& why,
                   const Evaluation* previous) const;
  std::vector<TaskType> probed_types(const Phase& ph) const;
  // A probe's entry in the report: when, which phase, lever, level and type.
  LearningProbe probe_entry(const Phase& ph, const std::string& lever, int level, TaskType type) const;
  void record_probe(const Phase& ph, const std::string& lever, int level, TaskType type, const Evaluation& e, bool kept,
                    const std::string& why);
  // The probes of `ph` under way and without a verdict (the phase left, the
  // run ended): in the report too, so that no level it set goes unsaid.
  std::vector<LearningProbe> probes_in_flight(const Phase& ph, const std::string& why) const;
  LearnerDecision decision_for(const Phase& ph, const std::string& reason) const;
  void change(LearnerDecision d, double now_s);
  int settle_intervals() const;
  std::string stage_name(Stage s) const;

  LearnerParams params_;
  std::map<TaskType, TypeState> types_;
  std::vector<Phase> phases_;
  std::size_t phase_ = 0;  // phases_[phase_] is in force (when not empty)
  std::vector<TaskType> candidate_signature_;
  int candidate_seen_ = 0;
  Measurement m_;
  int settle_ = 0;
  std::size_t asked_uncore_ = 0;
  bool idle_ = false;
  std::optional<LearnerDecision> current_;
  std::optional<double> counter_uncore_share_;
  double probing_s_ = 0, measured_ns_ = 0, reference_ns_ = 0, now_s_ = 0;
  int working_ = 0, waiting_ = 0;
  int blind_intervals_ = 0;     // intervals with workers running and no segment ended, before any phase
  double probe_excess_ns_ = 0;  // busy time probes took beyond the bound
  double search_debt_ = 0;      // its share of the work when the search in progress began
  bool early_ = false;          // judging a settling probe: only "clearly beyond" may be said
  std::vector<LearningProbe> probes_;
};

}  // namespace rubato::min_energy
