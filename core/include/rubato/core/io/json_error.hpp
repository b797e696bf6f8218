// The message rubato's JSON readers (reports, run indexes) give for input that
// is not valid JSON: "offset N: not valid JSON (<parser's words>)".
#pragma once

#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

namespace rubato {

// `byte`: the parser's offset when it has one. Its other errors (a number too
// large for a double, found by fuzzing) only quote the offending text: the
// offset is then where that text first appears in `text` (0 if nowhere).
std::string json_syntax_error(std::string_view text, std::string_view what, std::optional<std::size_t> byte);

// The same for what nlohmann's parser threw (any json::exception; a
// json::parse_error gives its offset): one catch after json::parse.
std::string json_syntax_error(std::string_view text, const std::exception& parser_error);

}  // namespace rubato
