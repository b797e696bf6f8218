// What every fuzz target asserts beyond "no crash, no sanitizer report": a
// broken invariant aborts, so libFuzzer keeps the input that broke it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace rubato::fuzz {

inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

// A message for the user's terminal: one line of printable text.
inline bool one_printable_line(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') return false;
  return !s.empty();
}

}  // namespace rubato::fuzz
