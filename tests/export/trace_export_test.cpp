// rubato trace export: round trips of a trace whose tasks, steals and waits
// are known (written here, and recorded from a real OpenMP program), read back
// with a JSON reader, otf2-print and the OTF2 Python bindings; task names;
// bad input.
#include <link.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "command_output.hpp"
#include "export/otf2_sink.hpp"
#include "export/trace_export.hpp"
#include "rubato/core/io/trace.hpp"

using namespace rubato;
using namespace rubato::cli;
using rubato::test::run_output;
namespace fs = std::filesystem;

// The function whose code the synthetic tasks name.
extern "C" [[gnu::noinline]] int export_test_spawning_function(int x) { return x * 3 + 1; }

namespace {

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("rubato-export-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

int add_executable_module(dl_phdr_info* info, std::size_t, void* data) {
  auto& m = *static_cast<TraceModule*>(data);
  m.bias = info->dlpi_addr;
  m.low = UINT64_MAX;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_LOAD) {
      m.low = std::min<std::uint64_t>(m.low, info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
      m.high =
          std::max<std::uint64_t>(m.high, info->dlpi_addr + info->dlpi_phdr[i].p_vaddr + info->dlpi_phdr[i].p_memsz);
    }
  m.path = fs::read_symlink("/proc/self/exe").string();
  return 1;  // the first entry is the executable
}

// Worker 0 runs the implicit task 1, creates tasks 2 and 3, waits in a
// taskwait while it pops 2; worker 1 steals 3.
std::string write_known_trace(const fs::path& dir) {
  const std::string path = (dir / "known.trace").string();
  TraceHeader h;
  h.max_workers = 2;
  h.level_hz = {2.4e9, 1.2e9};
  h.frontend = "test";
  std::string error;
  auto w = TraceFileWriter::create(path, h, error);
  REQUIRE(w);
  const std::uint64_t code = reinterpret_cast<std::uintptr_t>(&export_test_spawning_function) + 1;
  TraceBlockBuffer b0(4096), b1(4096);
  b0.add(TaskRecord{1, 0, 0, kTraceTaskImplicit, 0, 0});
  b0.add(TaskRecord{2, 1, 0, kTraceTaskExplicit | kTraceTaskDeferred, 10, code});
  b0.add(TaskRecord{3, 1, 0, kTraceTaskExplicit | kTraceTaskDeferred, 20, code});
  b0.add(SegmentRecord{1, 0, SegmentStart::inline_, SegmentEnd::waiting, 0, 0, 30});
  b0.add(WaitRecord{1, 0, WaitKind::taskwait, true, 30});
  b0.add(SegmentRecord{2, 0, SegmentStart::pop, SegmentEnd::completed, 0, 35, 15});
  b1.add(SegmentRecord{3, 1, SegmentStart::steal, SegmentEnd::completed, 1, 40, 50});
  b0.add(WaitRecord{1, 0, WaitKind::taskwait, false, 100});
  b0.add(SegmentRecord{1, 0, SegmentStart::resume, SegmentEnd::region_end, 0, 100, 20});
  w->write_block(1, b1);  // the thief's block first: blocks interleave in any order
  w->write_block(0, b0);
  TraceModule exe;
  dl_iterate_phdr(&add_executable_module, &exe);
  w->set_modules({exe});
  REQUIRE(w->close(error));
  return path;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// Task slices per worker in time order, as names.
std::vector<std::vector<std::string>> slices_by_worker(const nlohmann::json& doc, const std::string& cat,
                                                       std::size_t workers) {
  std::vector<std::vector<std::pair<double, std::string>>> by(workers);
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "X" && e["cat"] == cat) by[e["tid"].get<std::size_t>()].emplace_back(e["ts"], e["name"]);
  std::vector<std::vector<std::string>> out(workers);
  for (std::size_t w = 0; w < workers; ++w) {
    std::stable_sort(by[w].begin(), by[w].end(), [](auto& a, auto& b) { return a.first < b.first; });
    for (auto& [ts, name] : by[w]) out[w].push_back(name);
  }
  return out;
}

TraceExportResult export_ok(const std::string& trace, ExportFormat format, const std::string& out) {
  TraceExportOptions o;
  o.format = format;
  o.out = out;
  TraceExportResult r;
  std::string error;
  INFO(error);
  REQUIRE(export_trace(trace, o, r, error));
  return r;
}

}  // namespace

TEST_CASE("Export.Perfetto.KnownTraceRoundTrips", "[export]") {
  const fs::path dir = temp_dir("perfetto");
  const std::string trace = write_known_trace(dir);
  const TraceExportResult r = export_ok(trace, ExportFormat::perfetto, (dir / "known.json").string());
  CHECK(r.counts.tasks == 3);
  CHECK(r.counts.segments == 4);
  CHECK(r.counts.steals == 1);
  CHECK(r.counts.waits == 1);
  const auto doc = read_json(r.out);
  const auto slices = slices_by_worker(doc, "task", 2);
  const std::string name = slices[1].at(0);
  CHECK(name.rfind("export_test_spawning_function", 0) == 0);  // named by its code
  CHECK(slices[0] == std::vector<std::string>{"implicit task", name, "implicit task"});
  CHECK(slices_by_worker(doc, "wait", 2)[0] == std::vector<std::string>{"taskwait"});
  int starts = 0, finishes = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "s") CHECK((e["tid"] == 0 && e["ts"] == 0.020 && ++starts));    // the victim, at creation
    if (e["ph"] == "f") CHECK((e["tid"] == 1 && e["ts"] == 0.040 && ++finishes));  // the thief, at its start
    if (e["ph"] == "C" && e["name"] == "tempo level w1") CHECK(e["args"]["level"] == 1);
  }
  CHECK(starts == 1);
  CHECK(finishes == 1);
  fs::remove_all(dir);
}

