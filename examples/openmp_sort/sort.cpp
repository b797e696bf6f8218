// Parallel merge sort with OpenMP tasks: the input is filled by a taskloop,
// halves are sorted as tasks (below a cutoff, serially) and merged after a
// taskwait. Nothing here knows about rubato.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr std::size_t kCutoff = 1 << 12;

void merge_sort(std::vector<std::uint32_t>& v, std::vector<std::uint32_t>& tmp, std::size_t lo, std::size_t hi) {
  if (hi - lo <= kCutoff) {
    std::sort(v.begin() + static_cast<std::ptrdiff_t>(lo), v.begin() + static_cast<std::ptrdiff_t>(hi));
    return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
#pragma omp task shared(v, tmp)
  merge_sort(v, tmp, lo, mid);
#pragma omp task shared(v, tmp)
  merge_sort(v, tmp, mid, hi);
#pragma omp taskwait
  std::merge(v.begin() + static_cast<std::ptrdiff_t>(lo), v.begin() + static_cast<std::ptrdiff_t>(mid),
             v.begin() + static_cast<std::ptrdiff_t>(mid), v.begin() + static_cast<std::ptrdiff_t>(hi),
             tmp.begin() + static_cast<std::ptrdiff_t>(lo));
  std::copy(tmp.begin() + static_cast<std::ptrdiff_t>(lo), tmp.begin() + static_cast<std::ptrdiff_t>(hi),
            v.begin() + static_cast<std::ptrdiff_t>(lo));
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (1u << 23);
  std::vector<std::uint32_t> v(n), tmp(n);
  const double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskloop grainsize(1 << 16)
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint32_t>((i * 2654435761u) ^ (i >> 7));
    merge_sort(v, tmp, 0, n);
  }
  const bool sorted = std::is_sorted(v.begin(), v.end());
  std::printf("sorted %zu keys: %s in %.3f s on %d threads\n", n, sorted ? "ok" : "WRONG", omp_get_wtime() - t0,
              omp_get_max_threads());
  return sorted ? 0 : 1;
}
