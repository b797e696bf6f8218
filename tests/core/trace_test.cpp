#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "rubato/core/io/trace.hpp"

using namespace rubato;

namespace {

std::filesystem::path temp_trace(const char* name) {
  return std::filesystem::temp_directory_path() / (std::string("rubato-trace-test-") + name + ".bin");
}

std::vector<std::byte> slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(c.size());
  std::memcpy(out.data(), c.data(), c.size());
  return out;
}

TraceHeader header() {
  TraceHeader h;
  h.origin_ns = 1000;
  h.max_workers = 4;
  h.level_hz = {2.4e9, 1.4e9};
  h.frontend = "ompt";
  return h;
}

// A parent (implicit task of worker 0) with two children: one popped by its
// creator, one stolen by worker 1; the parent waits for both.
std::vector<std::byte> small_trace(const std::filesystem::path& path, std::size_t block_bytes = 64) {
  std::string err;
  auto w = TraceFileWriter::create(path.string(), header(), err);
  REQUIRE(w);
  TraceBlockBuffer b0(block_bytes), b1(block_bytes);
  auto put0 = [&](const auto& r) {
    if (!b0.room()) w->write_block(0, b0);
    b0.add(r);
  };
  put0(TaskRecord{10, 0, 0, kTraceTaskImplicit, 0});
  put0(TaskRecord{11, 10, 0, kTraceTaskExplicit | kTraceTaskDeferred, 5});
  put0(TaskRecord{12, 10, 0, kTraceTaskExplicit | kTraceTaskDeferred, 6});
  put0(SegmentRecord{10, 0, SegmentStart::inline_, SegmentEnd::waiting, 0, 0, 7});
  put0(WaitRecord{10, 0, WaitKind::taskwait, true, 7});
  put0(SegmentRecord{12, 0, SegmentStart::pop, SegmentEnd::completed, 0, 8, 100});
  b1.add(SegmentRecord{11, 1, SegmentStart::steal, SegmentEnd::completed, 1, 9, 300});
  put0(WaitRecord{10, 0, WaitKind::taskwait, false, 310});
  put0(SegmentRecord{10, 0, SegmentStart::resume, SegmentEnd::region_end, 0, 310, 2});
  w->write_block(1, b1);
  w->write_block(0, b0);
  w->set_timing(TraceTiming::at_level);  // known only at the end, rewritten into the header
  REQUIRE(w->close(err));
  CHECK(w->records_written() == 9);
  return slurp(path);
}

}  // namespace

TEST_CASE("Trace.Format.RoundTrip", "[core][trace]") {
  const auto path = temp_trace("roundtrip");
  small_trace(path);
  std::string err;
  auto t = read_trace(path.string(), err);
  REQUIRE(t);
  CHECK(err.empty());
  CHECK(t->header.version == kTraceVersion);
  CHECK(t->header.origin_ns == 1000);
  CHECK(t->header.max_workers == 4);
  CHECK(t->header.level_hz == std::vector<double>{2.4e9, 1.4e9});
  CHECK(t->header.frontend == "ompt");
  CHECK(t->header.timing == TraceTiming::at_level);
  CHECK(t->records == 9);
  CHECK(t->dropped == 0);
  REQUIRE(t->tasks.size() == 3);
  const TraceTask* parent = t->find(10);
  REQUIRE(parent);
  CHECK(parent->children == std::vector<std::uint64_t>{11, 12});
  REQUIRE(parent->segments.size() == 2);
  CHECK(parent->segments[0].end == SegmentEnd::waiting);
  CHECK(parent->segments[1].start == SegmentStart::resume);
  REQUIRE(parent->waits.size() == 1);
  CHECK(parent->waits[0].kind == WaitKind::taskwait);
  CHECK(parent->waits[0].begin_ns == 7);
  CHECK(parent->waits[0].end_ns == 310);
  const TraceTask* stolen = t->find(11);
  REQUIRE(stolen);
  REQUIRE(stolen->segments.size() == 1);
  CHECK(stolen->segments[0].worker == 1);
  CHECK(stolen->segments[0].start == SegmentStart::steal);
  CHECK(stolen->segments[0].level == 1);
  CHECK(stolen->segments[0].duration_ns == 300);
  CHECK(stolen->creator == 0);
  std::filesystem::remove(path);
}

