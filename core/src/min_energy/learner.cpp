#include "rubato/core/min_energy/learner.hpp"

#include "rubato/core/model/time_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace rubato::min_energy {
namespace {

// The key the mix's core search is kept under where types share one ceiling.
constexpr TaskType kMix = std::numeric_limits<TaskType>::max();
// Measured energies this close count as equal (a meter's read-out noise).
constexpr double kEnergyTolerance = 0.003;
// A measurement the meter reads spans this many intervals at least (its spread needs them).
constexpr int kMeteredIntervals = 3;
// The galloping search's longest step: a probe too far down a long ladder
// (19 uncore levels) costs more time than the steps it saves.
constexpr int kMaxGallop = 4;
// A measurement near the bound's edge is judged once its own standard error
// is this small, or once it spans kBatchIntervals intervals (then the
// intervals' spread, in its error, says what the segments' cannot).
constexpr double kPreciseShare = 0.006;
constexpr int kBatchIntervals = 4;
// One-sided 95 % quantiles of Student's t by degrees of freedom (1..30), and
// the normal's: a spread from k intervals is widened by t(k-1) / z.
constexpr double kStudentT95[] = {6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812,
                                  1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740, 1.734, 1.729, 1.725,
                                  1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701, 1.699, 1.697};
constexpr double kNormal95 = 1.645;

double student_t95(int dof) {
  constexpr int n = static_cast<int>(sizeof kStudentT95 / sizeof kStudentT95[0]);
  return dof < 1 ? INFINITY : dof <= n ? kStudentT95[dof - 1] : kNormal95;
}
// A reference whose mean is known no better than this cannot judge a 5 % bound: the phase is not measurable.
constexpr double kMeasurableShare = 0.02;
// Relearnings a phase gets on drift; after them its durations are taken as too varied to watch.
constexpr int kMaxRelearn = 2;

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f %%", 100 * x);
  return buf;
}

}  // namespace

// ---- the search --------------------------------------------------------------

void Learner::Search::start(int levels, std::optional<int> seeded) {
  lo_ok = 0;
  hi_bad = std::max(1, levels);
  step = 1;
  missed = false;
  trying = -1;
  seed = -1;
  if (seeded && *seeded > 0 && *seeded < hi_bad) {
    trying = -2 - *seeded;  // a seed pending: tried first
    seed = *seeded;
  }
}

int Learner::Search::next() {
  if (trying <= -2) {
    trying = -2 - trying;
    return trying;
  }
  trying = missed ? (lo_ok + hi_bad) / 2 : std::min(lo_ok + step, hi_bad - 1);
  return trying;
}

void Learner::Search::result(bool good) {
  if (trying < 0) return;
  if (refining) {
    refining = false;
    trying = -1;
    return;
  }
  if (good) {
    lo_ok = trying;
    if (!missed) step = std::min(step * 2, kMaxGallop);
  } else {
    hi_bad = trying;
    missed = true;
  }
  trying = -1;
}

double Learner::Stat::variance() const noexcept {
  if (n < 2) return 0;
  const double m = sum_ns / n;
  return std::max(0.0, (sq_ns - n * m * m) / (n - 1));
}

// ---- the loop ----------------------------------------------------------------

Learner::Learner(LearnerParams params) : params_(std::move(params)) {
  if (!(params_.max_time_loss >= 0) || !std::isfinite(params_.max_time_loss))
    throw std::invalid_argument("min-energy: the time-loss bound must be a fraction >= 0");
}

std::string Learner::stage_name(Stage s) const {
  switch (s) {
    case Stage::reference: return "reference";
    case Stage::uncore: return "uncore";
    case Stage::core: return "core";
    case Stage::steady: return "steady";
  }
  return "?";
}

// Intervals to drop after a change: as many as a long segment spans (1.5 ×
// the longest type's mean), at least one — a segment that began before the
// change ran at two settings, and one that ends in the interval after these
// began after it.
int Learner::settle_intervals() const {
  double longest = 0;
  for (const auto& [t, ts] : types_)
    if (ts.has_reference) longest = std::max(longest, ts.reference_mean);
  return std::max(1, static_cast<int>(std::ceil(1.5 * longest * 1e-9 / std::max(1e-6, params_.interval_s))));
}

void Learner::observe_types(const LearnerInput& in, std::map<TaskType, std::map<Level, Stat>>& by_type) {
  for (const TaskTypeCell& c : in.segments) {
    if (c.segments == 0) continue;
    by_type[c.type][c.level].add(static_cast<double>(c.segments), static_cast<double>(c.ns), c.sq_us);
    TypeState& ts = types_[c.type];
    ts.segments += c.segments;
    ts.busy_ns += static_cast<double>(c.ns);
    ts.too_short = ts.busy_ns < params_.min_type_ns * static_cast<double>(ts.segments);
    if (ts.has_reference) {
      measured_ns_ += static_cast<double>(c.ns);
      reference_ns_ += static_cast<double>(c.segments) * ts.reference_mean;
    }
  }
}

// The types that carry the interval's work: at least dominant_share of its
// busy time, and long enough to measure; sorted.
std::vector<TaskType> Learner::signature_of(const std::map<TaskType, std::map<Level, Stat>>& by_type) const {
  double total = 0;
  std::map<TaskType, double> busy;
  for (const auto& [t, levels] : by_type)
    for (const auto& [l, st] : levels) {
      busy[t] += st.sum_ns;
      total += st.sum_ns;
    }
  std::vector<TaskType> sig;
  for (const auto& [t, ns] : busy)
    if (total > 0 && ns >= params_.dominant_share * total && !types_.at(t).too_short) sig.push_back(t);
  return sig;
}

void Learner::enter_phase(const std::vector<TaskType>& signature) {
  candidate_seen_ = 0;
  for (std::size_t i = 0; i < phases_.size(); ++i)
    if (phases_[i].signature == signature) {
      phase_ = i;
      Phase& ph = phases_[i];
      // Back to a probe left half-way: that probe starts again.
      if (ph.stage == Stage::uncore && ph.uncore.trying >= 0) ph.uncore_level = ph.uncore.trying;
      return;
    }
  Phase ph;
  ph.signature = signature;
  ph.id = phases_.size() + 1;
  phases_.push_back(std::move(ph));
  phase_ = phases_.size() - 1;
}

