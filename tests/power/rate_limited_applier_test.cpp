#include <catch2/catch.hpp>
#include <vector>

#include "child_process.hpp"
#include "rubato/power/frequency/rate_limited_applier.hpp"

using namespace rubato;

TEST_CASE("Power.RateLimit.LatestRequestAfterDwell") {
  DomainRecords records;
  records.reset(2);
  std::vector<std::pair<DomainId, double>> writes;
  RateLimitedApplier applier(records, 1e-3, [&](DomainId d, double hz) {
    writes.emplace_back(d, hz);
    return true;
  });
  records.request(0, 0, 2.4e9);
  applier.flush_once(1'000'000);  // first request: applied at once
  REQUIRE(writes.size() == 1);
  records.request(0, 1, 1.4e9);
  records.request(0, 0, 2.4e9);
  records.request(0, 1, 1.4e9);
  applier.flush_once(1'500'000);  // 0.5 ms later: still dwelling
  CHECK(writes.size() == 1);
  applier.flush_once(2'000'000);  // dwell over: only the latest is written
  REQUIRE(writes.size() == 2);
  CHECK(writes.back() == std::make_pair(DomainId{0}, 1.4e9));
  CHECK(records.applied(0) == 1);  // the starting frequency is not a transition
  // Requests that cancel out within the dwell write nothing.
  records.request(0, 0, 2.4e9);
  records.request(0, 1, 1.4e9);
  applier.flush_once(4'000'000);
  CHECK(writes.size() == 2);
  // Domains are independent.
  records.request(1, 1, 1.4e9);
  applier.flush_once(4'000'001);
  CHECK(writes.back().first == 1);
}

// A raise (slack's at a wake-up, a relay) is applied at the next
// pass whatever the dwell; the lowering after it waits for the dwell again.
TEST_CASE("Power.RateLimit.RaiseIsNeverHeldForTheDwell") {
  DomainRecords records;
  records.reset(1);
  std::vector<double> writes;
  RateLimitedApplier applier(records, 1e-3, [&](DomainId, double hz) { return writes.push_back(hz), true; });
  records.request(0, 0, 2.4e9);
  applier.flush_once(1'000'000);
  records.request(0, 1, 1.4e9);
  applier.flush_once(2'000'000);  // a lowering, after the dwell
  records.request(0, 0, 2.4e9);
  applier.flush_once(2'000'100);  // a raise 0.1 us later: not held
  CHECK(writes == std::vector<double>{2.4e9, 1.4e9, 2.4e9});
  records.request(0, 1, 1.4e9);
  applier.flush_once(2'500'000);  // a lowering within the dwell of the raise: held
  CHECK(writes.size() == 3);
  applier.flush_once(3'000'100);
  CHECK(writes.back() == 1.4e9);
  CHECK(records.applied(0) == 3);
}

TEST_CASE("Power.RateLimit.FirstWriteOfALaterLevelIsATransition") {
  // The starting tempo and a slower request both came before the first poll
  // (a loaded machine, a short run): the one write is a change of tempo.
  DomainRecords records;
  records.reset(1);
  std::vector<double> writes;
  RateLimitedApplier applier(records, 0, [&](DomainId, double hz) { return writes.push_back(hz), true; });
  records.request(0, 0, 2.4e9);
  records.request(0, 1, 1.4e9);
  applier.flush_once(1);
  CHECK(writes == std::vector<double>{1.4e9});
  CHECK(records.applied(0) == 1);
}

TEST_CASE("Power.RateLimit.FailedWritesCounted") {
  DomainRecords records;
  records.reset(1);
  RateLimitedApplier applier(records, 0, [](DomainId, double) { return false; });
  records.request(0, 0, 2.4e9);
  applier.flush_once(1);
  CHECK(applier.failed_writes() == 1);
  CHECK(records.applied(0) == 0);
}

TEST_CASE("Power.RateLimit.ThreadAppliesOffTheCallingThread") {
  DomainRecords records;
  records.reset(1);
  std::atomic<int> writes{0};
  RateLimitedApplier applier(records, 0, [&](DomainId, double) { return ++writes, true; });
  applier.start();
  records.request(0, 0, 2.4e9);
  CHECK(test::wait_until([&] { return writes.load() > 0; }));  // its thread's first write, bounded
  applier.stop();
  CHECK(writes.load() == 1);
}
