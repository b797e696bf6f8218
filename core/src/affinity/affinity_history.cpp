#include "rubato/core/affinity/affinity_history.hpp"

#include <algorithm>
#include <cstddef>

namespace rubato::affinity {

MetricsHistory::MetricsHistory(HistoryParams params) : params_(params) {
  params_.recent = std::max(1, params_.recent);
  params_.baseline = std::max(1, params_.baseline);
}

void MetricsHistory::push(IntervalMetrics interval) {
  table_.push_back(std::move(interval));
  while (table_.size() > static_cast<std::size_t>(params_.recent + params_.baseline)) table_.pop_front();
}

std::size_t MetricsHistory::recent_begin() const noexcept {
  const auto k = static_cast<std::size_t>(params_.recent);
  return table_.size() > k ? table_.size() - k : 0;
}

bool MetricsHistory::sustained(const std::function<bool(const IntervalMetrics&)>& holds) const {
  if (!has_recent_window()) return false;
  for (std::size_t i = recent_begin(); i < table_.size(); ++i)
    if (!holds(table_[i])) return false;
  return true;
}

ContentionVerdict MetricsHistory::cache_contention(int core) const {
  ContentionVerdict v;
  if (core < 0 || table_.size() < static_cast<std::size_t>(params_.recent + params_.baseline)) return v;
  const auto c = static_cast<std::size_t>(core);
  std::vector<double> rates;
  for (const IntervalMetrics& m : table_) {
    if (c >= m.cores.size() || !m.cores[c].miss_rate) return v;  // a gap: not known
    rates.push_back(*m.cores[c].miss_rate);
  }
  const auto j = static_cast<std::size_t>(params_.baseline);
  double baseline = 0, recent = 0;
  for (std::size_t i = 0; i < rates.size(); ++i) (i < j ? baseline : recent) += rates[i];
  v.known = true;
  v.baseline_mean = baseline / static_cast<double>(j);
  v.recent_mean = recent / static_cast<double>(rates.size() - j);
  const auto above = [&](double rate) {
    return rate > (1 + params_.tolerance) * v.baseline_mean && rate - v.baseline_mean > params_.min_increase;
  };
  v.elevated = above(v.recent_mean);
  v.sustained = std::all_of(rates.begin() + static_cast<std::ptrdiff_t>(j), rates.end(), above);
  return v;
}

double MetricsHistory::mean_core_utilisation(int core) const {
  if (core < 0 || table_.empty()) return 0;
  const auto c = static_cast<std::size_t>(core);
  double sum = 0;
  for (std::size_t i = recent_begin(); i < table_.size(); ++i)
    sum += c < table_[i].cores.size() ? table_[i].cores[c].utilisation : 0;
  return sum / static_cast<double>(table_.size() - recent_begin());
}

namespace {

// Running mean of an optional metric.
struct OptionalMean {
  double sum = 0;
  int n = 0;
  void add(const std::optional<double>& v) {
    if (!v) return;
    sum += *v;
    ++n;
  }
  std::optional<double> value() const { return n > 0 ? std::optional<double>(sum / n) : std::nullopt; }
};

}  // namespace

std::optional<double> MetricsHistory::mean_core_miss_rate(int core) const {
  OptionalMean mean;
  if (core < 0) return std::nullopt;
  const auto c = static_cast<std::size_t>(core);
  for (std::size_t i = recent_begin(); i < table_.size(); ++i)
    if (c < table_[i].cores.size()) mean.add(table_[i].cores[c].miss_rate);
  return mean.value();
}

ThreadHistory MetricsHistory::thread(std::uint64_t id) const {
  ThreadHistory h;
  OptionalMean miss, miss_s, fp;
  for (std::size_t i = recent_begin(); i < table_.size(); ++i) {
    for (const ThreadMetrics& t : table_[i].threads) {
      if (t.id != id) continue;
      ++h.intervals;
      h.utilisation += t.utilisation;
      miss.add(t.miss_rate);
      miss_s.add(t.misses_per_s);
      fp.add(t.fp_intensity);
      break;
    }
  }
  if (h.intervals > 0) h.utilisation /= h.intervals;
  h.miss_rate = miss.value();
  h.misses_per_s = miss_s.value();
  h.fp_intensity = fp.value();
  return h;
}

bool MetricsHistory::has_miss_metrics() const {
  for (std::size_t i = recent_begin(); i < table_.size(); ++i)
    for (const CoreMetrics& c : table_[i].cores)
      if (c.miss_rate) return true;
  return false;
}

bool MetricsHistory::has_fp_metrics() const {
  for (std::size_t i = recent_begin(); i < table_.size(); ++i)
    for (const CoreMetrics& c : table_[i].cores)
      if (c.fp_intensity) return true;
  return false;
}

}  // namespace rubato::affinity
