#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_test_support.hpp"
#include "commands/commands.hpp"
#include "render/report_figures.hpp"
#include "rubato/core/io/trace.hpp"

using namespace rubato;
using namespace rubato::cli;

namespace {

// Two workers: worker 0 runs a task at level 0, worker 1 steals one and runs it at level 1.
void write_trace(const std::filesystem::path& path) {
  TraceHeader h;
  h.max_workers = 2;
  h.level_hz = {2.4e9, 1.4e9};
  h.frontend = "ompt";
  std::string err;
  auto w = TraceFileWriter::create(path.string(), h, err);
  REQUIRE(w);
  TraceBlockBuffer b(4096);
  b.add(TaskRecord{10, 0, 0, kTraceTaskImplicit, 0});
  b.add(TaskRecord{11, 10, 0, kTraceTaskExplicit | kTraceTaskDeferred, 1000});
  b.add(TaskRecord{12, 10, 0, kTraceTaskExplicit | kTraceTaskDeferred, 2000});
  b.add(SegmentRecord{11, 0, SegmentStart::pop, SegmentEnd::completed, 0, 3000, 400'000'000});
  b.add(SegmentRecord{12, 1, SegmentStart::steal, SegmentEnd::completed, 1, 5000, 600'000'000});
  w->write_block(0, b);
  REQUIRE(w->close(err));
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("Cli.Report.TimelineFromATrace", "[cli][report]") {
  test::ScratchDir d;
  write_trace(d.path() / "run.trace");
  std::string error;
  const auto trace = read_trace((d.path() / "run.trace").string(), error);
  REQUIRE(trace);
  const Figure f = timeline_figure(*trace, "run.trace", "timeline");
  CHECK(f.svg.find("worker 0") != std::string::npos);
  CHECK(f.svg.find("worker 1") != std::string::npos);
  CHECK(f.svg.find("L1 1.4 GHz") != std::string::npos);
  CHECK(f.svg.find("2 task segments") != std::string::npos);
  // worker 1's lane holds a level-1 rectangle (the legend has one too).
  std::size_t l1 = 0;
  for (auto at = f.svg.find("fill=\"#4eb3d3\""); at != std::string::npos; at = f.svg.find("fill=\"#4eb3d3\"", at + 1))
    ++l1;
  CHECK(l1 == 2);
}

TEST_CASE("Cli.Report.CommandWritesPageFiguresAndTimeline", "[cli][report]") {
  test::ScratchDir d;
  for (const char* p : {"baseline", "hermes"})
    for (int t = 0; t < 3; ++t)
      test::write_file(
          d.path() / "res" / (std::string(p) + std::to_string(t) + ".json"),
          to_json(test::make_report("./sort_omp", p, 2, t, 1.0 + 0.01 * t, p[0] == 'b' ? 10.0 + t : 9.0 + t)));
  write_trace(d.path() / "run.trace");
  const std::string out = (d.path() / "rep").string();
  REQUIRE(run_report({(d.path() / "res").string(), "-o", out, "--skip", "1", "--trace",
                      (d.path() / "run.trace").string(), "--no-png"}) == 0);
  for (const char* f : {"index.html", "comparison.csv", "energy-time-hermes.svg", "edp.svg", "timeline.svg"})
    CHECK(std::filesystem::exists(d.path() / "rep" / f));
  CHECK_FALSE(std::filesystem::exists(d.path() / "rep" / "edp.png"));  // --no-png
  const std::string html = slurp(d.path() / "rep" / "index.html");
  CHECK(html.find("Tempo of each worker over time") != std::string::npos);
  CHECK(html.find("sort_omp — 2 workers") != std::string::npos);
  // A trace that cannot be read stops the command with its reason.
  test::write_file(d.path() / "bad.trace", "not a trace");
  CHECK_THROWS_WITH(run_report({(d.path() / "res").string(), "-o", out, "--trace", (d.path() / "bad.trace").string()}),
                    Catch::Contains("bad.trace"));
}
