// Reading a task trace without holding it: what `rubato trace export` needs
// for traces of hundreds of millions of records. Opening checks the header,
// the block framing, the module table and the end record (a truncated or
// foreign file is refused before anything is read out); then next() hands out
// the records of all workers merged in the order they were written (each
// worker's own records come in its order; across workers, by the time each
// was written: creation, segment end, wait begin or end). Memory: one block
// per worker plus the block index (a few bytes per 64 KiB block).
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "rubato/core/io/trace.hpp"

namespace rubato {

struct TraceStreamRecord {
  enum class Kind : std::uint8_t { task, segment, wait };
  Kind kind = Kind::task;
  TaskRecord task;        // kind task
  SegmentRecord segment;  // kind segment
  WaitRecord wait;        // kind wait
  WorkerId writer = 0;    // the worker whose block held it
};

class TraceStream {
 public:
  // nullptr and `error` ("offset N: what") when the file is not a whole trace.
  static std::unique_ptr<TraceStream> open(const std::string& path, std::string& error);
  ~TraceStream();
  TraceStream(const TraceStream&) = delete;
  TraceStream& operator=(const TraceStream&) = delete;

  const TraceHeader& header() const noexcept;
  const std::vector<TraceModule>& modules() const noexcept;
  std::uint64_t records() const noexcept;  // from the end record
  std::uint64_t dropped() const noexcept;  // records the writer could not write

  // The next record; false at the end, or after a bad record (then error()
  // says which, at which offset; check it when next() returns false).
  bool next(TraceStreamRecord& out);
  const std::string& error() const noexcept;

  struct Impl;

 private:
  explicit TraceStream(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rubato
