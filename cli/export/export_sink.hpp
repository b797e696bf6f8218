// What a trace exporter is given, worker by worker in each worker's own time
// order (docs/trace-format.md "Exporting"): task segments as intervals (with
// the steal that started one), waits as begin / end, and the tempo level with
// its frequency and, given a machine profile, the modelled power. One sink
// per output format (perfetto_sink.hpp, otf2_sink.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rubato/core/io/trace.hpp"

namespace rubato::cli {

// A task's name: what its code address resolved to.
struct ExportName {
  std::string label;     // shown on the slice / region: "fib (fib.cpp:20)"
  std::string function;  // empty when unknown
  std::string file;
  std::uint32_t line = 0;
};

struct ExportSegment {
  WorkerId worker = 0;
  std::uint64_t task = 0;
  std::uint32_t name = 0;  // index into ExportContext::names
  std::uint64_t start_ns = 0, end_ns = 0;
  SegmentStart start = SegmentStart::inline_;
  SegmentEnd end = SegmentEnd::completed;
  std::uint8_t level = 0;      // in effect when the segment ended
  bool level_changed = false;  // differs from this worker's previous segment (or is its first)
  bool stolen = false;
  WorkerId victim = 0;              // stolen: the task's creator
  std::uint64_t created_ns = 0;     // stolen: when the victim created it
  double busy_w = -1, idle_w = -1;  // modelled power at the level, running / after it; < 0 without a profile
};

struct ExportWait {
  WorkerId worker = 0;
  std::uint64_t task = 0;
  WaitKind kind = WaitKind::other;
  bool begin = true;
  std::uint64_t time_ns = 0;
};

struct ExportContext {
  const TraceHeader* header = nullptr;
  const std::vector<ExportName>* names = nullptr;  // grows while exporting; complete at end()
  std::string power_source;                        // "modeled:<profile>", empty: no power
};

class ExportSink {
 public:
  virtual ~ExportSink() = default;
  virtual bool begin(const ExportContext& context, std::string& error) = 0;
  virtual void segment(const ExportSegment& s) = 0;
  virtual void wait(const ExportWait& w) = 0;
  // `last_ns`: the latest time of any event. False + `error` when the output could not be written.
  virtual bool end(std::uint64_t last_ns, std::string& error) = 0;
};

// "taskwait", "taskgroup", "barrier", "wait".
const char* wait_name(WaitKind kind) noexcept;
// "pop", "steal", ...
const char* start_name(SegmentStart start) noexcept;
const char* end_name(SegmentEnd end) noexcept;

}  // namespace rubato::cli
