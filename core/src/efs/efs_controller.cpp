#include "rubato/core/efs/efs_controller.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "rubato/core/efs/efs_admission.hpp"
#include "rubato/core/efs/efs_counters.hpp"

namespace rubato::efs {
namespace {

std::string fixed(double v, int digits = 3) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string ms(double s) { return fixed(s * 1e3, 0) + " ms"; }

}  // namespace

EfsController::EfsController(ControllerParams params) : params_(std::move(params)), power_(params_.power_w) {
  if (!(params_.accesses_per_s > 0))
    throw std::invalid_argument("efs controller: the bus bandwidth µ must be positive");
  if (power_.max_active_cores() < 1) throw std::invalid_argument("efs controller: the power table needs P0 and P1");
  if (params_.cores < 1) throw std::invalid_argument("efs controller: cores must be at least 1");
  params_.cores = std::min(params_.cores, power_.max_active_cores());
}

void EfsController::add_target(std::uint64_t id, double now_s) {
  for (const Target& t : targets_)
    if (t.id == id) return;
  Target t;
  t.id = id;
  t.predictor = SoloBandwidthPredictor::for_cores(params_.cores, params_.predictor_window_s);
  t.running_since_s = t.parked_since_s = now_s;
  targets_.push_back(t);
}

void EfsController::remove_target(std::uint64_t id) {
  std::erase_if(targets_, [&](const Target& t) { return t.id == id; });
}

bool EfsController::parked(std::uint64_t id) const noexcept {
  for (const Target& t : targets_)
    if (t.id == id) return t.parked;
  return false;
}

std::optional<double> EfsController::prediction(std::uint64_t id) const noexcept {
  for (const Target& t : targets_)
    if (t.id == id) return t.predictor.prediction();
  return std::nullopt;
}

std::vector<std::uint64_t> EfsController::target_ids() const {
  std::vector<std::uint64_t> out;
  for (const Target& t : targets_) out.push_back(t.id);
  return out;
}

double EfsController::wait_bound_s() const noexcept {
  const int np = std::max(1, static_cast<int>(targets_.size()));
  return global_threshold_s(np, params_.starvation) + max_wait_s(np, params_.starvation) +
         2 * params_.control_interval_s;
}

// Eqs. 18-19 give U and each running target's u_i, Eq. 9 its solo utilisation,
// Eq. 20 the prediction for the next interval.
void EfsController::measure(const counters::CounterSample& sample, double interval_s, ControlStep& out) {
  const auto& chip = sample.chip;
  out.measured = chip.mem_accesses.has_value();
  const double mu = params_.accesses_per_s;
  if (out.measured) out.bus_utilisation = chip_utilisation(*chip.mem_accesses, mu, interval_s);
  double solo_sum = 0;
  int solo_n = 0;
  for (Target& t : targets_) {
    if (t.parked) continue;
    const counters::ThreadCounts* c = sample.thread(t.id);
    const double busy = c && c->busy_s ? std::clamp(*c->busy_s, 0.0, interval_s) : interval_s;
    t.vruntime_s += busy;
    t.idle = busy < params_.min_busy_fraction * interval_s;
    if (t.idle || !out.measured || !c || !c->mem_reads) continue;
    const double u = core_utilisation(*c->mem_reads, *chip.mem_accesses, chip.mem_writes.value_or(0), mu, interval_s);
    const double b = clamp_solo(solo_utilisation(u, out.bus_utilisation));
    t.predictor.update(b, interval_s);
    solo_sum += b;
    ++solo_n;
  }
  if (params_.pooled_work && solo_n > 0)
    for (Target& t : targets_)
      if (t.parked) t.predictor.update(solo_sum / solo_n, interval_s);
}

// EFS's order (§4.2-4.3): the starved target first, then the running ones
// still within their timeslice, then the rest by least vruntime (CFS's pick),
// ties by id.
std::vector<std::size_t> EfsController::candidate_order(double now_s) {
  const int np = static_cast<int>(targets_.size());
  std::vector<RunnableThread> view;
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    const Target& t = targets_[i];
    view.push_back({t.id, params_.shared_queue ? 0 : static_cast<int>(i), t.vruntime_s,
                    t.parked ? t.parked_since_s : now_s, !t.parked});
  }
  if (const auto starved = longest_starved(view, now_s, params_.starvation)) {
    const double slice = starved_timeslice_s(view, *starved, params_.starvation);
    const int nc = params_.shared_queue ? np : 1;
    targets_[*starved].forced_until_s = now_s + (slice > 0 ? slice : period_s(nc, params_.starvation));
  }
  const double timeslice = params_.shared_queue ? period_s(np, params_.starvation) : 1e300;
  const auto rank = [&](const Target& t) {
    if (t.forced_until_s > now_s) return 0;
    if (!t.parked && now_s - t.running_since_s < timeslice) return 1;
    return 2;
  };
  std::vector<std::size_t> order(targets_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Workers of one pool are interchangeable: the running ones keep running in
  // index order (worker 0 is usually the thread that runs the program's serial
  // parts and root task, so it is the last to be held back).
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Target &ta = targets_[a], &tb = targets_[b];
    if (rank(ta) != rank(tb)) return rank(ta) < rank(tb);
    if (!(params_.pooled_work && rank(ta) == 1) && ta.vruntime_s != tb.vruntime_s) return ta.vruntime_s < tb.vruntime_s;
    return ta.id < tb.id;
  });
  return order;
}

