#include "rubato/core/tempo/cost_guard.hpp"

#include <algorithm>
#include <stdexcept>

namespace rubato {

CostGuard::CostGuard(const TempoLadder& ladder, CostModel model)
    : enabled_(true), hz_(ladder.frequencies_hz()), model_(std::move(model)) {
  if (model_.busy_w.size() != hz_.size())
    throw std::invalid_argument("cost guard: one busy power per ladder level is needed");
  model_.beta = std::clamp(model_.beta, 0.0, 1.0);
}

double CostGuard::energy_ratio(Level from, Level to, int active) const noexcept {
  const auto n = static_cast<Level>(hz_.size());
  if (!enabled_ || from < 0 || to < 0 || from >= n || to >= n || to == from) return 1.0;
  const double share = model_.uncore_w / std::max(1, active);
  const double f = hz_[static_cast<std::size_t>(from)], f2 = hz_[static_cast<std::size_t>(to)];
  const double stretch = 1.0 + model_.beta * (f / f2 - 1.0);  // d'/d
  const double before = model_.busy_w[static_cast<std::size_t>(from)] + share;
  const double after = (model_.busy_w[static_cast<std::size_t>(to)] + share) * stretch;
  return before > 0 ? after / before : 1.0;
}

Level CostGuard::admit(Level from, Level to, int active) const noexcept {
  if (!enabled_ || to <= from) return to;
  for (Level l = to; l > from; --l)
    if (pays(from, l, active)) return l;
  return from;
}

}  // namespace rubato
