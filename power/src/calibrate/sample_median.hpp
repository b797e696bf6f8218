// The median of measured samples, as the power library's measurements report
// it: the upper middle element for an even count, 0 for none.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace rubato {

inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto middle = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), middle, v.end());
  return *middle;
}

}  // namespace rubato
