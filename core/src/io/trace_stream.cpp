#include "rubato/core/io/trace_stream.hpp"

#include <algorithm>
#include <queue>
#include <utility>

#include "io/trace_codec.hpp"

namespace rubato {

using namespace trace_codec;

namespace {

struct BlockRef {
  std::uint64_t payload_at = 0;  // file offset of its first record
  std::uint32_t bytes = 0;
  std::uint32_t count = 0;
};

// One worker's blocks, read one at a time.
struct Cursor {
  std::vector<BlockRef> blocks;
  std::size_t next_block = 0;
  std::vector<std::byte> payload;
  std::size_t at = 0;            // position in payload
  std::uint64_t payload_at = 0;  // file offset of payload[0]
  std::uint32_t left_in_block = 0;
  Record pending;
};

}  // namespace

struct TraceStream::Impl {
  std::ifstream file;
  std::uint64_t size = 0;
  TraceHeader header;
  std::vector<TraceModule> modules;
  std::uint64_t records = 0, dropped = 0;
  std::size_t header_bytes = kTraceHeaderBytes;
  std::string error;
  std::vector<Cursor> cursors;  // by writer
  // Min-heap of (written_ns, writer) over cursors holding a pending record.
  std::priority_queue<std::pair<std::uint64_t, WorkerId>, std::vector<std::pair<std::uint64_t, WorkerId>>,
                      std::greater<>>
      heap;

