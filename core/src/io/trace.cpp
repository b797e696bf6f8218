#include "rubato/core/io/trace.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include "rubato/core/io/output_file.hpp"

namespace rubato {
namespace {

// Every multi-byte field is little-endian (docs/trace-format.md).
constexpr char kFileMagic[8] = {'R', 'B', 'T', 'R', 'A', 'C', 'E', '\0'};
constexpr std::uint32_t kBlockMagic = 0x4B4C4254;  // "TBLK"
constexpr std::uint32_t kEndMagic = 0x444E4554;    // "TEND"
constexpr std::size_t kEndBytes = 24;
constexpr std::size_t kFrontendBytes = 16;
constexpr std::size_t kTimingOffset = 112;
constexpr std::size_t kTaskBytes = 33, kSegmentBytes = 32, kWaitBytes = 23;
constexpr std::uint8_t kTagTask = 1, kTagSegment = 2, kTagWait = 3;
constexpr std::uint32_t kKnownTaskFlags = 0x7f;

static_assert(TraceBlockBuffer::kMaxRecordBytes >= std::max({kTaskBytes, kSegmentBytes, kWaitBytes}));

class Out {
 public:
  explicit Out(std::byte* p) : p_(p) {}
  Out& u8(std::uint8_t v) {
    *p_++ = static_cast<std::byte>(v);
    return *this;
  }
  Out& u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
    return *this;
  }
  Out& u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
    return *this;
  }
  Out& f64(double v) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    return u64(bits);
  }
  Out& bytes(const void* src, std::size_t n) {
    std::memcpy(p_, src, n);
    p_ += n;
    return *this;
  }

 private:
  std::byte* p_;
};

class In {
 public:
  In(std::span<const std::byte> d, std::size_t at) : d_(d), at_(at) {}
  std::size_t at() const { return at_; }
  std::size_t left() const { return d_.size() - at_; }
  std::uint8_t u8() { return static_cast<std::uint8_t>(d_[at_++]); }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(u8()) << (8 * i);
    return v;
  }
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(u8()) << (8 * i);
    return v;
  }
  double f64() {
    const std::uint64_t bits = u64();
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }

 private:
  std::span<const std::byte> d_;
  std::size_t at_;
};

std::string at(std::size_t offset, const std::string& what) { return "offset " + std::to_string(offset) + ": " + what; }

void encode_header(std::byte* out, const TraceHeader& h) {
  std::memset(out, 0, kTraceHeaderBytes);
  Out o(out);
  o.bytes(kFileMagic, sizeof kFileMagic).u32(h.version).u32(static_cast<std::uint32_t>(kTraceHeaderBytes));
  o.u64(h.origin_ns).u32(h.max_workers).u32(static_cast<std::uint32_t>(h.level_hz.size()));
  for (int l = 0; l < kMaxLevels; ++l)
    o.f64(static_cast<std::size_t>(l) < h.level_hz.size() ? h.level_hz[static_cast<std::size_t>(l)] : 0.0);
  char frontend[kFrontendBytes] = {};
  std::memcpy(frontend, h.frontend.data(), std::min(h.frontend.size(), kFrontendBytes - 1));
  o.bytes(frontend, kFrontendBytes).u32(static_cast<std::uint32_t>(h.timing));  // then 12 reserved zero bytes
}

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
  bool link();

  std::span<const std::byte> d_;
  std::string& error_;
  Trace t_;
  std::vector<std::size_t> task_offsets_;
  std::vector<PendingSegment> segments_;
  std::vector<PendingWait> waits_;
  std::uint64_t records_ = 0;
  std::size_t header_bytes_ = kTraceHeaderBytes;
};

