#include "rubato/sim/program.hpp"

namespace rubato::sim {

double unit_hash(std::uint64_t id, std::uint64_t seed) noexcept {
  return static_cast<double>(mix64(id ^ mix64(seed + 0xD1B54A32D192ED03ull)) >> 11) * 0x1.0p-53;
}

}  // namespace rubato::sim