void Learner::accumulate(const LearnerInput& in, const std::map<TaskType, std::map<Level, Stat>>& by_type) {
  const Phase& ph = phases_[phase_];
  std::map<TaskType, Stat>& this_interval = m_.at_ceiling_by_interval.emplace_back();
  for (const auto& [t, levels] : by_type) {
    Level ceiling = ph.stage == Stage::reference ? 0 : ph.mix_level;
    if (ph.stage != Stage::reference && ph.per_type)
      if (const auto it = ph.level.find(t); it != ph.level.end()) ceiling = it->second;
    if (const auto it = levels.find(ceiling); it != levels.end()) {
      for (Stat* st : {&m_.at_ceiling[t], &this_interval[t]}) {
        st->n += it->second.n;
        st->sum_ns += it->second.sum_ns;
        st->sq_ns += it->second.sq_ns;
      }
    }
  }
  if (ph.stage != Stage::reference && ph.stage != Stage::steady) {
    double busy = 0, reference = 0;
    for (const auto& [t, levels] : by_type) {
      const TypeState& ts = types_.at(t);
      if (!ts.has_reference) continue;
      for (const auto& [l, st] : levels) {
        busy += st.sum_ns;
        reference += st.n * ts.reference_mean;
      }
    }
    probe_excess_ns_ += std::max(0.0, busy - (1 + params_.max_time_loss) * reference);
  }
  ++m_.intervals;
  m_.working += in.activity.working;
  m_.waiting += in.activity.waiting;
  if (in.energy_j) {
    m_.energy_j += *in.energy_j;
    const double dt = in.metered_s > 0 ? in.metered_s : params_.interval_s;
    m_.metered_s += dt;
    m_.power_sum += *in.energy_j / dt;
    m_.power_sq += (*in.energy_j / dt) * (*in.energy_j / dt);
    ++m_.metered;
  } else {
    m_.energy_measured = false;
  }
}

bool Learner::enough(const std::vector<TaskType>& types, bool all) const {
  // Where a meter reads, its spread over the intervals says how far to trust
  // it: at least kMeteredIntervals of them.
  if (m_.intervals < (m_.energy_measured && m_.metered > 0 ? kMeteredIntervals : 1)) return false;
  bool judged = false;  // at least one type measured: nothing else can tell a setting good
  for (TaskType t : types) {
    if (!all && !types_.at(t).has_reference) continue;
    judged = true;
    const auto it = m_.at_ceiling.find(t);
    if (it == m_.at_ceiling.end() || it->second.n < static_cast<double>(params_.min_segments)) return false;
  }
  return judged;
}

// The largest relative standard error of a type's mean in the measurement (1: none measured).
double Learner::reference_spread(const std::vector<TaskType>& types) const {
  double worst = 0;
  bool any = false;
  for (TaskType t : types) {
    const auto it = m_.at_ceiling.find(t);
    if (it == m_.at_ceiling.end() || it->second.n < 2 || !(it->second.mean() > 0)) continue;
    any = true;
    worst = std::max(worst, std::sqrt(it->second.variance() / it->second.n) / it->second.mean());
  }
  return any ? worst : 1.0;
}

// A phase whose segments are too few or too varied for any probe to tell a
// level from the reference: the levels the counters or the settings point
// to, through the model (the open loop's choice), where they say anything;
// else the reference. Never a guess of its own.
void Learner::follow_seeds(Phase& ph) {
  ph.unmeasurable = true;
  ph.stage = Stage::steady;
  ph.per_type = false;
  const std::optional<FrequencyPairEstimate> uncore = seeded_pair(false);
  const std::optional<FrequencyPairEstimate> core = seeded_pair(true);
  ph.mix_level = core ? static_cast<Level>(core->core_level) : 0;
  ph.uncore_level = uncore ? static_cast<int>(uncore->uncore_level) : 0;
  for (TaskType t : ph.signature)
    types_[t].source = uncore || core ? "durations too few or too varied to measure: the counters' or settings' levels"
                                      : "durations too few or too varied to measure: at the reference";
}

bool Learner::any_measured(const std::vector<TaskType>& types) const {
  for (TaskType t : types)
    if (const auto it = m_.at_ceiling.find(t);
        it != m_.at_ceiling.end() && it->second.n >= static_cast<double>(params_.min_segments))
      return true;
  return false;
}

bool Learner::reference_precise(const std::vector<TaskType>& types) const {
  for (TaskType t : types) {
    if (types_.at(t).has_reference) continue;  // kept from an earlier phase
    const auto it = m_.at_ceiling.find(t);
    if (it == m_.at_ceiling.end() || !(it->second.mean() > 0)) return false;
    const Stat& st = it->second;
    if (std::sqrt(st.variance() / st.n) / st.mean() > params_.reference_rel_se) return false;
  }
  return true;
}

// The modelled power of the phase at an uncore level and per-type core
// levels: the working workers at their types' levels (weighted by the
// types' shares), the waiting ones at the slowest level, the uncore.
double Learner::modelled_power_w(const Phase& ph, int uncore_level, const std::map<TaskType, Level>& levels) const {
  const FrequencyModel& m = params_.model;
  const double intervals = std::max(1, m_.intervals);
  const double working = m_.working / intervals, waiting = m_.waiting / intervals;
  double busy = 0, weights = 0;
  for (const auto& [t, w] : ph.weight) {
    Level l = ph.mix_level;
    if (const auto it = levels.find(t); it != levels.end()) l = it->second;
    busy += w * m.busy_w(m.core_hz(static_cast<std::size_t>(l)));
    weights += w;
  }
  if (weights <= 0) busy = m.busy_w(m.core_hz(static_cast<std::size_t>(ph.mix_level)));
  else busy /= weights;
  const double slowest = m.core_hz(m.core_levels() - 1);
  return working * busy + waiting * m.idle_w(slowest) + m.uncore_w(m.uncore_hz(static_cast<std::size_t>(uncore_level)));
}

double Learner::batch_variance(const std::vector<TaskType>& types, int& batches) const {
  // Interval i: busy b_i and reference work r_i of the types; the factor is
  // R = Σb / Σr, and its variance that of a ratio estimator,
  // Σ (b_i - R r_i)² / (k (k-1) r̄²).
  std::vector<std::pair<double, double>> busy_reference;
  double busy = 0, reference = 0;  // Σb, Σr
  for (const auto& interval : m_.at_ceiling_by_interval) {
    double b = 0, r = 0;
    for (TaskType t : types) {
      const auto it = interval.find(t);
      const TypeState& ts = types_.at(t);
      if (it == interval.end() || !ts.has_reference || !(ts.reference_mean > 0)) continue;
      b += it->second.sum_ns;
      r += it->second.n * ts.reference_mean;
    }
    if (!(r > 0)) continue;
    busy_reference.emplace_back(b, r);
    busy += b;
    reference += r;
  }
  batches = static_cast<int>(busy_reference.size());
  if (batches < 2) return 0;
  const double k = batches, ratio = busy / reference, mean_reference = reference / k;
  double sq = 0;
  for (const auto& [b, r] : busy_reference) sq += (b - ratio * r) * (b - ratio * r);
  const double widen = student_t95(batches - 1) / kNormal95;
  return sq / (k * (k - 1) * mean_reference * mean_reference) * widen * widen;
}

