#include <omp.h>

#include "runtime.hpp"

namespace kernels {

struct RuntimeScope::State {};

RuntimeScope::RuntimeScope(int threads) {
  if (threads > 0) omp_set_num_threads(threads);
}

RuntimeScope::~RuntimeScope() = default;

int RuntimeScope::threads() const noexcept { return omp_get_max_threads(); }

const char* RuntimeScope::name() noexcept { return "omp"; }

}  // namespace kernels
