#include "rubato/core/io/trace.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include "io/trace_codec.hpp"
#include "rubato/core/io/output_file.hpp"

namespace rubato {
namespace {

using namespace trace_codec;

static_assert(TraceBlockBuffer::kMaxRecordBytes >= std::max({kTaskBytesV2, kSegmentBytes, kWaitBytes}));

// ---- parsing state ---------------------------------------------------------------

struct PendingSegment {
  std::uint64_t task;
  TraceSegment seg;
  std::size_t offset;
};
struct PendingWait {
  WaitRecord rec;
  std::size_t offset;
};

class Parser {
 public:
  Parser(std::span<const std::byte> data, std::string& error) : d_(data), error_(error) {}
  std::optional<Trace> run();

 private:
  bool fail(std::size_t offset, const std::string& what) {
    error_ = at(offset, what);
    return false;
  }
  bool header();
  bool body();
  bool block(In& in);
  bool record(In& in);
  bool modules(In& in);
  bool link();

  std::span<const std::byte> d_;
  std::string& error_;
  Trace t_;
  std::vector<std::size_t> task_offsets_;
  std::vector<PendingSegment> segments_;
  std::vector<PendingWait> waits_;
  std::uint64_t records_ = 0;
  std::size_t header_bytes_ = kTraceHeaderBytes;
  bool seen_modules_ = false;
};

bool Parser::header() { return decode_header(d_, d_.size(), t_.header, header_bytes_, error_); }

bool Parser::record(In& in) {
  const std::size_t off = in.at();
  Record r;
  if (!decode_record(in, t_.header, r, error_)) return false;
  if (r.tag == kTagTask) {
    TraceTask task;
    task.id = r.task.id;
    task.parent = r.task.parent;
    task.creator = r.task.creator;
    task.flags = r.task.flags;
    task.created_ns = r.task.time_ns;
    task.code = r.task.code;
    if (!t_.index.emplace(task.id, t_.tasks.size()).second)
      return fail(off, "task " + std::to_string(task.id) + " recorded twice");
    t_.tasks.push_back(std::move(task));
    task_offsets_.push_back(off);
  } else if (r.tag == kTagSegment) {
    const SegmentRecord& s = r.segment;
    segments_.push_back(
        PendingSegment{s.task, TraceSegment{s.worker, s.start, s.end, s.level, s.start_ns, s.duration_ns}, off});
  } else {
    waits_.push_back(PendingWait{r.wait, off});
  }
  ++records_;
  return true;
}

bool Parser::block(In& in) {
  const std::size_t off = in.at();
  if (in.left() < kTraceBlockHeaderBytes) return fail(off, "block header is truncated");
  in.u32();  // magic, checked by the caller
  in.u32();  // writer worker, informational
  const std::uint32_t count = in.u32();
  const std::uint32_t bytes = in.u32();
  if (bytes > in.left()) return fail(off, "block of " + std::to_string(bytes) + " bytes runs past the end of the file");
  In body(d_.first(in.at() + bytes), in.at());
  std::uint32_t seen = 0;
  while (body.left() > 0) {
    if (!record(body)) return false;
    ++seen;
  }
  if (seen != count)
    return fail(off, "block says " + std::to_string(count) + " records but holds " + std::to_string(seen));
  in = In(d_, body.at());
  return true;
}

// The module table (version 2): once, after the blocks.
bool Parser::modules(In& in) {
  const std::size_t off = in.at();
  if (t_.header.version < 2) return fail(off, "a module table in a version 1 trace");
  if (seen_modules_) return fail(off, "a second module table");
  if (in.left() < kModuleHeadBytes) return fail(off, "module table is truncated");
  in.u32();
  const std::uint32_t count = in.u32();
  const std::uint32_t bytes = in.u32();
  if (bytes > in.left()) return fail(off, "module table runs past the end of the file");
  seen_modules_ = true;
  return decode_modules(in, count, bytes, t_.modules, error_);
}

bool Parser::link() {
  for (std::size_t i = 0; i < t_.tasks.size(); ++i) {
    const TraceTask& task = t_.tasks[i];
    if (task.parent != 0 && !t_.index.count(task.parent))
      return fail(task_offsets_[i],
                  "task " + std::to_string(task.id) + " names unknown parent " + std::to_string(task.parent));
  }
  for (const PendingSegment& p : segments_) {
    auto it = t_.index.find(p.task);
    if (it == t_.index.end()) return fail(p.offset, "segment of unknown task " + std::to_string(p.task));
    t_.tasks[it->second].segments.push_back(p.seg);
  }
  // Waits: per task, sorted by time (a begin before an end at the same time),
  // they must alternate begin, end.
  std::stable_sort(waits_.begin(), waits_.end(), [](const PendingWait& a, const PendingWait& b) {
    if (a.rec.task != b.rec.task) return a.rec.task < b.rec.task;
    if (a.rec.time_ns != b.rec.time_ns) return a.rec.time_ns < b.rec.time_ns;
    return a.rec.begin && !b.rec.begin;
  });
  for (std::size_t i = 0; i < waits_.size(); ++i) {
    const PendingWait& b = waits_[i];
    auto it = t_.index.find(b.rec.task);
    if (it == t_.index.end()) return fail(b.offset, "wait of unknown task " + std::to_string(b.rec.task));
    if (!b.rec.begin) return fail(b.offset, "wait end without a begin (task " + std::to_string(b.rec.task) + ")");
    if (i + 1 == waits_.size() || waits_[i + 1].rec.task != b.rec.task || waits_[i + 1].rec.begin)
      return fail(b.offset, "wait begin without an end (task " + std::to_string(b.rec.task) + ")");
    const PendingWait& e = waits_[++i];
    if (e.rec.kind != b.rec.kind) return fail(e.offset, "wait end kind differs from its begin");
    t_.tasks[it->second].waits.push_back(TraceWait{b.rec.worker, b.rec.kind, b.rec.time_ns, e.rec.time_ns});
  }
  // Creation order, then children and segments in time order.
  std::vector<std::size_t> order(t_.tasks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return t_.tasks[a].created_ns < t_.tasks[b].created_ns; });
  std::vector<TraceTask> sorted;
  sorted.reserve(t_.tasks.size());
  for (std::size_t i : order) sorted.push_back(std::move(t_.tasks[i]));
  t_.tasks = std::move(sorted);
  t_.index.clear();
  for (std::size_t i = 0; i < t_.tasks.size(); ++i) t_.index[t_.tasks[i].id] = i;
  for (TraceTask& task : t_.tasks) {
    if (task.parent != 0) t_.tasks[t_.index[task.parent]].children.push_back(task.id);
    std::stable_sort(task.segments.begin(), task.segments.end(),
                     [](const TraceSegment& a, const TraceSegment& b) { return a.start_ns < b.start_ns; });
  }
  return true;
}

std::optional<Trace> Parser::run() {
  error_.clear();
  if (!header() || !body() || !link()) return std::nullopt;
  return std::move(t_);
}

bool Parser::body() {
  In in(d_, header_bytes_);
  while (in.left() > 0) {
    const std::size_t off = in.at();
    if (in.left() < 4) return fail(off, "truncated block");
    const std::uint32_t magic = In(d_, off).u32();
    if (magic == kBlockMagic) {
      if (!block(in)) return false;
      continue;
    }
    if (magic == kModuleMagic) {
      if (!modules(in)) return false;
      continue;
    }
    if (magic != kEndMagic) return fail(off, "expected a block or the end record");
    if (in.left() != kEndBytes)
      return fail(off, in.left() < kEndBytes ? "end record is truncated" : "data after the end record");
    in.u32();
    in.u32();
    const std::uint64_t total = in.u64();
    t_.dropped = in.u64();
    if (total != records_)
      return fail(off,
                  "end record says " + std::to_string(total) + " records, blocks hold " + std::to_string(records_));
    t_.records = records_;
    return true;
  }
  return fail(d_.size(), "trace ends without its end record (truncated)");
}

}  // namespace

