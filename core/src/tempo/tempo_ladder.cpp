#include "rubato/core/tempo/tempo_ladder.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace rubato {

TempoLadder::TempoLadder(std::vector<double> frequencies_hz) : hz_(std::move(frequencies_hz)) {
  if (hz_.empty()) throw std::invalid_argument("tempo ladder: no frequencies");
  for (double f : hz_)
    if (!(f > 0) || !std::isfinite(f)) throw std::invalid_argument("tempo ladder: frequencies must be positive");
  std::sort(hz_.begin(), hz_.end(), std::greater<>());
  hz_.erase(std::unique(hz_.begin(), hz_.end()), hz_.end());
  if (hz_.size() > static_cast<std::size_t>(kMaxLevels))
    throw std::invalid_argument("tempo ladder: at most " + std::to_string(kMaxLevels) + " frequencies");
}

TempoLadder TempoLadder::paper_default(const std::vector<double>& available_hz) {
  if (available_hz.empty()) throw std::invalid_argument("tempo ladder: no available frequencies");
  const double fmax = *std::max_element(available_hz.begin(), available_hz.end());
  const double want = 0.6 * fmax;
  if (available_hz.size() == 1) return TempoLadder({fmax, want});
  double best = fmax;
  for (double f : available_hz)
    if (f < fmax && (best == fmax || std::fabs(f - want) < std::fabs(best - want))) best = f;
  return TempoLadder({fmax, best});
}

TempoLadder TempoLadder::spanning(const std::vector<double>& available_hz) {
  std::vector<double> levels;
  for (double f : available_hz)
    if (f > 0 && std::isfinite(f)) levels.push_back(f);
  std::sort(levels.begin(), levels.end(), std::greater<>());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  if (levels.size() < 2) return paper_default(available_hz);
  if (levels.size() <= static_cast<std::size_t>(kMaxLevels)) return TempoLadder(std::move(levels));
  std::vector<double> thinned;
  const double step = static_cast<double>(levels.size() - 1) / (kMaxLevels - 1);
  for (int i = 0; i < kMaxLevels; ++i) thinned.push_back(levels[static_cast<std::size_t>(std::lround(i * step))]);
  return TempoLadder(std::move(thinned));
}

TempoLadder TempoLadder::default_for(bool searches_least_energy, const std::vector<double>& available_hz) {
  return searches_least_energy ? spanning(available_hz) : paper_default(available_hz);
}

Level TempoLadder::nearest_level(double hz) const noexcept {
  Level best = 0;
  for (Level l = 1; l < levels(); ++l)
    if (std::fabs(hz_[static_cast<std::size_t>(l)] - hz) < std::fabs(hz_[static_cast<std::size_t>(best)] - hz))
      best = l;
  return best;
}

bool parse_frequency(std::string_view text, double& out_hz, std::string& error) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  std::size_t unit_at = 0;
  while (unit_at < text.size() && (std::isdigit(static_cast<unsigned char>(text[unit_at])) || text[unit_at] == '.'))
    ++unit_at;
  const std::string number(text.substr(0, unit_at));
  std::string unit(text.substr(unit_at));
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size()) {
    error = "'" + std::string(text) + "' is not a frequency (e.g. 2.4GHz, 1600MHz, 1400000kHz)";
    return false;
  }
  double scale = 0;
  if (unit == "hz") scale = 1;
  else if (unit == "khz") scale = 1e3;
  else if (unit == "mhz") scale = 1e6;
  else if (unit == "ghz") scale = 1e9;
  else {
    error = "'" + std::string(text) + "' needs a unit: Hz, kHz, MHz or GHz (e.g. 2.4GHz)";
    return false;
  }
  out_hz = value * scale;
  if (!(out_hz >= 1e6 && out_hz <= 1e11)) {
    error = "'" + std::string(text) + "' is outside 1 MHz .. 100 GHz";
    return false;
  }
  return true;
}

bool parse_frequency_list(std::string_view text, std::vector<double>& out_hz, std::string& error) {
  std::vector<double> result;
  while (true) {
    const std::size_t comma = text.find(',');
    double hz = 0;
    if (!parse_frequency(text.substr(0, comma), hz, error)) return false;
    result.push_back(hz);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (result.size() > static_cast<std::size_t>(kMaxLevels)) {
    error = "at most " + std::to_string(kMaxLevels) + " frequencies";
    return false;
  }
  out_hz = std::move(result);
  return true;
}

std::string format_frequency(double hz) {
  char buf[32];
  if (hz >= 1e9) std::snprintf(buf, sizeof buf, "%gGHz", hz / 1e9);
  else std::snprintf(buf, sizeof buf, "%gMHz", hz / 1e6);
  return buf;
}

}  // namespace rubato
