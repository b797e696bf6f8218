#include "rubato/core/model/work_sensitivity.hpp"

#include <cmath>
#include <cstdio>

namespace rubato {
namespace {

// Sums such as 0.9495 + 0.0147 of rounded fitted shares may exceed 1 by rounding only.
constexpr double kSumSlack = 1e-9;

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string sensitivity_error(const WorkSensitivity& s) {
  if (!std::isfinite(s.core) || s.core < 0)
    return "core sensitivity " + number_text(s.core) + ": expected a share in [0, 1]";
  if (!std::isfinite(s.uncore) || s.uncore < 0)
    return "uncore sensitivity " + number_text(s.uncore) + ": expected a share in [0, 1]";
  if (s.core + s.uncore > 1.0 + kSumSlack)
    return "core sensitivity " + number_text(s.core) + " + uncore sensitivity " + number_text(s.uncore) +
           " exceed 1: they are shares of the same time";
  return {};
}

}  // namespace rubato
