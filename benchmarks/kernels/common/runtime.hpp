// The one runtime-specific piece of a kernel program's main: how many worker
// threads to use, and (instrumented TBB builds) attaching rubato. Implemented
// by runtime_omp.cpp or runtime_tbb.cpp; a program links exactly one.
#pragma once

#include <memory>

namespace kernels {

class RuntimeScope {
 public:
  // threads == 0: the runtime's default (OMP_NUM_THREADS / TBB's default).
  explicit RuntimeScope(int threads);
  ~RuntimeScope();
  RuntimeScope(const RuntimeScope&) = delete;
  RuntimeScope& operator=(const RuntimeScope&) = delete;

  int threads() const noexcept;
  static const char* name() noexcept;  // "omp", "tbb" or "tbb_rubato"

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kernels
