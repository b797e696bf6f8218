#include "rubato/core/tempo/cost_guard.hpp"

#include <algorithm>
#include <stdexcept>

#include "rubato/core/model/time_model.hpp"

namespace rubato {

CostGuard::CostGuard(const TempoLadder& ladder, CostModel model)
    : enabled_(true), hz_(ladder.frequencies_hz()), model_(std::move(model)) {
  if (model_.busy_w.size() != hz_.size())
    throw std::invalid_argument("cost guard: one busy power per ladder level is needed");
  if (model_.uncore_level_w.size() != model_.uncore_hz.size())
    throw std::invalid_argument("cost guard: one power per uncore level is needed");
  // Two shares of one time: the measured uncore share stands, β gives way.
  model_.uncore_sensitivity = std::clamp(model_.uncore_sensitivity, 0.0, 1.0);
  model_.beta = std::clamp(model_.beta, 0.0, 1.0 - model_.uncore_sensitivity);
}

CostGuard::Weighed CostGuard::weigh(Level from, Level to, const GuardContext& c) const noexcept {
  const auto n = static_cast<Level>(hz_.size());
  if (!enabled_ || from < 0 || to < 0 || from >= n || to >= n || to == from) return {};
  const bool uncore_known = c.uncore_level >= 0 && c.uncore_level < uncore_levels();
  const auto u = static_cast<std::size_t>(uncore_known ? c.uncore_level : 0);
  const double uncore_w = uncore_known ? model_.uncore_level_w[u] : model_.uncore_w;
  const double uncore_hz = uncore_known ? model_.uncore_hz[u] : 0.0;  // 0: the uncore term stays 1
  const double share = uncore_w / std::max(1.0, c.active);
  const double f = hz_[static_cast<std::size_t>(from)], f2 = hz_[static_cast<std::size_t>(to)];
  const WorkSensitivity work = c.work ? *c.work : WorkSensitivity{model_.beta, model_.uncore_sensitivity};
  // Shares at (f, the fastest uncore): T(f, fu) = 1 + b_u (g(fu) - 1), and
  // with b_u = 0 the stretch is 1 + β (f/f' − 1), bit for bit.
  const ReferenceSetting at_from{f, model_.uncore_hz.empty() ? 0.0 : model_.uncore_hz.front(),
                                 model_.memory_bandwidth_knee_hz};
  const double stretch = time_factor(work, f2, uncore_hz, at_from) / time_factor(work, f, uncore_hz, at_from);
  const double before = model_.busy_w[static_cast<std::size_t>(from)] + share;
  const double after = (model_.busy_w[static_cast<std::size_t>(to)] + share) * stretch;
  return {before > 0 ? after / before : 1.0, stretch};
}

Level CostGuard::admit(Level from, Level to, const GuardContext& c) const noexcept {
  if (!enabled_ || to <= from) return to;
  if (c.critical) return from;
  for (Level l = to; l > from; --l)
    if (pays(from, l, c)) return l;
  return from;
}

}  // namespace rubato
