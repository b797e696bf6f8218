#include "export/perfetto_sink.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>

namespace rubato::cli {

namespace {

constexpr std::size_t kFlushBytes = 1 << 20;

void append_uint(std::string& out, std::uint64_t v) {
  char b[24];
  const auto r = std::to_chars(b, b + sizeof b, v);
  out.append(b, r.ptr);
}

// Microseconds with three decimals: nanoseconds exactly.
void append_us(std::string& out, std::uint64_t ns) {
  append_uint(out, ns / 1000);
  const unsigned frac = static_cast<unsigned>(ns % 1000);
  const char digits[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                          static_cast<char>('0' + frac % 10)};
  out.append(digits, 4);
}

void append_double(std::string& out, double v) {
  char b[32];
  const auto r = std::to_chars(b, b + sizeof b, v);
  out.append(b, r.ptr);
}

}  // namespace

void append_json_escaped(std::string& out, const std::string& text) {
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", static_cast<unsigned>(c));
      out += b;
    } else {
      out += c;
    }
  }
}

bool PerfettoSink::begin(const ExportContext& context, std::string&) {
  context_ = context;
  open_waits_.resize(context.header->max_workers);
  seen_.assign(context.header->max_workers, false);
  buf_ += "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"frontend\":\"";
  append_json_escaped(buf_, context.header->frontend);
  buf_ += "\",\"trace_version\":";
  append_uint(buf_, context.header->version);
  buf_ += ",\"power\":\"";
  buf_ += context.power_source.empty() ? "none (no --profile)" : context.power_source;
  buf_ += "\"},\"traceEvents\":[\n";
  buf_ += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"rubato trace (";
  append_json_escaped(buf_, context.header->frontend);
  buf_ += ")\"}}";
  return true;
}

void PerfettoSink::event_head(const char* ph, const std::string& name, WorkerId tid, std::uint64_t ns) {
  buf_ += ",\n{\"ph\":\"";
  buf_ += ph;
  buf_ += "\",\"name\":\"";
  append_json_escaped(buf_, name);
  buf_ += "\",\"pid\":1,\"tid\":";
  append_uint(buf_, tid);
  buf_ += ",\"ts\":";
  append_us(buf_, ns);
}

void PerfettoSink::counter(const std::string& track, WorkerId w, std::uint64_t ns, const char* key, double value) {
  event_head("C", track + " w" + std::to_string(w), w, ns);
  buf_ += ",\"args\":{\"";
  buf_ += key;
  buf_ += "\":";
  append_double(buf_, value);
  buf_ += "}}";
}

void PerfettoSink::segment(const ExportSegment& s) {
  seen_[s.worker] = true;
  const bool power = s.busy_w >= 0;
  if (power) counter("power", s.worker, s.start_ns, "W", s.busy_w);
  event_head("X", (*context_.names)[s.name].label, s.worker, s.start_ns);
  buf_ += ",\"dur\":";
  append_us(buf_, s.end_ns - s.start_ns);
  buf_ += ",\"cat\":\"task\",\"args\":{\"task\":";
  append_uint(buf_, s.task);
  buf_ += ",\"start\":\"";
  buf_ += start_name(s.start);
  buf_ += "\",\"end\":\"";
  buf_ += end_name(s.end);
  buf_ += "\",\"level\":";
  append_uint(buf_, s.level);
  if (s.stolen) {
    buf_ += ",\"victim\":";
    append_uint(buf_, s.victim);
  }
  buf_ += "}}";
  if (s.stolen) {
    // A flow from the slice that created the task on the victim to this one.
    ++flows_;
    event_head("s", "steal", s.victim, s.created_ns);
    buf_ += ",\"cat\":\"steal\",\"id\":";
    append_uint(buf_, flows_);
    buf_ += "}";
    event_head("f", "steal", s.worker, s.start_ns);
    buf_ += ",\"cat\":\"steal\",\"bp\":\"e\",\"id\":";
    append_uint(buf_, flows_);
    buf_ += "}";
  }
  if (s.level_changed) {
    counter("tempo level", s.worker, s.end_ns, "level", s.level);
    counter("frequency", s.worker, s.end_ns, "GHz", context_.header->level_hz[s.level] / 1e9);
  }
  if (power) counter("power", s.worker, s.end_ns, "W", s.idle_w);
  flush_if_full();
}

void PerfettoSink::wait(const ExportWait& w) {
  seen_[w.worker] = true;
  auto& open = open_waits_[w.worker];
  if (w.begin) {
    open.push_back(w);
    return;
  }
  // The matching begin: the innermost open wait of the task (waits nest per worker).
  for (std::size_t i = open.size(); i > 0; --i) {
    if (open[i - 1].task != w.task) continue;
    const ExportWait b = open[i - 1];
    open.erase(open.begin() + static_cast<std::ptrdiff_t>(i - 1));
    event_head("X", wait_name(b.kind), w.worker, b.time_ns);
    buf_ += ",\"dur\":";
    append_us(buf_, w.time_ns >= b.time_ns ? w.time_ns - b.time_ns : 0);
    buf_ += ",\"cat\":\"wait\",\"args\":{\"task\":";
    append_uint(buf_, w.task);
    buf_ += "}}";
    break;
  }
  flush_if_full();
}

void PerfettoSink::flush_if_full() {
  if (buf_.size() < kFlushBytes) return;
  std::fwrite(buf_.data(), 1, buf_.size(), out_);
  buf_.clear();
}

bool PerfettoSink::end(std::uint64_t last_ns, std::string& error) {
  // Waits still open (a worker ended inside one): closed at the last event.
  for (WorkerId w = 0; w < open_waits_.size(); ++w) {
    while (!open_waits_[w].empty())
      wait(ExportWait{w, open_waits_[w].back().task, open_waits_[w].back().kind, false,
                      std::max(last_ns, open_waits_[w].back().time_ns)});
    if (!seen_[w]) continue;
    event_head("M", "thread_name", w, 0);
    buf_ += ",\"args\":{\"name\":\"worker ";
    append_uint(buf_, w);
    buf_ += "\"}}";
  }
  buf_ += "\n]}\n";
  std::fwrite(buf_.data(), 1, buf_.size(), out_);
  buf_.clear();
  if (std::fflush(out_) != 0 || std::ferror(out_)) {
    error = std::string("cannot write the JSON file: ") + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace rubato::cli
