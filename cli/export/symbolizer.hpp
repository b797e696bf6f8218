// Names a task by its code: a code address recorded in a trace (a return
// address into the code that created the task) becomes a function name, and
// file:line where the module has debug information. Resolved after the run,
// from the trace's module table (each module's path, load bias and build-id),
// with elfutils' libdwfl; without libdw at build time, as module+offset.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "rubato/core/io/trace.hpp"

namespace rubato::cli {

struct CodeLocation {
  std::string function;  // demangled; empty when no symbol covers the address
  std::string file;      // source file, empty without debug information
  std::uint32_t line = 0;
  std::string module;        // the module's path, empty when no module covers the address
  std::uint64_t offset = 0;  // the address in the module's file (run-time address − load bias)
};

class Symbolizer {
 public:
  explicit Symbolizer(const std::vector<TraceModule>& modules);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // `return_address` is where the creating code continues after the call
  // that created the task: the call itself is the byte before.
  CodeLocation resolve(std::uint64_t return_address);
  // Modules that could not be read, or whose build-id differs from the run's
  // (their addresses stay unnamed rather than misnamed).
  const std::vector<std::string>& notes() const noexcept { return notes_; }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  std::vector<TraceModule> modules_;
  std::vector<std::string> notes_;
};

// "fib (fib.cpp:20)", "fib", or "libfoo.so+0x1a2b" when nothing better is known.
std::string code_label(const CodeLocation& where, std::uint64_t address);

}  // namespace rubato::cli
