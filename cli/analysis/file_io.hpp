// Whole-file reads and writes for the experiment driver's results files.
#pragma once

#include <optional>
#include <string>

namespace rubato::cli {

// The file's bytes, or nullopt when it cannot be opened.
std::optional<std::string> read_file(const std::string& path);

// Writes through a temporary file and a rename, so a reader (or a crash)
// never sees half a report or half an index.
bool write_file_atomically(const std::string& path, const std::string& text);

}  // namespace rubato::cli