// The measured time factor of `types` over the measurement and its standard error, and the energy per reference work:
// the meter's over the measurement where it read every interval, else the model's power times the measured time factor.
Learner::Evaluation Learner::evaluate(const Phase& ph, const std::vector<TaskType>& types, int uncore_level,
                                      const std::map<TaskType, Level>& levels) const {
  Evaluation e;
  double tf = 0, var_reference = 0, var_own = 0, weights = 0;
  for (TaskType t : types) {
    const auto it = m_.at_ceiling.find(t);
    const TypeState& ts = types_.at(t);
    if (it == m_.at_ceiling.end() || it->second.n < 2 || !ts.has_reference || !(ts.reference_mean > 0)) continue;
    // Weighted by the reference work measured now: Σ busy / Σ reference
    // work of the mix as it runs during the measurement.
    const Stat& st = it->second;
    const double w = st.n * ts.reference_mean;
    const double f = st.mean() / ts.reference_mean;
    const double own = st.variance() / (st.n * st.mean() * st.mean());
    const double reference = ts.reference_var / (std::max(1.0, ts.reference.n) * ts.reference_mean * ts.reference_mean);
    tf += w * f;
    var_reference += w * w * f * f * reference;
    var_own += w * w * f * f * own;
    weights += w;
    e.segments += static_cast<std::uint64_t>(st.n);
  }
  if (weights > 0) {
    e.time_factor = tf / weights;
    e.se_segments = std::sqrt(var_own) / weights;
    e.se_own = std::max(e.se_segments, std::sqrt(batch_variance(types, e.batches)));
    e.se = std::hypot(e.se_own, std::sqrt(var_reference) / weights);
  }
  e.modelled_energy_per_work = e.time_factor * modelled_power_w(ph, uncore_level, levels);
  // Measured: the meter's power over the measurement times the time each
  // working worker takes per reference second of work (the time factor the
  // durations give), per working worker. Completed segments per interval are
  // too coarse a count of work (tasks finishing together: ±20 % per interval).
  const double working = m_.intervals > 0 ? m_.working / m_.intervals : 0;
  if (m_.energy_measured && m_.metered_s > 0 && working > 0) {
    e.measured_power_w = m_.energy_j / m_.metered_s / working;
    e.energy_per_work = e.measured_power_w * e.time_factor;
    const double n = m_.metered, mean_w = n > 0 ? m_.power_sum / n : 0;
    const double var_w = n > 1 ? std::max(0.0, (m_.power_sq - n * mean_w * mean_w) / (n - 1)) : 0;
    // Widened for the few intervals it spans (3 at least: t(2) is 1.8 × z),
    // as the time factor's batch error is.
    e.measured_power_rel_se = n > 1 && mean_w > 0
                                  ? std::sqrt(var_w / n) / mean_w * student_t95(static_cast<int>(n) - 1) / kNormal95
                                  : INFINITY;
    e.measured_energy = true;
  } else {
    e.energy_per_work = e.modelled_energy_per_work;
  }
  return e;
}

// The bound a setting must keep: the run's, less what probes had lost
// beyond it when this search started, spread over as much work again as had
// run (the rest of the run is unknown; as long again is the even guess) —
// fixed for the search, so that one level is judged as the one before it.
// A level no slower than the last good one (their difference within its
// 95 % interval) is good while it keeps the run's own bound: a step that
// costs no time is taken at the edge of the bound too.
bool Learner::within_bound(const Evaluation& e, const Evaluation* previous) const noexcept {
  if (e.time_factor + params_.z * e.se <= 1.0 + std::max(0.0, params_.max_time_loss - search_debt_)) return true;
  if (!previous || e.time_factor + params_.z * e.se > 1.0 + params_.max_time_loss) return false;
  // Both against the same reference: its error is common to them and cancels.
  return e.time_factor - previous->time_factor <= params_.z * std::hypot(e.se_own, previous->se_own);
}

double Learner::debt_now() const noexcept { return reference_ns_ > 0 ? probe_excess_ns_ / reference_ns_ : 0.0; }
bool Learner::clearly_beyond(const Evaluation& e) const noexcept {
  return e.time_factor - params_.z * e.se > 1.0 + params_.max_time_loss;
}

// The reference stage ends once every type of the phase has its segments at
// the fastest pair: each type's reference (where it had none), the types'
// shares of the reference work, the fastest pair's energy per work.
void Learner::finish_reference(Phase& ph) {
  double total = 0;
  for (TaskType t : ph.signature) {
    TypeState& ts = types_[t];
    const Stat& st = m_.at_ceiling[t];
    if (!ts.has_reference && st.n >= 2) {
      ts.reference = st;
      ts.reference_mean = st.mean();
      ts.reference_var = st.variance();
      ts.has_reference = ts.reference_mean > 0;
      // The reference's own work is the run's too, at the fastest pair: it
      // counts in the run's time factor and in what probes' excess is a share
      // of. Left out, a probe beyond the bound just after a long reference
      // looked many times its size and closed the bound to later searches.
      if (ts.has_reference) {
        measured_ns_ += st.sum_ns;
        reference_ns_ += st.sum_ns;
      }
    }
    ph.weight[t] = ts.has_reference ? st.n * ts.reference_mean : 0;  // unmeasured: stays at the reference
    total += ph.weight[t];
  }
  for (auto& [t, w] : ph.weight) w = total > 0 ? w / total : 1.0 / static_cast<double>(ph.weight.size());
  ph.reference_eval = evaluate(ph, ph.signature, 0, {});
  ph.reference_eval.time_factor = 1.0;
  ph.reference_eval.se = 0;
  for (TaskType t : ph.signature) types_[t].time_factor[{0, 0}] = 1.0;
  start_core(ph);
}

// The uncore, for the mix at the core levels chosen: first the chosen levels
// measured as they are (level 0, the search's start), then the search.
void Learner::start_uncore(Phase& ph) {
  if (params_.model.uncore_levels() <= 1 || (!params_.metered && !uncore_power_known())) return settle_steady(ph);
  search_debt_ = debt_now();
  ph.stage = Stage::uncore;
  ph.uncore_eval.clear();
  ph.uncore_bad.clear();
  ph.uncore_refused_for_time = false;
  const std::optional<FrequencyPairEstimate> seed = seeded_pair(false);
  ph.uncore.start(static_cast<int>(params_.model.uncore_levels()),
                  seed ? std::optional<int>(static_cast<int>(seed->uncore_level)) : std::nullopt);
  if (seed) ph.uncore.seed_time_factor = seed->time_factor;
  ph.uncore_level = 0;
  // The search starts from the core levels as measured: the mix's probe of
  // the level chosen (or the reference), else — types at levels of their own,
  // never measured together — a measurement of them first.
  const auto mix = ph.core_eval.find(kMix);
  if (!ph.per_type && mix != ph.core_eval.end() && mix->second.count(ph.mix_level)) {
    ph.uncore_eval[0] = mix->second.at(ph.mix_level);
    ph.uncore_level = ph.uncore.next();
  } else if (!ph.per_type && ph.mix_level == 0) {
    ph.uncore_eval[0] = ph.reference_eval;
    ph.uncore_level = ph.uncore.next();
  } else {
    ph.uncore.refine(0);
  }
}

