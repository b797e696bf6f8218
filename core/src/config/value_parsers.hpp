// Strict parsers for configuration values: the whole text must be the value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rubato::detail {

std::string_view trim(std::string_view s) noexcept;
bool parse_int(std::string_view s, long long lo, long long hi, long long& out);
bool parse_double(std::string_view s, double lo, double hi, double& out);
// "10ms", "1.5s", "250us", "100ns"; a bare number is seconds.
bool parse_duration_s(std::string_view s, double lo_s, double hi_s, double& out_s);
bool parse_bool(std::string_view s, bool& out);

}  // namespace rubato::detail
