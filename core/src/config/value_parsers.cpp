#include "config/value_parsers.hpp"

#include <charconv>
#include <cmath>

namespace rubato::detail {

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool parse_int(std::string_view s, long long lo, long long hi, long long& out) {
  s = trim(s);
  long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi) return false;
  out = v;
  return true;
}

bool parse_double(std::string_view s, double lo, double hi, double& out) {
  s = trim(s);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) || v < lo || v > hi)
    return false;
  out = v;
  return true;
}

bool parse_duration_s(std::string_view s, double lo_s, double hi_s, double& out_s) {
  s = trim(s);
  double scale = 1;
  auto strip = [&](std::string_view suffix, double f) {
    if (s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix) {
      s.remove_suffix(suffix.size());
      scale = f;
      return true;
    }
    return false;
  };
  strip("ns", 1e-9) || strip("us", 1e-6) || strip("ms", 1e-3) || strip("s", 1.0);
  double v = 0;
  if (!parse_double(s, 0, 1e12, v)) return false;
  v *= scale;
  if (v < lo_s || v > hi_s) return false;
  out_s = v;
  return true;
}

bool parse_bool(std::string_view s, bool& out) {
  s = trim(s);
  if (s == "1" || s == "true" || s == "yes" || s == "on") return out = true, true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return out = false, true;
  return false;
}

}  // namespace rubato::detail
