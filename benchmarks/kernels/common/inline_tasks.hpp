// A scheduler that runs everything on the calling thread, in order: the
// sequential base case of the recursive kernels (and a reference for them).
#pragma once

#include <cstddef>

namespace kernels {

struct InlineTasks {
  template <class F>
  static void run(const F& root) {
    root();
  }
  template <class F>
  static void for_chunks(std::size_t begin, std::size_t end, std::size_t /*grain*/, const F& body) {
    if (end > begin) body(begin, end);
  }
  template <class A, class B>
  static void invoke(const A& a, const B& b) {
    a();
    b();
  }
};

}  // namespace kernels