// Eq. 16's threshold for one more target beside `chosen`; Eq. 15 directly when
// the threshold cannot be solved for.
std::string EfsController::admission_reason(const std::vector<double>& chosen, double candidate, bool& admit) const {
  const AdmissionThreshold thr = admission_threshold(chosen, power_, params_.alpha);
  const std::string running = std::to_string(chosen.size()) + " running";
  if (const auto a = thr.admits(candidate)) {
    admit = *a;
    return "predicted solo bus utilisation " + fixed(candidate) + (admit ? " below" : " not below") +
           " the admission threshold " + fixed(*thr.max_solo) + " beside " + running + " (Eqs. 10, 16)";
  }
  const AdmissionCheck check = check_admission(chosen, candidate, power_, params_.alpha);
  admit = check.admit;
  return "energy per work with one more (predicted solo bus utilisation " + fixed(candidate) + ") " +
         (admit ? "lower" : "not lower") + " than with " + running + " (Eq. 15; threshold " +
         std::string(to_string(thr.status)) + ")";
}

ControlStep EfsController::step(const counters::CounterSample& sample, double now_s) {
  ControlStep out;
  double interval_s = sample.elapsed_s;
  if (!(interval_s > 0) && last_step_s_) interval_s = now_s - *last_step_s_;
  last_step_s_ = now_s;
  if (!(interval_s > 0) || targets_.empty()) return out;
  measure(sample, interval_s, out);

  const std::vector<std::size_t> order = candidate_order(now_s);
  std::vector<std::uint8_t> run(targets_.size(), 0);
  std::vector<std::string> why(targets_.size());
  std::vector<double> chosen;  // predicted solo utilisations of the chosen bus users
  std::size_t running = 0;
  for (std::size_t i : order) {
    Target& t = targets_[i];
    const double b = t.predictor.prediction();
    if (!t.parked && t.idle) {  // not runnable by the measure: costs the bus nothing, parking gains nothing
      run[i] = 1;
      continue;
    }
    bool admit = false;
    if (running >= static_cast<std::size_t>(params_.cores)) {
      why[i] = "all " + std::to_string(params_.cores) + " cores taken";
    } else if (t.forced_until_s > now_s) {
      admit = true;
      why[i] = "starved: waited " + ms(now_s - t.parked_since_s) + " (t_global " +
               ms(global_threshold_s(static_cast<int>(targets_.size()), params_.starvation)) +
               ", Eq. 23), runs whatever the bus says (§4.3)";
    } else if (chosen.empty()) {
      admit = true;
      why[i] = "first to run: nothing else uses the bus";
    } else {
      why[i] = admission_reason(chosen, b, admit);
    }
    if (!admit) continue;
    run[i] = 1;
    ++running;
    chosen.push_back(b);
  }

  for (std::size_t i = 0; i < targets_.size(); ++i) {
    Target& t = targets_[i];
    const bool park = run[i] == 0;
    if (park) ++out.waiting;
    else ++out.running;
    if (park == t.parked) continue;
    t.parked = park;
    if (park) t.parked_since_s = now_s;
    else t.running_since_s = now_s;
    out.changes.push_back({t.id, park, "efs: " + why[i]});
  }
  return out;
}

}  // namespace rubato::efs