  bool fail(std::uint64_t offset, const std::string& what) {
    error = at(static_cast<std::size_t>(offset), what);
    return false;
  }
  bool read_at(std::uint64_t offset, void* to, std::size_t n) {
    file.clear();
    file.seekg(static_cast<std::streamoff>(offset));
    file.read(static_cast<char*>(to), static_cast<std::streamsize>(n));
    return static_cast<std::size_t>(file.gcount()) == n;
  }
  bool open_header();
  bool index();
  bool index_block(std::uint64_t& off, std::uint64_t& total);
  bool index_modules(std::uint64_t& off);
  bool end_record(std::uint64_t off, std::uint64_t total);
  bool advance(WorkerId w);
};

bool TraceStream::Impl::open_header() {
  std::vector<std::byte> head(static_cast<std::size_t>(std::min<std::uint64_t>(size, kTraceHeaderBytes)));
  if (!read_at(0, head.data(), head.size())) return fail(0, "cannot read the header");
  return decode_header(head, static_cast<std::size_t>(size), header, header_bytes, error);
}

// Records the block at `off` and moves `off` past it.
bool TraceStream::Impl::index_block(std::uint64_t& off, std::uint64_t& total) {
  if (size - off < kTraceBlockHeaderBytes) return fail(off, "block header is truncated");
  std::byte raw[kTraceBlockHeaderBytes];
  if (!read_at(off, raw, sizeof raw)) return fail(off, "cannot read a block header");
  In in(raw, 4);
  const std::uint32_t writer = in.u32(), count = in.u32(), bytes = in.u32();
  if (bytes > size - off - kTraceBlockHeaderBytes)
    return fail(off, "block of " + std::to_string(bytes) + " bytes runs past the end of the file");
  if (writer >= header.max_workers) return fail(off, "block writer " + std::to_string(writer) + " >= max_workers");
  if (count > 0) cursors[writer].blocks.push_back(BlockRef{off + kTraceBlockHeaderBytes, bytes, count});
  total += count;
  off += kTraceBlockHeaderBytes + bytes;
  return true;
}

bool TraceStream::Impl::index_modules(std::uint64_t& off) {
  if (header.version < 2) return fail(off, "a module table in a version 1 trace");
  if (!modules.empty()) return fail(off, "a second module table");
  if (size - off < kModuleHeadBytes) return fail(off, "module table is truncated");
  std::byte raw[kModuleHeadBytes];
  if (!read_at(off, raw, sizeof raw)) return fail(off, "cannot read the module table");
  In in(raw, 4);
  const std::uint32_t count = in.u32(), bytes = in.u32();
  if (bytes > size - off - kModuleHeadBytes) return fail(off, "module table runs past the end of the file");
  std::vector<std::byte> table(kModuleHeadBytes + bytes);
  if (!read_at(off, table.data(), table.size())) return fail(off, "cannot read the module table");
  In body(table, kModuleHeadBytes);
  std::string why;
  if (!decode_modules(body, count, bytes, modules, why)) return fail(off, "module table: " + why);
  off += table.size();
  return true;
}

bool TraceStream::Impl::end_record(std::uint64_t off, std::uint64_t total) {
  if (size - off != kEndBytes)
    return fail(off, size - off < kEndBytes ? "end record is truncated" : "data after the end record");
  std::byte raw[kEndBytes];
  if (!read_at(off, raw, sizeof raw)) return fail(off, "cannot read the end record");
  In in(raw, 8);
  records = in.u64();
  dropped = in.u64();
  if (records != total)
    return fail(off, "end record says " + std::to_string(records) + " records, blocks hold " + std::to_string(total));
  return true;
}

// Every block's place, by writer; the module table; the end record.
bool TraceStream::Impl::index() {
  cursors.resize(header.max_workers);
  std::uint64_t off = header_bytes, total = 0;
  while (off < size) {
    if (size - off < 4) return fail(off, "truncated block");
    std::byte raw[4];
    if (!read_at(off, raw, 4)) return fail(off, "cannot read");
    const std::uint32_t magic = In(raw, 0).u32();
    if (magic == kBlockMagic) {
      if (!index_block(off, total)) return false;
      continue;
    }
    if (magic == kModuleMagic) {
      if (!index_modules(off)) return false;
      continue;
    }
    if (magic != kEndMagic) return fail(off, "expected a block or the end record");
    return end_record(off, total);
  }
  return fail(size, "trace ends without its end record (truncated)");
}

// Loads worker w's next record (the next block when its block is done) and
// queues it; false only on a bad record.
bool TraceStream::Impl::advance(WorkerId w) {
  Cursor& c = cursors[w];
  if (c.left_in_block == 0) {
    if (c.next_block == c.blocks.size()) return true;  // this worker is done
    const BlockRef& b = c.blocks[c.next_block++];
    c.payload.resize(b.bytes);
    if (!read_at(b.payload_at, c.payload.data(), b.bytes)) return fail(b.payload_at, "cannot read a block");
    c.payload_at = b.payload_at;
    c.at = 0;
    c.left_in_block = b.count;
  }
  if (c.at >= c.payload.size()) return fail(c.payload_at + c.at, "block holds fewer records than it says");
  In in(c.payload, c.at);
  std::string why;
  // decode_record names the offset within the payload: name the file's.
  if (!decode_record(in, header, c.pending, why)) return fail(c.payload_at + c.at, why.substr(why.find(": ") + 2));
  c.at = in.at();
  --c.left_in_block;
  if (c.left_in_block == 0 && c.at != c.payload.size())
    return fail(c.payload_at + c.at, "block holds more bytes than its records");
  heap.emplace(c.pending.written_ns(), w);
  return true;
}

std::unique_ptr<TraceStream> TraceStream::open(const std::string& path, std::string& error) {
  auto impl = std::make_unique<Impl>();
  impl->file.open(path, std::ios::binary | std::ios::ate);
  if (!impl->file) {
    error = "cannot open '" + path + "'";
    return nullptr;
  }
  impl->size = static_cast<std::uint64_t>(impl->file.tellg());
  if (!impl->open_header() || !impl->index()) {
    error = impl->error;
    return nullptr;
  }
  for (WorkerId w = 0; w < impl->cursors.size(); ++w)
    if (!impl->advance(w)) {
      error = impl->error;
      return nullptr;
    }
  return std::unique_ptr<TraceStream>(new TraceStream(std::move(impl)));
}

TraceStream::TraceStream(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceStream::~TraceStream() = default;

const TraceHeader& TraceStream::header() const noexcept { return impl_->header; }
const std::vector<TraceModule>& TraceStream::modules() const noexcept { return impl_->modules; }
std::uint64_t TraceStream::records() const noexcept { return impl_->records; }
std::uint64_t TraceStream::dropped() const noexcept { return impl_->dropped; }
const std::string& TraceStream::error() const noexcept { return impl_->error; }

bool TraceStream::next(TraceStreamRecord& out) {
  Impl& s = *impl_;
  if (!s.error.empty() || s.heap.empty()) return false;
  const WorkerId w = s.heap.top().second;
  s.heap.pop();
  const Record& r = s.cursors[w].pending;
  out.writer = w;
  out.kind = r.tag == kTagTask      ? TraceStreamRecord::Kind::task
             : r.tag == kTagSegment ? TraceStreamRecord::Kind::segment
                                    : TraceStreamRecord::Kind::wait;
  out.task = r.task;
  out.segment = r.segment;
  out.wait = r.wait;
  s.advance(w);  // a bad record there ends the stream at the next call
  return true;
}

}  // namespace rubato
