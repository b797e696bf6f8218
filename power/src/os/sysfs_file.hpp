// The small files of sysfs and /proc, read and written in one place.
//
// read_small, write_exact and leading_integer are async-signal-safe (open,
// read, write, close only; no allocation): the restore path
// (state/cpufreq_restore.cpp) calls them inside a signal handler. The rest
// allocate and are for ordinary code.
#pragma once

#include <cstddef>
#include <string>

namespace rubato {

// Reads at most `cap - 1` bytes of `path` into `buf` (NUL-terminated); -1 on error.
long read_small(const char* path, char* buf, std::size_t cap) noexcept;
// Replaces the content of `path` with `len` bytes (O_TRUNC, O_NOFOLLOW); false on error.
bool write_exact(const char* path, const char* data, std::size_t len) noexcept;
// Leading decimal integer of `text` (kHz values); -1 when none.
long long leading_integer(const char* text) noexcept;

// write_exact for a std::string.
bool write_text(const std::string& path, const std::string& text);
// The leading decimal integer of a small file (a kHz value); -1 when unreadable or none.
long long read_khz(const std::string& path);
// The first non-empty line of a small file, trailing whitespace removed; false when unreadable.
bool read_sysfs_value(const std::string& path, std::string& out);

}  // namespace rubato
