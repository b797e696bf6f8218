// N-frequency tempo control ([HERMES] §3.4): the frequencies f1 > f2 > ... > fN
// the runtime uses, and the UP / DOWN moves between them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rubato/core/base/types.hpp"

namespace rubato {

class TempoLadder {
 public:
  // `frequencies_hz` in any order; stored strictly descending, duplicates removed.
  // Throws std::invalid_argument when empty, non-positive or longer than kMaxLevels.
  explicit TempoLadder(std::vector<double> frequencies_hz);

  // The paper's 2-level heuristic: the fastest available frequency and the
  // available one closest to 0.6 x fastest ([HERMES] §4.2, "golden ratio").
  // With no available list, 0.6 x f_max itself.
  static TempoLadder paper_default(const std::vector<double>& available_hz);

  // Every available level, thinned evenly (fastest and slowest kept) to
  // kMaxLevels: min-energy searches for the pair of least energy, and a
  // two-level ladder can hold it out of reach (a memory phase whose best core
  // level is neither f_max nor 0.6 x f_max). With fewer than two distinct
  // levels, paper_default.
  static TempoLadder spanning(const std::vector<double>& available_hz);

  // The ladder a policy gets when RUBATO_FREQS / --freqs is not given:
  // spanning where it searches for the least energy, else paper_default.
  static TempoLadder default_for(bool searches_least_energy, const std::vector<double>& available_hz);

  int levels() const noexcept { return static_cast<int>(hz_.size()); }
  Level fastest() const noexcept { return 0; }
  Level slowest() const noexcept { return levels() - 1; }
  double hz(Level level) const { return hz_.at(static_cast<std::size_t>(level)); }
  double max_hz() const noexcept { return hz_.front(); }
  const std::vector<double>& frequencies_hz() const noexcept { return hz_; }

  // UP(w): one level faster unless already at f1.
  Level up(Level current) const noexcept { return current > 0 ? current - 1 : current; }
  // DOWN(w): one level slower unless already at fN.
  Level down(Level current) const noexcept { return current < slowest() ? current + 1 : current; }
  // DOWN(w, v): one level below the victim's *current* level when the victim is
  // not at fN; otherwise the thief stays where it is ([HERMES] §3.4).
  Level down_from(Level thief_current, Level victim_current) const noexcept {
    return victim_current < slowest() ? victim_current + 1 : thief_current;
  }

  // The level whose frequency is closest to `hz`.
  Level nearest_level(double hz) const noexcept;

 private:
  std::vector<double> hz_;
};

// Parses "2.4GHz,1600MHz,1400000kHz" (a unit is required). Returns false and sets
// `error` on the first bad element.
bool parse_frequency_list(std::string_view text, std::vector<double>& out_hz, std::string& error);
bool parse_frequency(std::string_view text, double& out_hz, std::string& error);
std::string format_frequency(double hz);

}  // namespace rubato