// ---- TraceBlockBuffer -----------------------------------------------------------------

TraceBlockBuffer::TraceBlockBuffer(std::size_t capacity_bytes)
    : data_(new std::byte[std::max(capacity_bytes, kMaxRecordBytes)]),
      capacity_(std::max(capacity_bytes, kMaxRecordBytes)) {}

void TraceBlockBuffer::add(const TaskRecord& r) noexcept {
  Out(data_.get() + used_).u8(kTagTask).u64(r.id).u64(r.parent).u32(r.creator).u32(r.flags).u64(r.time_ns).u64(r.code);
  used_ += kTaskBytesV2;
  ++records_;
}

void TraceBlockBuffer::add(const SegmentRecord& r) noexcept {
  Out(data_.get() + used_)
      .u8(kTagSegment)
      .u64(r.task)
      .u32(r.worker)
      .u8(static_cast<std::uint8_t>(r.start))
      .u8(static_cast<std::uint8_t>(r.end))
      .u8(r.level)
      .u64(r.start_ns)
      .u64(r.duration_ns);
  used_ += kSegmentBytes;
  ++records_;
}

void TraceBlockBuffer::add(const WaitRecord& r) noexcept {
  Out(data_.get() + used_)
      .u8(kTagWait)
      .u64(r.task)
      .u32(r.worker)
      .u8(static_cast<std::uint8_t>(r.kind))
      .u8(r.begin ? 1 : 2)
      .u64(r.time_ns);
  used_ += kWaitBytes;
  ++records_;
}

