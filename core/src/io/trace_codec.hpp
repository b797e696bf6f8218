// The byte layout of a task trace (docs/trace-format.md), shared by the whole
// reader (trace.cpp), the streaming reader (trace_stream.cpp) and the writer:
// little-endian encoders and decoders, the header, one record, the module
// table. Private to core's io/ sources.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "rubato/core/io/trace.hpp"

namespace rubato::trace_codec {

constexpr char kFileMagic[8] = {'R', 'B', 'T', 'R', 'A', 'C', 'E', '\0'};
constexpr std::uint32_t kBlockMagic = 0x4B4C4254;   // "TBLK"
constexpr std::uint32_t kModuleMagic = 0x444F4D54;  // "TMOD"
constexpr std::uint32_t kEndMagic = 0x444E4554;     // "TEND"
constexpr std::size_t kEndBytes = 24;
constexpr std::size_t kModuleHeadBytes = 12;
constexpr std::size_t kFrontendBytes = 16;
constexpr std::size_t kTimingOffset = 112;
constexpr std::size_t kTaskBytesV1 = 33, kTaskBytesV2 = 41, kSegmentBytes = 32, kWaitBytes = 23;
constexpr std::uint8_t kTagTask = 1, kTagSegment = 2, kTagWait = 3;
constexpr std::uint32_t kKnownTaskFlags = 0x7f;

class Out {
 public:
  explicit Out(std::byte* p) : p_(p) {}
  Out& u8(std::uint8_t v) {
    *p_++ = static_cast<std::byte>(v);
    return *this;
  }
  Out& u16(std::uint16_t v) { return u8(static_cast<std::uint8_t>(v)).u8(static_cast<std::uint8_t>(v >> 8)); }
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
  std::uint16_t u16() {
    const std::uint16_t lo = u8();
    return static_cast<std::uint16_t>(lo | (u8() << 8));
  }
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
  std::string text(std::size_t n) {
    std::string s(reinterpret_cast<const char*>(d_.data() + at_), n);
    at_ += n;
    return s;
  }

 private:
  std::span<const std::byte> d_;
  std::size_t at_;
};

inline std::string at(std::size_t offset, const std::string& what) {
  return "offset " + std::to_string(offset) + ": " + what;
}

void encode_header(std::byte* out, const TraceHeader& h);
// `head` is the whole file or at least its first kTraceHeaderBytes;
// `file_bytes` the file's size. Sets header_bytes (where blocks start).
bool decode_header(std::span<const std::byte> head, std::size_t file_bytes, TraceHeader& h, std::size_t& header_bytes,
                   std::string& error);

// One record, whatever its type.
struct Record {
  std::uint8_t tag = 0;
  TaskRecord task;
  SegmentRecord segment;
  WaitRecord wait;
  // When the worker wrote it: creation, segment end, wait begin or end.
  std::uint64_t written_ns() const {
    return tag == kTagTask ? task.time_ns : tag == kTagSegment ? segment.start_ns + segment.duration_ns : wait.time_ns;
  }
};
// Decodes and checks one record's fields (not the tasks it names); on failure
// `error` names the record's offset.
bool decode_record(In& in, const TraceHeader& h, Record& r, std::string& error);

// The module table's encoding (after its 12-byte head) and its decoding.
std::vector<std::byte> encode_modules(const std::vector<TraceModule>& modules);
bool decode_modules(In& in, std::uint32_t count, std::size_t bytes, std::vector<TraceModule>& out, std::string& error);

}  // namespace rubato::trace_codec