TEST_CASE("Export.Otf2.KnownTraceRoundTrips", "[export]") {
  if (!otf2_built()) {
    WARN("built without OTF2: nothing to check");
    return;
  }
  const fs::path dir = temp_dir("otf2");
  const std::string trace = write_known_trace(dir);
  const TraceExportResult r = export_ok(trace, ExportFormat::otf2, (dir / "known.otf2").string());
  const std::string anchor = (fs::path(r.out) / "traces.otf2").string();
  const std::string printed = run_output(std::string(RUBATO_OTF2_PRINT) + " " + anchor + " 2>&1");
  INFO(printed);
  CHECK(printed.rfind("FAILED", 0) != 0);
  CHECK(printed.find("export_test_spawning_function") != std::string::npos);
  const std::string summary = run_output(std::string(RUBATO_PYTHON) + " " + RUBATO_OTF2_SUMMARY + " " + anchor);
  INFO(summary);
  REQUIRE(summary.rfind("FAILED", 0) != 0);
  const auto s = nlohmann::json::parse(summary);
  const auto& w0 = s["locations"]["worker 0"];
  const auto& w1 = s["locations"]["worker 1"];
  const std::string name = w1["enters"].at(0);
  CHECK(name.rfind("export_test_spawning_function", 0) == 0);
  CHECK(w0["enters"] == nlohmann::json({"implicit task", "taskwait", name, "implicit task"}));
  CHECK(w0["leaves"] == 4);
  CHECK(w1["victims"] == nlohmann::json::array({0}));
  CHECK(w0["ordered"] == true);
  CHECK(w1["ordered"] == true);
  CHECK(s["clock"]["resolution"] == 1000000000);
  fs::remove_all(dir);
}

TEST_CASE("Export.BadInput.OneErrorAndNoOutput", "[export]") {
  const fs::path dir = temp_dir("bad");
  const std::string trace = write_known_trace(dir);
  std::vector<char> bytes(fs::file_size(trace));
  std::ifstream(trace, std::ios::binary).read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  SECTION("truncated") {
    std::ofstream(trace, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() - 10));
  }
  SECTION("foreign") { std::ofstream(trace) << "{\"not\": \"a trace\"}\n"; }
  for (ExportFormat f : {ExportFormat::perfetto, ExportFormat::otf2}) {
    TraceExportOptions o;
    o.format = f;
    o.out = (dir / "out").string();
    TraceExportResult r;
    std::string error;
    CHECK_FALSE(export_trace(trace, o, r, error));
    CHECK(error.find(trace + ": ") == 0);
    CHECK(error.find('\n') == std::string::npos);
    // Nothing but the trace is left in the directory.
    std::size_t entries = 0;
    for (const auto& e : fs::directory_iterator(dir)) entries += e.path() != trace;
    CHECK(entries == 0);
  }
  fs::remove_all(dir);
}

TEST_CASE("Export.Version1.TracesStillExport", "[export]") {
  const fs::path dir = temp_dir("v1");
  const std::string v1 = std::string(RUBATO_SOURCE_DIR) + "/tests/fuzz/corpus/trace/fib5-baseline.trace";
  std::string error;
  const auto whole = read_trace(v1, error);
  REQUIRE(whole);
  REQUIRE(whole->header.version == 1);
  const TraceExportResult r = export_ok(v1, ExportFormat::perfetto, (dir / "v1.json").string());
  CHECK(r.counts.tasks == whole->tasks.size());
  fs::remove_all(dir);
}