TEST_CASE("Trace.Format.EveryTruncationIsReportedWithItsOffset", "[core][trace]") {
  const auto path = temp_trace("truncate");
  const auto bytes = small_trace(path);
  std::filesystem::remove(path);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    std::string err;
    auto t = parse_trace(std::span<const std::byte>(bytes.data(), n), err);
    INFO("truncated to " << n << " bytes");
    CHECK_FALSE(t);
    CHECK(err.rfind("offset ", 0) == 0);
  }
}

TEST_CASE("Trace.Format.CorruptionIsNamed", "[core][trace]") {
  const auto path = temp_trace("corrupt");
  auto bytes = small_trace(path);
  std::filesystem::remove(path);
  std::string err;

  SECTION("bad magic") {
    bytes[0] = std::byte{'X'};
    CHECK_FALSE(parse_trace(bytes, err));
    CHECK(err == "offset 0: not a rubato trace (bad magic)");
  }
  SECTION("newer version") {
    bytes[8] = std::byte{3};
    CHECK_FALSE(parse_trace(bytes, err));
    CHECK(err.find("offset 8: trace version 3") == 0);
  }
  SECTION("unknown record type") {
    // First record of the first block: just after the header and a block header.
    bytes[kTraceHeaderBytes + kTraceBlockHeaderBytes] = std::byte{9};
    CHECK_FALSE(parse_trace(bytes, err));
    CHECK(err == "offset " + std::to_string(kTraceHeaderBytes + kTraceBlockHeaderBytes) + ": unknown record type 9");
  }
  SECTION("data after the end record") {
    bytes.push_back(std::byte{0});
    CHECK_FALSE(parse_trace(bytes, err));
    CHECK(err.find("end record") != std::string::npos);
  }
  SECTION("every single-byte flip is either accepted or reported, never a crash") {
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      auto copy = bytes;
      copy[i] ^= std::byte{0x5a};
      auto t = parse_trace(copy, err);
      if (!t) CHECK(err.rfind("offset ", 0) == 0);
    }
  }
}

TEST_CASE("Trace.Format.BlocksSplitAnywhere", "[core][trace]") {
  // Small blocks force many flushes; the reader must see the same trace.
  const auto path = temp_trace("blocks");
  small_trace(path, TraceBlockBuffer::kMaxRecordBytes);
  std::string err;
  auto t = read_trace(path.string(), err);
  REQUIRE(t);
  CHECK(t->records == 9);
  CHECK(t->find(10)->waits.size() == 1);
  std::filesystem::remove(path);
}

TEST_CASE("Trace.Format.UnknownReferencesAreErrors", "[core][trace]") {
  const auto path = temp_trace("refs");
  std::string err;
  auto w = TraceFileWriter::create(path.string(), header(), err);
  REQUIRE(w);
  TraceBlockBuffer b(256);
  b.add(TaskRecord{5, 77, 0, kTraceTaskExplicit, 1});
  w->write_block(0, b);
  REQUIRE(w->close(err));
  CHECK_FALSE(read_trace(path.string(), err));
  CHECK(err ==
        "offset " + std::to_string(kTraceHeaderBytes + kTraceBlockHeaderBytes) + ": task 5 names unknown parent 77");
  std::filesystem::remove(path);
}

TEST_CASE("Trace.Format.UnwritablePathIsAnError", "[core][trace]") {
  std::string err;
  CHECK_FALSE(TraceFileWriter::create("/nonexistent-dir/x/trace.bin", header(), err));
  CHECK(err.find("cannot open '/nonexistent-dir/x/trace.bin'") == 0);
}
