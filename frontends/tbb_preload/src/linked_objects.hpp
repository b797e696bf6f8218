// Which of the process's loaded objects depend on a library, from their
// DT_NEEDED entries: the preload library starts only in processes that use
// oneTBB (LD_PRELOAD is inherited by every child, shells included).
#pragma once

#include <string_view>

namespace rubato::tbb::detail {

// True when a loaded object other than the one containing `self` lists a
// needed library whose name starts with `prefix` (e.g. "libtbb.so").
bool another_object_needs(std::string_view prefix, const void* self) noexcept;

}  // namespace rubato::tbb::detail
