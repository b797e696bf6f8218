// The replay source: a recorded counter series (docs/efs-affinity.md) played back
// one interval per sample, whatever the real time: tests and "what if" runs
// drive the efs and affinity controllers through known readings on any
// machine. The recording's thread indices are the target ids (worker index,
// or program index in a --mix); an interval without elapsed_s lasts what the
// controller says. Playing starts once every target the recording names has
// been tracked (a runtime starts its workers when the program opens its first
// parallel region, not when the tool loads); until then a sample is empty.
// Once the recording is over it is exhausted.
#include <fstream>
#include <set>
#include <sstream>

#include "counters/counter_source_makers.hpp"
#include "rubato/core/counters/counter_series.hpp"

namespace rubato::detail {
namespace {

class ReplayCounters final : public CounterSource {
 public:
  ReplayCounters(std::string path, counters::CounterSeries series) : series_(std::move(series)) {
    for (counters::Metric m : series_.columns) availability_[m] = {true, "replay", path};
    mark_unavailable(availability_, "replay: not in the recording " + path);
    for (const counters::CounterSample& s : series_.intervals)
      for (const counters::ThreadCounts& t : s.threads) awaited_.insert(t.id);
  }
  std::string_view name() const noexcept override { return "replay"; }
  const counters::MetricAvailability& availability() const noexcept override { return availability_; }
  void track(const CounterTarget& t) override { awaited_.erase(t.id); }
  void untrack(std::uint64_t) override {}
  counters::CounterSample sample(double elapsed_s) override {
    if (!awaited_.empty()) {
      counters::CounterSample waiting;
      waiting.elapsed_s = elapsed_s;
      return waiting;
    }
    if (exhausted()) return {};
    counters::CounterSample s = series_.intervals[next_++];
    if (!(s.elapsed_s > 0)) s.elapsed_s = elapsed_s;
    return s;
  }
  bool exhausted() const noexcept override { return next_ >= series_.intervals.size(); }

 private:
  counters::CounterSeries series_;
  counters::MetricAvailability availability_;
  std::set<std::uint64_t> awaited_;  // targets the recording names that have not been tracked yet
  std::size_t next_ = 0;
};

}  // namespace

std::unique_ptr<CounterSource> make_replay_counters(const std::string& path, std::string& why) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = path + ": cannot be read";
    return nullptr;
  }
  std::ostringstream text;
  text << in.rdbuf();
  auto series = counters::parse_counter_series(text.str(), path, why);
  if (!series) return nullptr;
  if (series->intervals.empty()) {
    why = path + ": the recording has no intervals";
    return nullptr;
  }
  return std::make_unique<ReplayCounters>(path, std::move(*series));
}

}  // namespace rubato::detail
