#include "rubato/core/counters/counter_series.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "config/value_parsers.hpp"

namespace rubato::counters {
namespace {

using detail::trim;

enum class Column { interval, scope, elapsed, metric };

struct ColumnSpec {
  Column kind = Column::metric;
  Metric metric = Metric::busy_s;
};

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> out;
  while (true) {
    const auto comma = line.find(',');
    out.push_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) return out;
    line.remove_prefix(comma + 1);
  }
}

class Parser {
 public:
  Parser(std::string_view origin, std::string& error) : origin_(origin), error_(error) {}

  std::optional<CounterSeries> run(std::string_view text) {
    int stage = 0;  // 0: expecting the magic line, 1: the header, 2: rows
    for (std::size_t pos = 0; pos < text.size();) {
      const auto nl = text.find('\n', pos);
      std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
      pos = nl == std::string_view::npos ? text.size() : nl + 1;
      ++line_no_;
      line = trim(line);  // also drops a CR of CRLF files
      if (line.empty() || line.front() == '#') continue;
      const bool ok = stage == 0 ? magic(line) : stage == 1 ? header(line) : row(line);
      if (!ok) return std::nullopt;
      stage = std::min(stage + 1, 2);
    }
    if (stage < 2) {
      fail(stage == 0 ? "empty: expected the line 'rubato-counters 1'" : "no header line after 'rubato-counters 1'");
      return std::nullopt;
    }
    return std::move(series_);
  }

 private:
  bool fail(const std::string& what) {
    error_ = std::string(origin_) + ":" + std::to_string(line_no_) + ": " + what;
    return false;
  }

  bool magic(std::string_view line) {
    const std::string expected = std::string(kSeriesMagic) + " " + std::to_string(kSeriesVersion);
    if (line.substr(0, kSeriesMagic.size()) != kSeriesMagic)
      return fail("expected '" + expected + "' as the first line (a rubato counter series)");
    if (trim(line.substr(kSeriesMagic.size())) != std::to_string(kSeriesVersion))
      return fail("unsupported version '" + std::string(trim(line.substr(kSeriesMagic.size()))) +
                  "' (this rubato reads " + expected + ")");
    return true;
  }

  bool header(std::string_view line) {
    bool have_interval = false, have_scope = false;
    for (std::string_view name : split_fields(line)) {
      ColumnSpec c;
      if (name == "interval") {
        c.kind = Column::interval;
        if (have_interval) return fail("column 'interval' given twice");
        have_interval = true;
      } else if (name == "scope") {
        c.kind = Column::scope;
        if (have_scope) return fail("column 'scope' given twice");
        have_scope = true;
      } else if (name == "elapsed_s") {
        c.kind = Column::elapsed;
        for (const ColumnSpec& o : columns_)
          if (o.kind == Column::elapsed) return fail("column 'elapsed_s' given twice");
      } else if (auto m = metric_named(name)) {
        c.metric = *m;
        for (Metric o : series_.columns)
          if (o == *m) return fail("column '" + std::string(name) + "' given twice");
        series_.columns.push_back(*m);
      } else {
        std::string known = "interval, scope, elapsed_s";
        for (Metric k : kAllMetrics) known += ", " + std::string(to_string(k));
        return fail("unknown column '" + std::string(name) + "' (known: " + known + ")");
      }
      columns_.push_back(c);
    }
    if (!have_interval || !have_scope) return fail("the header needs the columns 'interval' and 'scope'");
    return true;
  }

  bool number(std::string_view text, const std::string& what, double& out) {
    if (!detail::parse_double(text, 0, std::numeric_limits<double>::max(), out) || !std::isfinite(out))
      return fail(what + ": '" + std::string(text) + "' is not a finite number >= 0");
    return true;
  }

  bool row(std::string_view line) {
    const std::vector<std::string_view> fields = split_fields(line);
    if (fields.size() != columns_.size())
      return fail(std::to_string(fields.size()) + " fields, the header has " + std::to_string(columns_.size()));
    long long interval = -1;
    std::optional<std::uint64_t> thread;  // nullopt: chip
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (columns_[i].kind == Column::interval) {
        if (!detail::parse_int(fields[i], 0, std::numeric_limits<int>::max(), interval))
          return fail("interval: '" + std::string(fields[i]) + "' is not an interval number");
      } else if (columns_[i].kind == Column::scope) {
        long long id = 0;
        if (fields[i] == "chip") thread.reset();
        else if (detail::parse_int(fields[i], 0, std::numeric_limits<std::int32_t>::max(), id))
          thread = static_cast<std::uint64_t>(id);
        else return fail("scope: '" + std::string(fields[i]) + "' is neither 'chip' nor a thread index");
      }
    }
    const long long expected = static_cast<long long>(series_.intervals.size());
    if (interval == expected) {
      series_.intervals.emplace_back();
    } else if (interval != expected - 1) {
      return fail("interval " + std::to_string(interval) + " after interval " + std::to_string(expected - 1) +
                  " (intervals start at 0 and go up by one)");
    }
    CounterSample& s = series_.intervals.back();
    if (thread && s.thread(*thread))
      return fail("thread " + std::to_string(*thread) + " twice in interval " + std::to_string(interval));
    if (!thread && seen_chip_ == interval) return fail("two chip rows in interval " + std::to_string(interval));
    if (!thread) seen_chip_ = interval;
    ThreadCounts* t = thread ? &s.thread_or_add(*thread) : nullptr;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const ColumnSpec& c = columns_[i];
      if (c.kind == Column::interval || c.kind == Column::scope || fields[i].empty()) continue;
      if (c.kind == Column::elapsed) {
        if (t) return fail("elapsed_s belongs on the chip row");
        if (!number(fields[i], "elapsed_s", s.elapsed_s)) return false;
        if (!(s.elapsed_s > 0)) return fail("elapsed_s must be positive");
        continue;
      }
      const std::string name(to_string(c.metric));
      if (is_chip_metric(c.metric) && t) return fail(name + " is a chip figure: give it on the chip row");
      if (!is_chip_metric(c.metric) && !t) return fail(name + " is a per-thread figure: not on the chip row");
      double v = 0;
      if (!number(fields[i], name, v)) return false;
      *(t ? t->field(c.metric) : s.chip.field(c.metric)) = v;
    }
    return true;
  }

  std::string_view origin_;
  std::string& error_;
  int line_no_ = 0;
  long long seen_chip_ = -1;
  std::vector<ColumnSpec> columns_;
  CounterSeries series_;
};

}  // namespace

std::optional<CounterSeries> parse_counter_series(std::string_view text, std::string_view origin, std::string& error) {
  error.clear();
  return Parser(origin, error).run(text);
}

}  // namespace rubato::counters
