// How fast `rubato trace export` runs: writes a synthetic trace of N records
// (fib-like: per task a creation, a segment, and every third task a taskwait;
// a steal every 64 tasks) spread over W workers, then exports it to Trace
// Event JSON and, where built, OTF2, and prints records per second and the
// output sizes. Not a test: run by hand.
//   trace_export_bench [records=10000000] [workers=4] [dir=/tmp]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "export/otf2_sink.hpp"
#include "export/trace_export.hpp"
#include "rubato/core/io/trace.hpp"

using namespace rubato;
using namespace rubato::cli;

namespace {

// Per worker: tasks created and run in turn; returns the records written.
std::uint64_t write_trace(const std::string& path, std::uint64_t records, std::uint32_t workers) {
  TraceHeader h;
  h.max_workers = workers;
  h.level_hz = {2.4e9, 1.4e9};
  h.frontend = "bench";
  std::string error;
  auto writer = TraceFileWriter::create(path, h, error);
  if (!writer) {
    std::fprintf(stderr, "%s\n", error.c_str());
    std::exit(1);
  }
  std::vector<TraceBlockBuffer> buffers;
  for (std::uint32_t w = 0; w < workers; ++w) buffers.emplace_back(64 * 1024);
  std::vector<std::uint64_t> now(workers, 0);
  std::uint64_t written = 0, seq = 0;
  const auto put = [&](WorkerId w, const auto& rec) {
    if (!buffers[w].room()) writer->write_block(w, buffers[w]);
    buffers[w].add(rec);
    ++written;
  };
  const std::uint64_t code = 0x401000;  // not in any module: named by address
  while (written + 4 <= records) {
    const WorkerId w = static_cast<WorkerId>(seq % workers);
    const std::uint64_t id = ++seq;
    put(w, TaskRecord{id, 0, w, kTraceTaskExplicit | kTraceTaskDeferred, now[w] += 100, code});
    const bool stolen = id % 64 == 0 && workers > 1;
    const WorkerId runner = stolen ? (w + 1) % workers : w;
    now[runner] = std::max(now[runner], now[w]) + 50;
    put(runner, SegmentRecord{id, runner, stolen ? SegmentStart::steal : SegmentStart::pop, SegmentEnd::completed,
                              static_cast<std::uint8_t>(id % 7 == 0), now[runner], 400});
    now[runner] += 400;
    if (id % 3 == 0) {
      put(w, WaitRecord{id, w, WaitKind::taskwait, true, now[w] += 10});
      put(w, WaitRecord{id, w, WaitKind::taskwait, false, now[w] += 10});
    }
  }
  for (std::uint32_t w = 0; w < workers; ++w) writer->write_block(w, buffers[w]);
  if (!writer->close(error)) std::fprintf(stderr, "%s\n", error.c_str());
  return written;
}

void run(const std::string& trace, ExportFormat format, const std::string& out) {
  TraceExportOptions o;
  o.format = format;
  o.out = out;
  TraceExportResult r;
  std::string error;
  if (!export_trace(trace, o, r, error)) {
    std::printf("%-8s %s\n", export_format_name(format), error.c_str());
    return;
  }
  std::uintmax_t bytes = 0;
  std::error_code ec;
  if (std::filesystem::is_directory(out))
    for (const auto& e : std::filesystem::recursive_directory_iterator(out))
      bytes += e.is_regular_file() ? e.file_size() : 0;
  else bytes = std::filesystem::file_size(out, ec);
  std::printf("%-8s %llu records in %.2f s: %.2f M records/s; output %.0f MiB; most live tasks %llu\n",
              export_format_name(format), static_cast<unsigned long long>(r.counts.records), r.seconds,
              static_cast<double>(r.counts.records) / r.seconds / 1e6, static_cast<double>(bytes) / (1 << 20),
              static_cast<unsigned long long>(r.counts.most_live_tasks));
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t records = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000000;
  const std::uint32_t workers = argc > 2 ? static_cast<std::uint32_t>(std::atoi(argv[2])) : 4;
  const std::string dir = argc > 3 ? argv[3] : "/tmp";
  const std::string trace = dir + "/trace_export_bench.trace";
  const std::uint64_t written = write_trace(trace, records, workers);
  std::printf("trace: %llu records, %u workers, %.0f MiB\n", static_cast<unsigned long long>(written), workers,
              static_cast<double>(std::filesystem::file_size(trace)) / (1 << 20));
  run(trace, ExportFormat::perfetto, dir + "/trace_export_bench.json");
  if (otf2_built()) run(trace, ExportFormat::otf2, dir + "/trace_export_bench.otf2");
  std::filesystem::remove(trace);
  std::filesystem::remove(dir + "/trace_export_bench.json");
  std::filesystem::remove_all(dir + "/trace_export_bench.otf2");
  return 0;
}