// ---- TraceFileWriter ----------------------------------------------------------------

std::unique_ptr<TraceFileWriter> TraceFileWriter::create(const std::string& path, const TraceHeader& header,
                                                         std::string& error) {
  if (header.level_hz.empty() || header.level_hz.size() > static_cast<std::size_t>(kMaxLevels)) {
    error = "a trace needs 1.." + std::to_string(kMaxLevels) + " tempo levels";
    return nullptr;
  }
  std::string why;
  std::FILE* f = open_output_file(path, why);
  if (!f) {
    error = "cannot open " + why;
    return nullptr;
  }
  std::byte head[kTraceHeaderBytes];
  TraceHeader current = header;
  current.version = kTraceVersion;  // the buffers encode this version's records
  encode_header(head, current);
  if (std::fwrite(head, 1, sizeof head, f) != sizeof head) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    std::fclose(f);
    return nullptr;
  }
  auto writer = std::unique_ptr<TraceFileWriter>(new TraceFileWriter(f, path));
  writer->timing_ = header.timing;
  return writer;
}

TraceFileWriter::~TraceFileWriter() {
  std::string ignored;
  close(ignored);
}

bool TraceFileWriter::put(const void* data, std::size_t n) noexcept {
  if (!file_ || !error_.empty()) return false;
  if (std::fwrite(data, 1, n, file_) == n) return true;
  error_ = "cannot write '" + path_ + "': " + std::strerror(errno);
  return false;
}

void TraceFileWriter::write_block(WorkerId writer, TraceBlockBuffer& buffer) noexcept {
  if (buffer.records() == 0) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::byte head[kTraceBlockHeaderBytes];
    Out(head).u32(kBlockMagic).u32(writer).u32(buffer.records()).u32(static_cast<std::uint32_t>(buffer.bytes()));
    if (put(head, sizeof head) && put(buffer.data(), buffer.bytes())) written_ += buffer.records();
    else dropped_ += buffer.records();
  }
  buffer.clear();
}

void TraceFileWriter::set_timing(TraceTiming timing) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  timing_ = timing;
}

void TraceFileWriter::set_modules(std::vector<TraceModule> modules) {
  std::lock_guard<std::mutex> lock(mutex_);
  modules_ = std::move(modules);
}

void TraceFileWriter::count_dropped(std::uint64_t records) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  dropped_ += records;
}

bool TraceFileWriter::close(std::string& error) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (file_) {
    if (!modules_.empty()) {
      const std::vector<std::byte> table = encode_modules(modules_);
      put(table.data(), table.size());
    }
    std::byte tail[kEndBytes];
    Out(tail).u32(kEndMagic).u32(0).u64(written_).u64(dropped_);
    put(tail, sizeof tail);
    std::byte timing[4];
    Out(timing).u32(static_cast<std::uint32_t>(timing_));
    if (error_.empty() && std::fseek(file_, static_cast<long>(kTimingOffset), SEEK_SET) != 0)
      error_ = "cannot seek in '" + path_ + "': " + std::strerror(errno);
    put(timing, sizeof timing);
    if (std::fclose(file_) != 0 && error_.empty()) error_ = "cannot close '" + path_ + "': " + std::strerror(errno);
    file_ = nullptr;
  }
  error = error_;
  return error_.empty();
}

std::uint64_t TraceFileWriter::records_written() const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  return written_;
}
std::uint64_t TraceFileWriter::records_dropped() const noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_;
}

// ---- reading ----------------------------------------------------------------------------

const TraceTask* Trace::find(std::uint64_t id) const {
  auto it = index.find(id);
  return it == index.end() ? nullptr : &tasks[it->second];
}

std::optional<Trace> parse_trace(std::span<const std::byte> data, std::string& error) {
  return Parser(data, error).run();
}

std::optional<Trace> read_trace(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return std::nullopt;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    error = "cannot read '" + path + "'";
    return std::nullopt;
  }
  return parse_trace(std::as_bytes(std::span<const char>(bytes)), error);
}

}  // namespace rubato
