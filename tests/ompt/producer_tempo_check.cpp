// Checks, from a rubato report, that the worker that produced the queued work
// did not spend most of its busy time at the slowest tempo level:
//
//   producer_tempo_check <report.json> [min stolen-from]
//
// The producer is the worker with the most pushes. The run must show the
// scenario — at least two levels, a producer that other workers stole from at
// least `min stolen-from` times (default 500) — or the check fails: it must not
// pass because the program happened not to do what the test is about.
// Exit 0 when the check holds, 1 when it does not, 2 on bad input.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "read_report.hpp"
#include "rubato/core/io/report.hpp"

namespace {

int check(const rubato::Report& report, std::uint64_t min_stolen_from) {
  if (report.frequencies_hz.size() < 2) {
    std::printf("FAIL: the policy %s ran at one level: nothing to check\n", report.policy.c_str());
    return 1;
  }
  if (report.workers.empty()) {
    std::printf("FAIL: the report has no workers\n");
    return 1;
  }
  const auto producer = std::max_element(report.workers.begin(), report.workers.end(),
                                         [](const auto& a, const auto& b) { return a.pushes < b.pushes; });
  const std::size_t slowest = report.frequencies_hz.size() - 1;
  const double at_slowest = producer->busy_s_at_level.size() > slowest ? producer->busy_s_at_level[slowest] : 0.0;
  std::printf(
      "producer: worker %u, %llu pushes, stolen from %llu times, %.6f s busy, %.6f s of it at the slowest "
      "level (%s)\n",
      static_cast<unsigned>(producer->id), static_cast<unsigned long long>(producer->pushes),
      static_cast<unsigned long long>(producer->stolen_from), producer->busy_s, at_slowest, report.policy.c_str());
  if (producer->stolen_from < min_stolen_from) {
    std::printf("FAIL: the producer was stolen from fewer than %llu times: not the scenario under test\n",
                static_cast<unsigned long long>(min_stolen_from));
    return 1;
  }
  if (!(producer->busy_s > 0)) {
    std::printf("FAIL: the producer has no busy time\n");
    return 1;
  }
  if (at_slowest >= 0.5 * producer->busy_s) {
    std::printf("FAIL: the producer spent most of its busy time at the slowest level\n");
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::printf("usage: producer_tempo_check <report.json> [min stolen-from]\n");
    return 2;
  }
  std::string error;
  const auto report = rubato::test::read_report(argv[1], error);
  if (!report) {
    std::printf("report: %s\n", error.c_str());
    return 2;
  }
  const long min_stolen_from = argc > 2 ? std::atol(argv[2]) : 500;
  return check(*report, static_cast<std::uint64_t>(std::max(0L, min_stolen_from)));
}
