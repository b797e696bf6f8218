#include "export/trace_export.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "export/otf2_sink.hpp"
#include "export/perfetto_sink.hpp"
#include "rubato/core/io/trace_stream.hpp"
#include "rubato/power/machine/profile.hpp"

namespace rubato::cli {

namespace fs = std::filesystem;

bool parse_export_format(const std::string& text, ExportFormat& format) {
  if (text == "perfetto" || text == "json") format = ExportFormat::perfetto;
  else if (text == "otf2") format = ExportFormat::otf2;
  else return false;
  return true;
}

const char* export_format_name(ExportFormat format) { return format == ExportFormat::otf2 ? "otf2" : "perfetto"; }

std::string default_export_path(const std::string& trace, ExportFormat format) {
  return trace + (format == ExportFormat::otf2 ? ".otf2" : ".json");
}

namespace {

// The output under a temporary name beside the final one, removed unless committed.
class PendingOutput {
 public:
  explicit PendingOutput(std::string final_path)
      : final_(std::move(final_path)), temp_(final_ + ".tmp-" + std::to_string(getpid())) {}
  ~PendingOutput() {
    std::error_code ec;
    if (!committed_) fs::remove_all(temp_, ec);
  }
  const std::string& temp() const { return temp_; }
  bool commit(std::string& error) {
    std::error_code ec;
    // An earlier export to the same place is replaced (a directory cannot be renamed onto).
    if (fs::is_directory(final_, ec) && fs::exists(fs::path(final_) / "traces.otf2", ec)) fs::remove_all(final_, ec);
    fs::rename(temp_, final_, ec);
    if (ec) {
      error = "cannot rename " + temp_ + " to " + final_ + ": " + ec.message();
      return false;
    }
    committed_ = true;
    return true;
  }

 private:
  std::string final_, temp_;
  bool committed_ = false;
};

bool load_power(const std::string& profile, ExportDriverOptions& options, std::string& error) {
  if (profile.empty()) return true;
  auto p = load_profile(profile, error);
  if (!p) return false;
  options.power.emplace(std::move(*p));
  return true;
}

bool export_json(TraceStream& stream, const ExportDriverOptions& options, const std::string& path,
                 TraceExportResult& result, std::string& error) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = "cannot create " + path;
    return false;
  }
  PerfettoSink sink(f);
  const bool ok = export_stream(stream, options, sink, result.counts, result.notes, error);
  if (std::fclose(f) != 0 && ok) {
    error = "cannot write " + path;
    return false;
  }
  return ok;
}

}  // namespace

bool export_trace(const std::string& trace, const TraceExportOptions& options, TraceExportResult& result,
                  std::string& error) {
  const auto started = std::chrono::steady_clock::now();
  ExportDriverOptions driver;
  driver.resolve_names = options.resolve_names;
  if (!load_power(options.profile, driver, error)) return false;
  if (options.format == ExportFormat::otf2 && !otf2_built()) {
    std::string why;
    make_otf2_sink("")->begin(ExportContext{}, why);
    error = why;
    return false;
  }
  auto stream = TraceStream::open(trace, error);
  if (!stream) {
    error = trace + ": " + error;
    return false;
  }
  result.out = options.out.empty() ? default_export_path(trace, options.format) : options.out;
  PendingOutput pending(result.out);
  bool ok = false;
  if (options.format == ExportFormat::perfetto) {
    ok = export_json(*stream, driver, pending.temp(), result, error);
  } else {
    auto sink = make_otf2_sink(pending.temp());
    ok = export_stream(*stream, driver, *sink, result.counts, result.notes, error);
  }
  if (!ok) {
    error = trace + ": " + error;
    return false;
  }
  if (!pending.commit(error)) return false;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return true;
}

}  // namespace rubato::cli
