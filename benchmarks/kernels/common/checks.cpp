#include "checks.hpp"

#include <algorithm>
#include <cstdio>

namespace kernels {

std::string Fingerprint::hex() const {
  char buf[19];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
  return buf;
}

std::vector<std::size_t> check_sample(std::size_t n, std::size_t count, std::uint64_t seed) {
  std::vector<std::size_t> s;
  if (n == 0) return s;
  const CounterRng rng(seed, Stream::samples);
  s.push_back(0);
  s.push_back(n - 1);
  for (std::size_t i = 0; i < count; ++i) s.push_back(rng.below(i, n));
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

}  // namespace kernels
