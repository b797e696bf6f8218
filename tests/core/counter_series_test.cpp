// The recorded counter series format (docs/efs-affinity.md) the replay source reads.
#include <catch2/catch.hpp>

#include <string>

#include "rubato/core/counters/counter_series.hpp"

using namespace rubato::counters;

namespace {

std::string error_of(const std::string& text) {
  std::string error;
  const auto s = parse_counter_series(text, "rec.csv", error);
  CHECK_FALSE(s.has_value());
  return error;
}

}  // namespace

TEST_CASE("Counters.Series.ParsesChipAndThreadRows", "[core][counters]") {
  const std::string text =
      "# two intervals\n"
      "rubato-counters 1\r\n"
      "interval,scope,elapsed_s,mem_accesses,mem_writes,mem_reads,busy_s\n"
      "0,chip,0.01,1.5e6,1e5,,\n"
      "0,0,,,,7e5,0.0098\n"
      "\n"
      "0,1,,,,6e5,\n"
      "1,chip,,2e5,0,,\n"
      "1,1,,,,1e5,0.004\n";
  std::string error;
  const auto s = parse_counter_series(text, "rec.csv", error);
  REQUIRE(s);
  CHECK(error.empty());
  CHECK(s->columns == std::vector<Metric>{Metric::mem_accesses, Metric::mem_writes, Metric::mem_reads, Metric::busy_s});
  REQUIRE(s->intervals.size() == 2);
  const CounterSample& a = s->intervals[0];
  CHECK(a.elapsed_s == Approx(0.01));
  CHECK(*a.chip.mem_accesses == Approx(1.5e6));
  CHECK(*a.chip.mem_writes == Approx(1e5));
  REQUIRE(a.threads.size() == 2);
  CHECK(*a.thread(0)->mem_reads == Approx(7e5));
  CHECK(*a.thread(0)->busy_s == Approx(0.0098));
  CHECK_FALSE(a.thread(1)->busy_s.has_value());  // an empty cell: not measured
  const CounterSample& b = s->intervals[1];
  CHECK(b.elapsed_s == 0);  // the controller's interval is used
  CHECK(b.thread(0) == nullptr);
  CHECK(*b.thread(1)->busy_s == Approx(0.004));
}

TEST_CASE("Counters.Series.ErrorsNameFileAndLine", "[core][counters]") {
  CHECK(error_of("") == "rec.csv:0: empty: expected the line 'rubato-counters 1'");
  CHECK(error_of("rubato-counters 2\n").find("rec.csv:1: unsupported version '2'") == 0);
  CHECK(error_of("interval,scope\n").find("rec.csv:1: expected 'rubato-counters 1'") == 0);
  CHECK(error_of("rubato-counters 1\n# c\ninterval,scope,bogus\n").find("rec.csv:3: unknown column 'bogus'") == 0);
  CHECK(error_of("rubato-counters 1\nscope,busy_s\n") ==
        "rec.csv:2: the header needs the columns 'interval' and 'scope'");
  CHECK(error_of("rubato-counters 1\ninterval,scope,busy_s,busy_s\n") == "rec.csv:2: column 'busy_s' given twice");
  const std::string head = "rubato-counters 1\ninterval,scope,mem_accesses,busy_s\n";
  CHECK(error_of(head + "0,0,,1,7\n") == "rec.csv:3: 5 fields, the header has 4");
  CHECK(error_of(head + "0,0,,-1\n") == "rec.csv:3: busy_s: '-1' is not a finite number >= 0");
  CHECK(error_of(head + "0,0,,nan\n") == "rec.csv:3: busy_s: 'nan' is not a finite number >= 0");
  CHECK(error_of(head + "0,x,,1\n") == "rec.csv:3: scope: 'x' is neither 'chip' nor a thread index");
  CHECK(error_of(head + "1,0,,1\n") ==
        "rec.csv:3: interval 1 after interval -1 (intervals start at 0 and go up by one)");
  CHECK(error_of(head + "0,0,,1\n2,0,,1\n") ==
        "rec.csv:4: interval 2 after interval 0 (intervals start at 0 and go up by one)");
  CHECK(error_of(head + "0,0,,1\n0,0,,2\n") == "rec.csv:4: thread 0 twice in interval 0");
  CHECK(error_of(head + "0,chip,1,\n0,chip,2,\n") == "rec.csv:4: two chip rows in interval 0");
  CHECK(error_of(head + "0,0,5,\n") == "rec.csv:3: mem_accesses is a chip figure: give it on the chip row");
  CHECK(error_of(head + "0,chip,,0.5\n") == "rec.csv:3: busy_s is a per-thread figure: not on the chip row");
  CHECK(error_of("rubato-counters 1\ninterval,scope,elapsed_s\n0,chip,0\n") == "rec.csv:3: elapsed_s must be positive");
  CHECK(error_of("rubato-counters 1\ninterval,scope,elapsed_s\n0,1,0.1\n") ==
        "rec.csv:3: elapsed_s belongs on the chip row");
}
