// Finds librubato_ompt.so for `rubato run`: next to the rubato binary in the
// build tree (../frontends/ompt/) or the install tree (../lib/), or where --tool says.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rubato::cli {

// The directory holding the running rubato binary (from /proc/self/exe).
std::string executable_dir();

// Where the tool may be, most likely first, for a rubato binary in `exe_dir`.
std::vector<std::string> ompt_tool_candidates(const std::string& exe_dir);

// The first candidate that exists, as an absolute path.
std::optional<std::string> find_ompt_tool(const std::string& exe_dir);

}  // namespace rubato::cli
