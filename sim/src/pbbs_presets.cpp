// PBBS-shaped DAG mixes for the five kernels of [HERMES] §4.1 (KNN, Ray, Sort,
// Compare, Hull). Hand-written from the structure of the PBBS algorithms, NOT
// calibrated against traces: the phases, their parallelism and their
// memory-boundedness follow the algorithm; the sizes are scaled so one
// simulation takes about a second. Traces of the real kernels (benchmarks/kernels,
// `--trace`) replace them where available.
#include "rubato/sim/dag_spec.hpp"

#include <utility>

namespace rubato::sim {
namespace {

const std::vector<std::pair<std::string, std::string>>& presets() {
  static const std::vector<std::pair<std::string, std::string>> table = {
      // nearestNeighbors: build a spatial tree by recursive uneven partitioning
      // (parallel partition at each node), then one irregular query per point.
      {"knn",
       "split:1e6:grain=1000:item=40ns:part=15ns:skew=0.3:filter=par,"
       "loop:1e6:grain=256:iter=600ns:jitter=0.5:beta=0.85"},
      // rayCast: kd-tree build (uneven SAH splits), then a loop over rays whose
      // cost varies a lot with where each ray goes.
      {"ray",
       "split:5e5:grain=500:item=60ns:part=30ns:skew=0.6:filter=par,"
       "loop:5e5:grain=64:iter=2us:jitter=0.9:beta=0.9"},
      // integerSort: blocked radix sort, three 8-bit passes of count, scan,
      // scatter; memory bound (low beta).
      {"sort",
       "loop:1e7:grain=8192:iter=1ns:beta=0.35,serial:200us:beta=0.5,loop:1e7:grain=8192:iter=2ns:beta=0.3,"
       "loop:1e7:grain=8192:iter=1ns:beta=0.35,serial:200us:beta=0.5,loop:1e7:grain=8192:iter=2ns:beta=0.3,"
       "loop:1e7:grain=8192:iter=1ns:beta=0.35,serial:200us:beta=0.5,loop:1e7:grain=8192:iter=2ns:beta=0.3"},
      // comparisonSort (sample sort): sort blocks, pick pivots serially, count
      // and move into buckets, sort the (unequal) buckets.
      {"compare",
       "loop:1e6:grain=1000:iter=25ns:beta=0.9,serial:300us,loop:1e6:grain=1000:iter=8ns:beta=0.5,"
       "loop:1e6:grain=1000:iter=5ns:beta=0.3,loop:1000:grain=1:iter=25us:jitter=0.8:beta=0.9"},
      // quickHull: find the extreme points, then recursive filtering with very
      // uneven splits and a parallel filter at every level.
      {"hull",
       "loop:1e6:grain=2000:iter=3ns:beta=0.6,"
       "split:1e6:grain=2000:item=6ns:part=4ns:skew=0.8:filter=par:beta=0.7"},
  };
  return table;
}

}  // namespace

std::optional<std::string> pbbs_preset(std::string_view name) {
  for (const auto& [n, text] : presets())
    if (n == name) return text;
  return std::nullopt;
}

const std::vector<std::string>& pbbs_preset_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& p : presets()) v.push_back(p.first);
    return v;
  }();
  return names;
}

}  // namespace rubato::sim
