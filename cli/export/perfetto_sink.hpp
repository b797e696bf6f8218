// Trace Event JSON (the Chrome tracing format that Perfetto UI and
// chrome://tracing open): one thread per worker, each task segment a slice
// named by the task's code, each wait a slice, each steal a flow arrow from
// the victim (where the task was created) to the thief (where it started),
// and per worker counter tracks: the tempo level, its frequency and, with a
// profile, the modelled power. Written as it comes: the format needs no
// global order, and a worker's open waits are all the sink keeps.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "export/export_sink.hpp"

namespace rubato::cli {

class PerfettoSink : public ExportSink {
 public:
  explicit PerfettoSink(std::FILE* out) : out_(out) {}
  bool begin(const ExportContext& context, std::string& error) override;
  void segment(const ExportSegment& s) override;
  void wait(const ExportWait& w) override;
  bool end(std::uint64_t last_ns, std::string& error) override;

 private:
  void event_head(const char* ph, const std::string& name, WorkerId tid, std::uint64_t ns);
  void counter(const std::string& track, WorkerId w, std::uint64_t ns, const char* key, double value);
  void flush_if_full();

  std::FILE* out_;
  ExportContext context_;
  std::string buf_;
  std::vector<std::vector<ExportWait>> open_waits_;  // per worker, innermost last
  std::vector<bool> seen_;                           // per worker: had an event (gets a thread name)
  std::uint64_t flows_ = 0;
};

// JSON string contents for `text` (quotes, backslashes and control characters escaped).
void append_json_escaped(std::string& out, const std::string& text);

}  // namespace rubato::cli
