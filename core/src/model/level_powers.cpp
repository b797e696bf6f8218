#include "rubato/core/model/level_powers.hpp"

#include <cmath>

namespace rubato {
namespace {

std::string ladder_error(const std::vector<double>& hz, const char* name) {
  for (std::size_t i = 0; i < hz.size(); ++i) {
    if (!(hz[i] > 0) || !std::isfinite(hz[i])) return std::string(name) + ": frequencies must be > 0";
    if (i > 0 && !(hz[i] < hz[i - 1])) return std::string(name) + ": frequencies must be strictly descending";
  }
  return {};
}

std::string powers_error(const std::vector<double>& w, std::size_t levels, const char* name) {
  if (w.size() != levels) return std::string(name) + ": one power per level is needed";
  for (double p : w)
    if (!(p >= 0) || !std::isfinite(p)) return std::string(name) + ": powers must be finite and >= 0";
  return {};
}

}  // namespace

std::string level_powers_error(const LevelPowers& p) {
  if (p.core_hz.empty()) return "level powers: no core level";
  for (std::string e : {ladder_error(p.core_hz, "core levels"), powers_error(p.busy_w, p.core_hz.size(), "busy_w"),
                        powers_error(p.idle_w, p.core_hz.size(), "idle_w"), ladder_error(p.uncore_hz, "uncore levels"),
                        powers_error(p.uncore_w, p.uncore_hz.size(), "uncore_w")})
    if (!e.empty()) return "level powers: " + e;
  if (!(p.uncore_fixed_w >= 0) || !std::isfinite(p.uncore_fixed_w))
    return "level powers: uncore_fixed_w must be finite and >= 0";
  return {};
}

}  // namespace rubato
