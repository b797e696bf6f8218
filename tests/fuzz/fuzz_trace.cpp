// libFuzzer target: the task-trace reader (docs/trace-format.md). Invariants:
// a refused trace says where ("offset N: ..."); an accepted one is
// self-consistent (every task reachable through the index, every parent known).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "fuzz_check.hpp"
#include "rubato/core/io/trace.hpp"

using namespace rubato;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string error;
  const auto trace = parse_trace(std::as_bytes(std::span<const std::uint8_t>(data, size)), error);
  if (!trace) {
    fuzz::require(error.rfind("offset ", 0) == 0, "a refused trace names the offset");
    fuzz::require(fuzz::one_printable_line(error), "the error is one printable line");
    return 0;
  }
  fuzz::require(trace->index.size() == trace->tasks.size(), "one index entry per task");
  for (const TraceTask& t : trace->tasks) {
    fuzz::require(trace->find(t.id) == &t, "every task is found by its id");
    fuzz::require(t.parent == 0 || trace->find(t.parent) != nullptr, "every parent is known");
  }
  return 0;
}
