#include "rubato/sim/efs_contention.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "rubato/core/efs/efs_model.hpp"

namespace rubato::sim {

double EfsContention::solo_in_model(double solo_bus) const noexcept { return efs::clamp_solo(solo_bus); }

void EfsContention::speeds(std::span<const double> solo_bus, std::span<double> out) const {
  // Only bus users enter Eq. 10, sorted so that one set has one key whatever
  // the order of the workers running it.
  order_.clear();
  for (std::size_t i = 0; i < solo_bus.size(); ++i) {
    out[i] = 1.0;
    if (solo_in_model(solo_bus[i]) > 0) order_.push_back(i);
  }
  if (order_.size() < 2) return;  // alone on the bus: unhindered (Eq. 10 gives u = b)
  std::stable_sort(order_.begin(), order_.end(),
                   [&](std::size_t a, std::size_t b) { return solo_bus[a] < solo_bus[b]; });
  key_.clear();
  for (std::size_t i : order_) key_.push_back(solo_in_model(solo_bus[i]));

  auto it = cache_.find(key_);
  if (it != cache_.end()) {
    ++lookups_;
  } else {
    const efs::UtilisationPrediction p = efs::predict_utilisations(key_);
    if (!p.ok()) {
      std::string set;
      for (double b : key_) {
        char buf[24];
        std::snprintf(buf, sizeof buf, "%s%.6g", set.empty() ? "" : ",", b);
        set += buf;
      }
      throw std::runtime_error("EFS contention: Eq. 10 not solved for solo utilisations {" + set + "} (" +
                               std::string(efs::to_string(p.status)) + ")");
    }
    if (cache_.size() >= kCacheLimit) cache_.clear();
    it = cache_.emplace(key_, efs::slowdowns(key_, p.u)).first;
    ++solves_;
  }
  for (std::size_t k = 0; k < order_.size(); ++k) out[order_[k]] = it->second[k];
}

}  // namespace rubato::sim
