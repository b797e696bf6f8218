#include "io/trace_codec.hpp"

#include <algorithm>
#include <cmath>

namespace rubato::trace_codec {

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

namespace {

bool fail(std::string& error, std::size_t offset, const std::string& what) {
  error = at(offset, what);
  return false;
}

bool decode_levels(In& in, std::uint32_t levels, TraceHeader& h, std::string& error) {
  for (int l = 0; l < kMaxLevels; ++l) {
    const std::size_t off = in.at();
    const double hz = in.f64();
    if (static_cast<std::uint32_t>(l) < levels) {
      if (!std::isfinite(hz) || hz <= 0)
        return fail(error, off, "level " + std::to_string(l) + " frequency is not positive");
      h.level_hz.push_back(hz);
    }
  }
  return true;
}

}  // namespace

bool decode_header(std::span<const std::byte> head, std::size_t file_bytes, TraceHeader& h, std::size_t& header_bytes,
                   std::string& error) {
  if (head.size() < kTraceHeaderBytes)
    return fail(error, 0, "too short for a trace header (" + std::to_string(head.size()) + " bytes)");
  if (std::memcmp(head.data(), kFileMagic, sizeof kFileMagic) != 0)
    return fail(error, 0, "not a rubato trace (bad magic)");
  In in(head, sizeof kFileMagic);
  h.version = in.u32();
  if (h.version < kTraceOldestVersion || h.version > kTraceVersion)
    return fail(error, 8,
                "trace version " + std::to_string(h.version) + " is not supported (this reader reads " +
                    std::to_string(kTraceOldestVersion) + ".." + std::to_string(kTraceVersion) + ")");
  const std::uint32_t size = in.u32();
  if (size < kTraceHeaderBytes || size > file_bytes) return fail(error, 12, "bad header size " + std::to_string(size));
  header_bytes = size;
  h.origin_ns = in.u64();
  h.max_workers = in.u32();
  if (h.max_workers == 0) return fail(error, 24, "max_workers is 0");
  const std::uint32_t levels = in.u32();
  if (levels < 1 || levels > static_cast<std::uint32_t>(kMaxLevels))
    return fail(error, 28, "level count " + std::to_string(levels) + " is not within 1.." + std::to_string(kMaxLevels));
  if (!decode_levels(in, levels, h, error)) return false;
  const std::size_t fe = in.at();
  const char* name = reinterpret_cast<const char*>(head.data() + fe);
  const std::size_t len = strnlen(name, kFrontendBytes);
  if (len == kFrontendBytes) return fail(error, fe, "front-end name is not terminated");
  h.frontend.assign(name, len);
  const std::uint32_t timing = In(head, kTimingOffset).u32();
  if (timing > 1) return fail(error, kTimingOffset, "unknown timing " + std::to_string(timing));
  h.timing = static_cast<TraceTiming>(timing);
  return true;
}

namespace {

bool decode_task(In& in, const TraceHeader& h, std::size_t off, TaskRecord& t, std::string& error) {
  t.id = in.u64();
  t.parent = in.u64();
  t.creator = in.u32();
  t.flags = in.u32();
  t.time_ns = in.u64();
  t.code = h.version >= 2 ? in.u64() : 0;
  if (t.id == 0) return fail(error, off, "task id 0");
  if (t.creator >= h.max_workers) return fail(error, off, "creator " + std::to_string(t.creator) + " >= max_workers");
  if (t.flags & ~kKnownTaskFlags) return fail(error, off, "unknown task flags");
  if (t.parent == t.id) return fail(error, off, "task is its own parent");
  return true;
}

bool decode_segment(In& in, const TraceHeader& h, std::size_t off, SegmentRecord& s, std::string& error) {
  s.task = in.u64();
  s.worker = in.u32();
  const std::uint8_t start = in.u8(), end = in.u8();
  s.level = in.u8();
  s.start_ns = in.u64();
  s.duration_ns = in.u64();
  if (s.worker >= h.max_workers) return fail(error, off, "worker " + std::to_string(s.worker) + " >= max_workers");
  if (start < 1 || start > 5) return fail(error, off, "unknown segment start " + std::to_string(start));
  if (end < 1 || end > 6) return fail(error, off, "unknown segment end " + std::to_string(end));
  if (s.level >= h.level_hz.size()) return fail(error, off, "level " + std::to_string(s.level) + " out of range");
  if (s.start_ns > UINT64_MAX - s.duration_ns) return fail(error, off, "segment end overflows");
  s.start = static_cast<SegmentStart>(start);
  s.end = static_cast<SegmentEnd>(end);
  return true;
}

bool decode_wait(In& in, const TraceHeader& h, std::size_t off, WaitRecord& w, std::string& error) {
  w.task = in.u64();
  w.worker = in.u32();
  const std::uint8_t kind = in.u8(), phase = in.u8();
  w.time_ns = in.u64();
  if (w.worker >= h.max_workers) return fail(error, off, "worker " + std::to_string(w.worker) + " >= max_workers");
  if (kind < 1 || kind > 4) return fail(error, off, "unknown wait kind " + std::to_string(kind));
  if (phase != 1 && phase != 2) return fail(error, off, "unknown wait phase " + std::to_string(phase));
  w.kind = static_cast<WaitKind>(kind);
  w.begin = phase == 1;
  return true;
}

}  // namespace

bool decode_record(In& in, const TraceHeader& h, Record& r, std::string& error) {
  const std::size_t off = in.at();
  r.tag = in.u8();
  const std::size_t task_bytes = h.version >= 2 ? kTaskBytesV2 : kTaskBytesV1;
  const std::size_t need = r.tag == kTagTask      ? task_bytes
                           : r.tag == kTagSegment ? kSegmentBytes
                           : r.tag == kTagWait    ? kWaitBytes
                                                  : 0;
  if (need == 0) return fail(error, off, "unknown record type " + std::to_string(r.tag));
  if (in.left() < need - 1) return fail(error, off, "record runs past its block");
  if (r.tag == kTagTask) return decode_task(in, h, off, r.task, error);
  if (r.tag == kTagSegment) return decode_segment(in, h, off, r.segment, error);
  return decode_wait(in, h, off, r.wait, error);
}

std::vector<std::byte> encode_modules(const std::vector<TraceModule>& modules) {
  std::size_t bytes = 0;
  for (const TraceModule& m : modules)
    bytes += 28 + std::min<std::size_t>(m.build_id.size(), 0xffff) + std::min<std::size_t>(m.path.size(), 0xffff);
  std::vector<std::byte> out(kModuleHeadBytes + bytes);
  Out o(out.data());
  o.u32(kModuleMagic).u32(static_cast<std::uint32_t>(modules.size())).u32(static_cast<std::uint32_t>(bytes));
  for (const TraceModule& m : modules) {
    const auto id_bytes = static_cast<std::uint16_t>(std::min<std::size_t>(m.build_id.size(), 0xffff));
    const auto path_bytes = static_cast<std::uint16_t>(std::min<std::size_t>(m.path.size(), 0xffff));
    o.u64(m.bias).u64(m.low).u64(m.high).u16(id_bytes).u16(path_bytes);
    o.bytes(m.build_id.data(), id_bytes).bytes(m.path.data(), path_bytes);
  }
  return out;
}

bool decode_modules(In& in, std::uint32_t count, std::size_t bytes, std::vector<TraceModule>& out, std::string& error) {
  const std::size_t end = in.at() + bytes;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::size_t off = in.at();
    if (end - in.at() < 28) return fail(error, off, "module entry runs past the module table");
    TraceModule m;
    m.bias = in.u64();
    m.low = in.u64();
    m.high = in.u64();
    const std::uint16_t id_bytes = in.u16(), path_bytes = in.u16();
    if (end - in.at() < std::size_t{id_bytes} + path_bytes)
      return fail(error, off, "module entry runs past the module table");
    if (m.high < m.low) return fail(error, off, "module address range is reversed");
    m.build_id = in.text(id_bytes);
    m.path = in.text(path_bytes);
    out.push_back(std::move(m));
  }
  if (in.at() != end) return fail(error, in.at(), "module table holds more bytes than its entries");
  return true;
}

}  // namespace rubato::trace_codec
