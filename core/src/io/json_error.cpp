#include "rubato/core/io/json_error.hpp"

#include <nlohmann/json.hpp>

namespace rubato {

std::string json_syntax_error(std::string_view text, std::string_view what, std::optional<std::size_t> byte) {
  std::size_t at = 0;
  if (byte) {
    at = *byte;
  } else if (const std::size_t open = what.find('\''); open != std::string_view::npos) {
    const std::size_t close = what.find('\'', open + 1);
    if (close != std::string_view::npos && close > open + 1) {
      const std::size_t found = text.find(what.substr(open + 1, close - open - 1));
      if (found != std::string_view::npos) at = found;
    }
  }
  return "offset " + std::to_string(at) + ": not valid JSON (" + std::string(what) + ")";
}

std::string json_syntax_error(std::string_view text, const std::exception& parser_error) {
  std::optional<std::size_t> byte;
  if (const auto* e = dynamic_cast<const nlohmann::json::parse_error*>(&parser_error)) byte = e->byte;
  return json_syntax_error(text, parser_error.what(), byte);
}

}  // namespace rubato