// A first uncore level from what counters or the settings say of the work's
// share, through the model: the level its least-energy pair within the bound
// has. The durations still judge it.
std::optional<FrequencyPairEstimate> Learner::seeded_pair(bool core_lever) const {
  WorkSensitivity s;
  if (core_lever) {  // counters tell nothing of b_c: only the settings seed the core
    if (!params_.fallbacks.settings_core) return std::nullopt;
    s.uncore = std::clamp(counter_uncore_share_.value_or(params_.fallbacks.settings_uncore.value_or(0.0)), 0.0, 1.0);
  } else {
    const std::optional<double> share =
        counter_uncore_share_ ? counter_uncore_share_ : params_.fallbacks.settings_uncore;
    if (!share) return std::nullopt;
    s.uncore = std::clamp(*share, 0.0, 1.0);
  }
  s.core = std::clamp(params_.fallbacks.settings_core.value_or(params_.fallbacks.profile.core), 0.0, 1.0 - s.uncore);
  const double intervals = std::max(1, m_.intervals);
  const int working = std::max(1, static_cast<int>(std::lround(m_.working / intervals)));
  const int waiting = static_cast<int>(std::lround(m_.waiting / intervals));
  try {
    return choose_frequency_pair(s, params_.model, working, waiting, params_.max_time_loss);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

// A seeded level (the counters' or the settings' choice through the model)
// that the durations cannot judge — too few or too varied segments to tell
// it within the bound, but nothing shows it beyond — is kept: the durations
// override a seed only with what they show. The meter still undoes it where
// it reads more power per working worker; its energy is ranked by the
// model's time factor for it.
void Learner::accept_seed(const Search& s, int level, Evaluation& e, Verdict& v, std::string& why,
                          const Evaluation* previous) const {
  if (s.seed != level || v != Verdict::bad || early_ || clearly_beyond(e)) return;
  if (e.measured_energy && previous && previous->measured_energy &&
      e.measured_power_w > previous->measured_power_w * (1 + kEnergyTolerance) &&
      e.measured_power_w - previous->measured_power_w >
          params_.z * std::hypot(e.measured_power_w * e.measured_power_rel_se,
                                 previous->measured_power_w * previous->measured_power_rel_se)) {
    why = "the seeded level draws " + percent(e.measured_power_w / previous->measured_power_w - 1) + " more power";
    return;
  }
  v = Verdict::good;
  why = "the seeded level; the durations do not show it beyond the bound (" + why + ")";
  const double scale = s.seed_time_factor / std::max(1e-9, e.time_factor);
  e.energy_per_work *= scale;
  e.modelled_energy_per_work *= scale;
  e.time_factor = s.seed_time_factor;
}

LearningProbe Learner::probe_entry(const Phase& ph, const std::string& lever, int level, TaskType type) const {
  LearningProbe p;
  p.t_s = now_s_;
  p.phase = ph.id;
  p.lever = lever;
  p.level = level;
  p.type = type == kMix ? 0 : type;
  return p;
}

void Learner::record_probe(const Phase& ph, const std::string& lever, int level, TaskType type, const Evaluation& e,
                           bool kept, const std::string& why) {
  LearningProbe p = probe_entry(ph, lever, level, type);
  p.time_factor = e.time_factor;
  p.time_factor_se = e.se;
  const bool measured = e.measured_energy && ph.reference_eval.measured_energy;
  const double e0 = measured ? ph.reference_eval.energy_per_work : ph.reference_eval.modelled_energy_per_work;
  const double e1 = measured ? e.energy_per_work : e.modelled_energy_per_work;
  p.energy_ratio = e0 > 0 ? e1 / e0 : 1.0;
  p.energy_source = measured ? params_.measured_energy_label : params_.modelled_energy_label;
  p.segments = e.segments;
  p.kept = kept;
  p.why = why;
  probes_.push_back(std::move(p));
}

// The time verdict on the measurement in force: bad when clearly beyond the
// bound (also while it settles), good within it once there are segments
// enough, bad when it stayed undecided for max_measure_intervals; else pending.
Learner::Verdict Learner::time_verdict(const Evaluation& e, const std::vector<TaskType>& types, std::string& why,
                                       const Evaluation* previous) const {
  if (m_.intervals >= 1 && clearly_beyond(e) && e.segments >= 5) {
    why = "time " + percent(e.time_factor - 1) + " beyond the bound";
    return Verdict::bad;
  }
  if (early_) return Verdict::pending;
  // Faster than the reference at a slower setting: the work changed, not the
  // clock (segments too varied for their type's reference): nothing told.
  if (e.segments > 0 && e.time_factor + params_.z * e.se < 1 - params_.drift) {
    why = "time " + percent(e.time_factor - 1) +
          ": faster than the reference at a slower setting, so the work, "
          "not the clocks, changed; the durations tell nothing here";
    return Verdict::bad;
  }
  // Good: within the bound, over two intervals at least (the intervals'
  // spread is part of the error), and either well within it, or measured to
  // 0.6 % by the segments, or over kBatchIntervals (near the edge one
  // interval's noise decides too much).
  const bool precise = e.batches >= 2 && (e.se_segments <= kPreciseShare || e.batches >= kBatchIntervals ||
                                          e.time_factor + params_.z * e.se <= 1 + params_.max_time_loss / 2);
  if (e.segments > 0 && enough(types) && precise && within_bound(e, previous)) {
    why = "time " + percent(e.time_factor - 1) + " within the bound";
    return Verdict::good;
  }
  if (m_.intervals >= params_.max_measure_intervals) {
    why = "not within the bound at 95 % after " + std::to_string(m_.intervals) + " intervals (time " +
          percent(e.time_factor - 1) + ")";
    return Verdict::bad;
  }
  return Verdict::pending;
}

void Learner::advance_uncore(Phase& ph) {
  const std::vector<TaskType>& types = ph.signature;
  const int level = ph.uncore.trying;
  Evaluation e = evaluate(ph, types, level, ph.level);
  std::string why;
  const auto last_good = ph.uncore_eval.find(ph.uncore.lo_ok);
  const Evaluation* previous = level > 0 && last_good != ph.uncore_eval.end() ? &last_good->second : nullptr;
  Verdict v = time_verdict(e, types, why, previous);
  if (v == Verdict::pending) return;
  const bool seeded = level == ph.uncore.seed;
  accept_seed(ph.uncore, level, e, v, why, previous);
  if (v == Verdict::bad && level > 0) ph.uncore_refused_for_time = true;
  if (v == Verdict::good && !seeded && previous &&
      more_energy(e, *previous, e.modelled_energy_per_work, previous->modelled_energy_per_work, why)) {
    v = Verdict::bad;
    why += " against level " + std::to_string(ph.uncore.lo_ok);
  }
  if (!early_)  // a settling probe's segments ran partly at the level before
    for (TaskType t : types)
      if (const auto it = m_.at_ceiling.find(t); it != m_.at_ceiling.end() && types_[t].reference_mean > 0)
        types_[t].time_factor[{ceiling_of(ph, t), level}] = it->second.mean() / types_[t].reference_mean;
  record_probe(ph, "uncore", level, kMix, e, v == Verdict::good || level == 0,
               level == 0 ? "the core levels chosen, measured: " + why : why);
  if (v == Verdict::good || level == 0) ph.uncore_eval[level] = e;  // level 0: the base the search starts from
  else ph.uncore_bad.insert(level);
  ph.uncore.result(v == Verdict::good);
  if (!ph.uncore.done()) {
    ph.uncore_level = ph.uncore.next();
    return;
  }
  const int best = best_level(ph.uncore_eval);
  if (const int n = unmeasured_neighbour(best, ph.uncore_eval, ph.uncore_bad, ph.uncore.hi_bad); n >= 0) {
    ph.uncore.refine(n);
    ph.uncore_level = n;
    return;
  }
  ph.uncore_level = best;
  if (ph.trade == Trade::under_way) conclude_trade(ph);
  else if (trade_core_for_uncore(ph)) return;
  settle_steady(ph);
}

// The core, searched first, may have spent the bound the uncore needed (a
// memory-bound phase: the core steps cost 3.9 %, the uncore then had no room,
// where an uncore that draws three times the cores' power could have gone 11
// levels down at that time). Where no uncore level below the fastest fit in
// the bound at core levels below the fastest, the core goes back one good
// level (each type's, per type) and the uncore is searched again from there;
// the trade is kept only where it measures less energy than the levels
// before it. Once per phase.
bool Learner::trade_core_for_uncore(Phase& ph) {
  if (ph.trade != Trade::none || ph.uncore_level != 0 || !ph.uncore_refused_for_time) return false;
  const std::string why = "one good level back: no uncore level fit in the bound the core steps left";
  // One good level back for a key (a type, or the mix): recorded where it moves.
  bool moved = false;
  auto back = [&](TaskType key, Level l) {
    const auto searched = ph.core_eval.find(key);  // none where the core ladder has one level
    if (searched == ph.core_eval.end()) return l;
    const auto& good = searched->second;
    const auto it = good.lower_bound(static_cast<int>(l));
    if (it == good.begin()) return l;
    moved = true;
    const auto& [level, eval] = *std::prev(it);
    record_probe(ph, "core", level, key, eval, true, why);
    return static_cast<Level>(level);
  };
  std::map<TaskType, Level> levels = ph.level;
  Level mix_level = ph.mix_level;
  if (ph.per_type) {
    for (auto& [t, l] : levels) l = back(t, l);
  } else {
    mix_level = back(kMix, ph.mix_level);
  }
  if (!moved) return false;
  ph.trade = Trade::under_way;
  ph.before_trade = ph.uncore_eval.at(0);
  ph.before_trade_levels = ph.level;
  ph.before_trade_mix_level = ph.mix_level;
  ph.level = levels;
  ph.mix_level = mix_level;
  start_uncore(ph);
  return true;
}

void Learner::conclude_trade(Phase& ph) {
  ph.trade = Trade::done;
  const Evaluation& after = ph.uncore_eval.at(ph.uncore_level);
  std::string why;
  if (!more_energy(after, ph.before_trade, after.modelled_energy_per_work, ph.before_trade.modelled_energy_per_work,
                   why))
    return;
  record_probe(ph, "uncore", ph.uncore_level, kMix, after, false,
               "the core traded for the uncore: " + why + " against the levels before it, which are taken back");
  ph.level = ph.before_trade_levels;
  ph.mix_level = ph.before_trade_mix_level;
  ph.uncore_level = 0;
}

bool Learner::uncore_power_known() const {
  const FrequencyModel& m = params_.model;
  for (std::size_t l = 1; l < m.uncore_levels(); ++l)
    if (m.uncore_w(m.uncore_hz(l)) != m.uncore_w(m.uncore_hz(0))) return true;
  return false;
}

bool Learner::more_energy(const Evaluation& now, const Evaluation& before, double now_model, double before_model,
                          std::string& why) const {
  if (now.measured_energy && before.measured_energy) {
    const double a = now.energy_per_work, b = before.energy_per_work;
    const double noise = params_.z * std::hypot(a * now.measured_power_rel_se, b * before.measured_power_rel_se);
    if (std::fabs(a - b) > noise && std::fabs(a - b) > kEnergyTolerance * b) {
      if (a > b) why = "measured energy per work " + percent(a / b - 1);
      return a > b;
    }
  }
  if (now_model > before_model) why = "modelled energy per work " + percent(now_model / before_model - 1);
  return now_model > before_model;
}

// The least energy: the meter's where it tells two levels apart, else the model's.
int Learner::best_level(const std::map<int, Evaluation>& good) const {
  int best = good.empty() ? 0 : good.begin()->first;
  std::string ignored;
  for (const auto& [l, ev] : good) {
    const Evaluation& b = good.at(best);
    if (!more_energy(ev, b, ev.modelled_energy_per_work, b.modelled_energy_per_work, ignored) &&
        more_energy(b, ev, b.modelled_energy_per_work, ev.modelled_energy_per_work, ignored))
      best = l;
  }
  return best;
}

int Learner::unmeasured_neighbour(int best, const std::map<int, Evaluation>& good, const std::set<int>& bad,
                                  int hi_bad) {
  for (const int n : {best + 1, best - 1})
    if (n > 0 && n < hi_bad && !good.count(n) && !bad.count(n)) return n;
  return -1;
}

Level Learner::ceiling_of(const Phase& ph, TaskType t) const {
  if (ph.per_type)
    if (const auto it = ph.level.find(t); it != ph.level.end()) return it->second;
  return ph.mix_level;
}

// The types whose core ceiling the core stage searches.
std::vector<TaskType> Learner::probed_types(const Phase& ph) const {
  std::vector<TaskType> out;
  for (const auto& [t, s] : ph.core)
    if (s.trying >= 0) out.push_back(t);
  return out;
}

void Learner::start_core(Phase& ph) {
  const int levels = static_cast<int>(params_.model.core_levels());
  ph.core.clear();
  ph.core_eval.clear();
  ph.uncore_level = 0;
  if (levels <= 1) return start_uncore(ph);
  search_debt_ = debt_now();
  const double shortest_ns = 5 * params_.transition_latency_s * 1e9;
  bool per_type = params_.per_type_core && ph.signature.size() > 1;
  for (TaskType t : ph.signature) per_type = per_type && types_[t].reference_mean >= shortest_ns && t != kUntypedTask;
  ph.per_type = per_type;
  const Evaluation at_uncore = ph.reference_eval;
  const std::optional<FrequencyPairEstimate> seed = seeded_pair(true);
  const std::optional<int> seed_level = seed ? std::optional<int>(static_cast<int>(seed->core_level)) : std::nullopt;
  if (per_type) {
    for (TaskType t : ph.signature) {
      ph.core[t].start(levels, seed_level);
      if (seed) ph.core[t].seed_time_factor = seed->time_factor;
      ph.level[t] = ph.core[t].next();
      ph.core_eval[t][0] = at_uncore;
    }
  } else {
    ph.core[kMix].start(levels, seed_level);
    if (seed) ph.core[kMix].seed_time_factor = seed->time_factor;
    ph.mix_level = ph.core[kMix].next();
    ph.core_eval[kMix][0] = at_uncore;
  }
  ph.stage = Stage::core;
}

void Learner::advance_core(Phase& ph) {
  const std::vector<TaskType> tried = probed_types(ph);
  std::map<TaskType, Evaluation> evals;
  std::map<TaskType, Verdict> verdicts;
  std::map<TaskType, std::string> whys;
  bool all_decided = true, any_beyond = false;
  for (TaskType key : tried) {
    const std::vector<TaskType> types = key == kMix ? ph.signature : std::vector<TaskType>{key};
    evals[key] = evaluate(ph, types, 0, ph.level);
    const auto& good = ph.core_eval[key];
    const auto last_good = good.find(ph.core[key].lo_ok);
    verdicts[key] = time_verdict(evals[key], types, whys[key], last_good != good.end() ? &last_good->second : nullptr);
    all_decided = all_decided && verdicts[key] != Verdict::pending;
    any_beyond = any_beyond || (verdicts[key] == Verdict::bad && clearly_beyond(evals[key]));
  }
  // The types tried move on together once all have their verdicts; one
  // clearly beyond the bound moves back at once (its time counts against the
  // bound), the others keep measuring.
  if (!all_decided && !any_beyond) return;
  for (TaskType key : tried)
    if (all_decided || (verdicts[key] == Verdict::bad && clearly_beyond(evals[key])))
      conclude_core(ph, key, evals[key], verdicts[key], whys[key]);
  bool done = true;
  for (const auto& [k, s] : ph.core) done = done && s.done();
  if (done) start_uncore(ph);
}

// One type's (or the mix's) core probe decided: energy checked where its time
// was good — the meter's over the round where it read every interval (all the
// types' work together), else the type's modelled energy: not above its last
// good level's — then its search moves on.
void Learner::conclude_core(Phase& ph, TaskType key, Evaluation e, Verdict v, std::string why) {
  Search& s = ph.core[key];
  const int level = s.trying;
  const auto last_good = ph.core_eval[key].find(s.lo_ok);
  const bool seeded = level == s.seed;
  accept_seed(s, level, e, v, why, last_good != ph.core_eval[key].end() ? &last_good->second : nullptr);
  if (v == Verdict::good && !seeded) {
    const Evaluation& previous = ph.core_eval[key].at(s.lo_ok);
    double energy = e.modelled_energy_per_work, before = previous.modelled_energy_per_work;
    if (key != kMix) {  // a type's own cores: the meter reads every type's together
      energy = type_energy(ph, e.time_factor, level);
      before = type_energy(ph, previous.time_factor, s.lo_ok);
      if (!(e.measured_energy && previous.measured_energy)) e.modelled_energy_per_work = energy;
    }
    if (more_energy(e, previous, energy, before, why)) {
      v = Verdict::bad;
      why += " against level " + std::to_string(s.lo_ok);
    }
  }
  const std::vector<TaskType> types = key == kMix ? ph.signature : std::vector<TaskType>{key};
  for (TaskType t : early_ ? std::vector<TaskType>{} : types)
    if (const auto it = m_.at_ceiling.find(t); it != m_.at_ceiling.end() && types_[t].reference_mean > 0)
      types_[t].time_factor[{level, 0}] = it->second.mean() / types_[t].reference_mean;
  record_probe(ph, "core", level, key, e, v == Verdict::good, why);
  if (v == Verdict::good) ph.core_eval[key][level] = e;
  else ph.core_bad[key].insert(level);
  s.result(v == Verdict::good);
  Level next = 0;
  if (!s.done()) {
    next = s.next();
  } else {
    next = best_level(ph.core_eval[key]);
    if (const int n = unmeasured_neighbour(next, ph.core_eval[key], ph.core_bad[key], s.hi_bad); n >= 0) {
      s.refine(n);
      next = n;
    }
  }
  if (key == kMix) ph.mix_level = next;
  else ph.level[key] = next;
}

// One type's modelled energy per work at a core level: its cores' power
// there, the uncore's and the waiting workers' shared over the working ones,
// times its time factor.
double Learner::type_energy(const Phase& ph, double time_factor, int level) const {
  const FrequencyModel& m = params_.model;
  const double intervals = std::max(1, m_.intervals);
  const double working = std::max(1.0, m_.working / intervals), waiting = m_.waiting / intervals;
  const double shared = (m.uncore_w(m.uncore_hz(static_cast<std::size_t>(ph.uncore_level))) +
                         waiting * m.idle_w(m.core_hz(m.core_levels() - 1))) /
                        working;
  return time_factor * (m.busy_w(m.core_hz(static_cast<std::size_t>(level))) + shared);
}

// Steady: what each type should measure at the levels chosen.
void Learner::settle_steady(Phase& ph) {
  ph.stage = Stage::steady;
  ph.expected_mean.clear();
  for (TaskType t : ph.signature) {
    const TypeState& ts = types_[t];
    const Level c = ph.per_type ? ph.level[t] : ph.mix_level;
    const auto it = ts.time_factor.find({c, ph.uncore_level});
    const auto at_uncore = ts.time_factor.find({0, ph.uncore_level});
    double f = it != ts.time_factor.end() ? it->second : at_uncore != ts.time_factor.end() ? at_uncore->second : 1.0;
    ph.expected_mean[t] = f * ts.reference_mean;
    types_[t].level = c;
  }
}

void Learner::relearn(Phase& ph, const std::string& why) {
  for (TaskType t : ph.signature) {
    TypeState& ts = types_[t];
    ts.has_reference = false;
    ts.time_factor.clear();
    ts.source = "durations (relearnt: " + why + ")";
  }
  const std::uint64_t id = ph.id;
  const std::vector<TaskType> sig = ph.signature;
  const int relearnt = ph.relearnt + 1;
  ph = Phase{};
  ph.signature = sig;
  ph.id = id;
  ph.relearnt = relearnt;
}

void Learner::watch_steady(Phase& ph) {
  // A window of kBatchIntervals at least: then its error holds the noise an
  // interval's tasks share, and one interval's load does not back a good
  // setting off for the rest of the phase.
  if (!enough(ph.signature) || m_.intervals < kBatchIntervals) {
    if (m_.intervals >= 4 * params_.max_measure_intervals) m_ = Measurement{};  // too few segments: start over
    return;
  }
  const Evaluation e = evaluate(ph, ph.signature, ph.uncore_level, ph.level);
  // Drift: a type measures far from what its probe measured at these levels.
  // A phase relearnt twice has durations too varied to watch this way: it
  // keeps its levels (the bound's watch below still backs off).
  for (TaskType t : ph.relearnt < kMaxRelearn ? ph.signature : std::vector<TaskType>{}) {
    const auto it = m_.at_ceiling.find(t);
    const double expected = ph.expected_mean[t];
    if (it == m_.at_ceiling.end() || !(expected > 0)) continue;
    const double ratio = it->second.mean() / expected;
    if (std::abs(ratio - 1) > params_.drift) {
      record_probe(ph, "steady", ph.uncore_level, t, e, false,
                   "type " + std::to_string(t) + " drifted " + percent(ratio - 1) + " from its probe: relearnt");
      relearn(ph, "drift " + percent(ratio - 1));
      return;
    }
  }
  if (clearly_beyond(e)) {
    // One step back toward the fastest: the uncore where it was lowered, else
    // the core ceiling of the slowest type (or the mix).
    std::string why = "time " + percent(e.time_factor - 1) + " beyond the bound at the levels chosen: ";
    if (ph.uncore_level > 0) {
      --ph.uncore_level;
      why += "the uncore one level up";
    } else if (ph.per_type) {
      TaskType worst = ph.signature.front();
      for (TaskType t : ph.signature)
        if (ph.level[t] > ph.level[worst]) worst = t;
      if (ph.level[worst] > 0) --ph.level[worst];
      why += "type " + std::to_string(worst) + "'s core one level up";
    } else if (ph.mix_level > 0) {
      --ph.mix_level;
      why += "the core one level up";
    }
    record_probe(ph, "steady", ph.uncore_level, kMix, e, false, why);
    ph.backed_off = true;
    settle_steady(ph);
    return;
  }
  m_ = Measurement{};  // the next window
}

LearnerDecision Learner::decision_for(const Phase& ph, const std::string& reason) const {
  LearnerDecision d;
  d.uncore_level = static_cast<std::size_t>(std::max(0, ph.uncore_level));
  d.core_ceiling = ph.mix_level;
  if (ph.per_type && ph.stage != Stage::reference) {
    TaskType top = 0;
    for (const auto& [t, l] : ph.level) top = std::max(top, t);
    d.type_ceiling.assign(std::min<std::size_t>(top + 1, kMaxTaskTypes), 0);
    for (const auto& [t, l] : ph.level)
      if (t < d.type_ceiling.size()) d.type_ceiling[t] = l;
  }
  if (ph.stage == Stage::reference) {
    d.uncore_level = 0;
    d.core_ceiling = 0;
    d.type_ceiling.clear();
  }
  d.stage = stage_name(ph.stage);
  d.reason = reason;
  d.working = working_;
  d.waiting = waiting_;
  return d;
}

void Learner::change(LearnerDecision d, double) {
  const bool same = current_ && current_->uncore_level == d.uncore_level && current_->core_ceiling == d.core_ceiling &&
                    current_->type_ceiling == d.type_ceiling && current_->stage == d.stage;
  if (same) return;
  const bool setting_moved = !current_ || current_->uncore_level != d.uncore_level ||
                             current_->core_ceiling != d.core_ceiling || current_->type_ceiling != d.type_ceiling;
  asked_uncore_ = d.uncore_level;
  d.t_s = now_s_;
  current_ = std::move(d);
  if (setting_moved) {
    m_ = Measurement{};
    settle_ = settle_intervals();
  }
}

// Nothing runs: the uncore at its lowest level (no work needs it) until work returns.
void Learner::go_idle(double now_s) {
  // Only with the levels chosen: a measurement under way (a reference, a
  // probe) is kept over the wait, not ended by it.
  if (phases_.empty() || phases_[phase_].stage != Stage::steady) return;
  if (!idle_ && current_) {
    idle_ = true;
    LearnerDecision d = *current_;
    d.uncore_level = params_.model.uncore_levels() > 0 ? params_.model.uncore_levels() - 1 : 0;
    d.stage = "idle";
    d.reason = "no worker runs: the uncore at its lowest level";
    change(std::move(d), now_s);
  }
}

// A new mix that holds for two intervals is a new phase (one interval's blip
// is not); the first mix is one at once.
void Learner::follow_phase(const std::vector<TaskType>& sig, double now_s) {
  if (sig.empty()) return;
  if (!phases_.empty() && sig == phases_[phase_].signature) {
    candidate_seen_ = 0;
    return;
  }
  if (sig == candidate_signature_) {
    ++candidate_seen_;
  } else {
    candidate_signature_ = sig;
    candidate_seen_ = 1;
  }
  if (!phases_.empty() && candidate_seen_ < 2) return;
  if (!phases_.empty()) {
    const auto cut = probes_in_flight(phases_[phase_], "the phase changed");
    probes_.insert(probes_.end(), cut.begin(), cut.end());
  }
  enter_phase(sig);
  change(decision_for(phases_[phase_], "a phase: task types " + std::to_string(sig.size())), now_s);
  m_ = Measurement{};
  settle_ = std::max(settle_, 1);
}

// An interval of the phase in force: settling (a probe clearly beyond the
// bound is ended even then: its first segments, partly at the setting
// before, can only look better than it is), then measuring for its stage.
void Learner::measure(Phase& ph, const LearnerInput& in, const std::map<TaskType, std::map<Level, Stat>>& by_type) {
  if (ph.stage != Stage::steady) probing_s_ += params_.interval_s;
  const bool in_force = params_.model.uncore_levels() <= 1 || in.uncore_level == static_cast<int>(asked_uncore_);
  const bool probing = ph.stage == Stage::uncore || ph.stage == Stage::core;
  if (settle_ > 0) {
    --settle_;
    if (!in_force || !probing) return;
    accumulate(in, by_type);
    early_ = true;
    if (ph.stage == Stage::uncore) advance_uncore(ph);
    else advance_core(ph);
    early_ = false;
    change(decision_for(ph, ph.stage == Stage::uncore ? "probing the uncore" : "probing the core"), in.now_s);
    if (settle_ == 0) m_ = Measurement{};  // the measurement proper starts clean
    return;
  }
  if (!in_force) return;
  accumulate(in, by_type);
  switch (ph.stage) {
    case Stage::reference:
      // Every type's reference to its precision, or what there is after three
      // times the longest measurement once some type has its segments (it
      // costs nothing to wait: long tasks need long).
      if (enough(ph.signature, true) && reference_precise(ph.signature)) {
        finish_reference(ph);
        change(decision_for(ph, "references measured at the fastest pair"), in.now_s);
      } else if (m_.intervals >= 3 * params_.max_measure_intervals) {
        if (any_measured(ph.signature) && reference_spread(ph.signature) <= kMeasurableShare) {
          finish_reference(ph);
          change(decision_for(ph, "references measured at the fastest pair"), in.now_s);
        } else {
          follow_seeds(ph);
          change(decision_for(ph, ph.mix_level == 0 && ph.uncore_level == 0
                                      ? "durations cannot measure this phase and nothing seeds it: at the reference"
                                      : "durations cannot measure this phase: the counters' or settings' levels"),
                 in.now_s);
        }
      }
      break;
    case Stage::uncore:
      advance_uncore(ph);
      change(decision_for(ph, ph.stage == Stage::uncore ? "probing the uncore" : "levels chosen"), in.now_s);
      break;
    case Stage::core:
      advance_core(ph);
      change(decision_for(ph, ph.stage == Stage::core ? "probing the core" : "core levels chosen"), in.now_s);
      break;
    case Stage::steady:
      if (ph.unmeasurable) {
        follow_seeds(ph);  // the counters move: the model's levels for them, as the open loop's
        change(decision_for(ph, "durations cannot measure this phase: the counters' or settings' levels"), in.now_s);
        break;
      }
      watch_steady(ph);
      change(decision_for(ph, ph.stage == Stage::steady ? "steady" : "relearning"), in.now_s);
      break;
  }
}

std::optional<LearnerDecision> Learner::step(const LearnerInput& in) {
  now_s_ = in.now_s;
  working_ = in.activity.working;
  waiting_ = in.activity.waiting;
  const std::optional<LearnerDecision> before = current_;
  if (in.sample && params_.saturated_transaction_rate_per_s > 0) {
    std::string why;
    if (const auto rate = memory_transaction_rate(*in.sample, why))
      counter_uncore_share_ = uncore_share_from_rate(*rate, params_.saturated_transaction_rate_per_s);
  }
  std::map<TaskType, std::map<Level, Stat>> by_type;
  observe_types(in, by_type);
  if (in.activity.working <= 0 && by_type.empty()) {
    go_idle(in.now_s);
  } else {
    if (idle_) {
      idle_ = false;
      if (!phases_.empty()) change(decision_for(phases_[phase_], "workers run again"), in.now_s);
    }
    follow_phase(signature_of(by_type), in.now_s);
    // Workers that run without ending a segment for three times the longest
    // measurement (tasks as long as the run): nothing to measure, the seeds.
    blind_intervals_ = phases_.empty() && by_type.empty() ? blind_intervals_ + 1 : 0;
    if (phases_.empty() && blind_intervals_ >= 3 * params_.max_measure_intervals) {
      enter_phase({});
      follow_seeds(phases_[phase_]);
      change(decision_for(phases_[phase_], "no segment ends to measure: the counters' or settings' levels"), in.now_s);
    }
    if (!phases_.empty()) measure(phases_[phase_], in, by_type);
  }
  if (!current_) {
    LearnerDecision d;
    d.stage = "reference";
    d.reason = by_type.empty() ? "the first interval" : "no type long enough to measure: at the reference";
    change(std::move(d), in.now_s);
  }
  const bool same = before && before->uncore_level == current_->uncore_level &&
                    before->core_ceiling == current_->core_ceiling && before->type_ceiling == current_->type_ceiling &&
                    before->stage == current_->stage;
  return same ? std::nullopt : current_;
}

// ---- the report ----------------------------------------------------------------

std::vector<LearningProbe> Learner::probes_in_flight(const Phase& ph, const std::string& why) const {
  std::vector<LearningProbe> out;
  auto cut = [&](const std::string& lever, int level, TaskType type) {
    LearningProbe p = probe_entry(ph, lever, level, type);
    p.time_factor = 0;  // none measured
    p.energy_source = "none";
    for (const auto& [t, st] : m_.at_ceiling) p.segments += static_cast<std::uint64_t>(st.n);
    p.why = "cut short before its verdict: " + why + "; the level it set was in force " + std::to_string(m_.intervals) +
            " intervals";
    out.push_back(std::move(p));
  };
  if (ph.stage == Stage::uncore && ph.uncore.trying >= 0) cut("uncore", ph.uncore.trying, kMix);
  if (ph.stage == Stage::core)
    for (TaskType t : probed_types(ph)) cut("core", ph.core.at(t).trying, t);
  return out;
}

void Learner::fill_report(Report& r, const std::vector<std::string>& type_names) const {
  r.learning_probes.insert(r.learning_probes.end(), probes_.begin(), probes_.end());
  if (!phases_.empty()) {
    const auto cut = probes_in_flight(phases_[phase_], "the run ended");
    r.learning_probes.insert(r.learning_probes.end(), cut.begin(), cut.end());
  }
  const FrequencyModel& m = params_.model;
  const ReferenceSetting& ref = m.reference();
  for (const auto& [t, ts] : types_) {
    LearnedType lt;
    lt.type = t;
    if (t < type_names.size()) lt.name = type_names[t];
    lt.segments = ts.segments;
    lt.reference_ns = ts.has_reference ? ts.reference_mean : 0;
    lt.core_level = ts.level;
    lt.source = ts.too_short ? "too short to measure (mean segment under " + std::to_string(params_.min_type_ns) +
                                   " ns): at the reference"
                : ts.source.rfind("durations too few", 0) == 0 ? ts.source
                : !ts.has_reference ? "too few segments or too little of the work to measure: at the reference"
                                    : ts.source;
    // Implied shares, through the model's form, from the slowest probes
    // measured: b_u from an uncore step at a core level, b_c from a core step
    // at the fastest uncore, each against its own base.
    for (const auto& [key, f] : ts.time_factor) {
      const auto [c, u] = key;
      const auto base = ts.time_factor.find({c, 0});
      if (u > 0 && base != ts.time_factor.end() && base->second > 0) {
        const double g = uncore_time_stretch(m.uncore_hz(static_cast<std::size_t>(u)), ref);
        if (g > 1.02) lt.uncore_sensitivity = std::clamp((f / base->second - 1) / (g - 1), 0.0, 1.0);
      }
      if (c > 0 && u == 0) {
        const double stretch = ref.core_hz / m.core_hz(static_cast<std::size_t>(c)) - 1;
        if (stretch > 0.02) lt.core_sensitivity = std::clamp((f - 1) / stretch, 0.0, 1.0);
      }
    }
    r.learned_types.push_back(std::move(lt));
  }
  auto& p = r.parameters;
  p["learning"] = "closed loop: segment durations by task type" +
                  std::string(params_.saturated_transaction_rate_per_s > 0 ? ", seeded by counters" : "") +
                  (params_.fallbacks.settings_uncore ? ", seeded by the settings" : "");
  p["learning_probing_s"] = std::to_string(probing_s_);
  p["learning_measured_time_factor"] = std::to_string(measured_time_factor());
  p["learning_phases"] = std::to_string(phases_.size());
}

}  // namespace rubato::min_energy