bool Parser::header() {
  if (d_.size() < kTraceHeaderBytes)
    return fail(0, "too short for a trace header (" + std::to_string(d_.size()) + " bytes)");
  if (std::memcmp(d_.data(), kFileMagic, sizeof kFileMagic) != 0) return fail(0, "not a rubato trace (bad magic)");
  In in(d_, sizeof kFileMagic);
  TraceHeader& h = t_.header;
  h.version = in.u32();
  if (h.version != kTraceVersion)
    return fail(8, "trace version " + std::to_string(h.version) + " is not supported (this reader reads " +
                       std::to_string(kTraceVersion) + ")");
  const std::uint32_t header_bytes = in.u32();
  if (header_bytes < kTraceHeaderBytes || header_bytes > d_.size())
    return fail(12, "bad header size " + std::to_string(header_bytes));
  header_bytes_ = header_bytes;
  h.origin_ns = in.u64();
  h.max_workers = in.u32();
  if (h.max_workers == 0) return fail(24, "max_workers is 0");
  const std::uint32_t levels = in.u32();
  if (levels < 1 || levels > static_cast<std::uint32_t>(kMaxLevels))
    return fail(28, "level count " + std::to_string(levels) + " is not within 1.." + std::to_string(kMaxLevels));
  for (int l = 0; l < kMaxLevels; ++l) {
    const std::size_t off = in.at();
    const double hz = in.f64();
    if (static_cast<std::uint32_t>(l) < levels) {
      if (!std::isfinite(hz) || hz <= 0) return fail(off, "level " + std::to_string(l) + " frequency is not positive");
      h.level_hz.push_back(hz);
    }
  }
  const std::size_t fe = in.at();
  const char* name = reinterpret_cast<const char*>(d_.data() + fe);
  const std::size_t len = strnlen(name, kFrontendBytes);
  if (len == kFrontendBytes) return fail(fe, "front-end name is not terminated");
  h.frontend.assign(name, len);
  In t(d_, kTimingOffset);
  const std::uint32_t timing = t.u32();
  if (timing > 1) return fail(kTimingOffset, "unknown timing " + std::to_string(timing));
  h.timing = static_cast<TraceTiming>(timing);
  return true;
}

bool Parser::record(In& in) {
  const std::size_t off = in.at();
  const std::uint8_t tag = in.u8();
  const std::size_t need = tag == kTagTask      ? kTaskBytes
                           : tag == kTagSegment ? kSegmentBytes
                           : tag == kTagWait    ? kWaitBytes
                                                : 0;
  if (need == 0) return fail(off, "unknown record type " + std::to_string(tag));
  if (in.left() < need - 1) return fail(off, "record runs past its block");
  const std::uint32_t max_workers = t_.header.max_workers;
  if (tag == kTagTask) {
    TraceTask task;
    task.id = in.u64();
    task.parent = in.u64();
    task.creator = in.u32();
    task.flags = in.u32();
    task.created_ns = in.u64();
    if (task.id == 0) return fail(off, "task id 0");
    if (task.creator >= max_workers) return fail(off, "creator " + std::to_string(task.creator) + " >= max_workers");
    if (task.flags & ~kKnownTaskFlags) return fail(off, "unknown task flags");
    if (task.parent == task.id) return fail(off, "task is its own parent");
    if (!t_.index.emplace(task.id, t_.tasks.size()).second)
      return fail(off, "task " + std::to_string(task.id) + " recorded twice");
    t_.tasks.push_back(std::move(task));
    task_offsets_.push_back(off);
  } else if (tag == kTagSegment) {
    PendingSegment p{};
    p.offset = off;
    p.task = in.u64();
    p.seg.worker = in.u32();
    const std::uint8_t start = in.u8(), end = in.u8();
    p.seg.level = in.u8();
    p.seg.start_ns = in.u64();
    p.seg.duration_ns = in.u64();
    if (p.seg.worker >= max_workers) return fail(off, "worker " + std::to_string(p.seg.worker) + " >= max_workers");
    if (start < 1 || start > 5) return fail(off, "unknown segment start " + std::to_string(start));
    if (end < 1 || end > 6) return fail(off, "unknown segment end " + std::to_string(end));
    if (p.seg.level >= t_.header.level_hz.size())
      return fail(off, "level " + std::to_string(p.seg.level) + " out of range");
    if (p.seg.start_ns > UINT64_MAX - p.seg.duration_ns) return fail(off, "segment end overflows");
    p.seg.start = static_cast<SegmentStart>(start);
    p.seg.end = static_cast<SegmentEnd>(end);
    segments_.push_back(p);
  } else {
    PendingWait p{};
    p.offset = off;
    p.rec.task = in.u64();
    p.rec.worker = in.u32();
    const std::uint8_t kind = in.u8(), phase = in.u8();
    p.rec.time_ns = in.u64();
    if (p.rec.worker >= max_workers) return fail(off, "worker " + std::to_string(p.rec.worker) + " >= max_workers");
    if (kind < 1 || kind > 4) return fail(off, "unknown wait kind " + std::to_string(kind));
    if (phase != 1 && phase != 2) return fail(off, "unknown wait phase " + std::to_string(phase));
    p.rec.kind = static_cast<WaitKind>(kind);
    p.rec.begin = phase == 1;
    waits_.push_back(p);
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
  Out(data_.get() + used_).u8(kTagTask).u64(r.id).u64(r.parent).u32(r.creator).u32(r.flags).u64(r.time_ns);
  used_ += kTaskBytes;
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
  encode_header(head, header);
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

void TraceFileWriter::count_dropped(std::uint64_t records) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  dropped_ += records;
}

bool TraceFileWriter::close(std::string& error) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (file_) {
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
