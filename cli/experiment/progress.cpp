#include "experiment/progress.hpp"

#include <cmath>

namespace rubato::cli {

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return "?";
  const long s = std::lround(seconds);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

std::string progress_bar_line(std::size_t done, std::size_t total, const RunSpec& next, int trials, double eta_s,
                              int width) {
  const std::size_t filled = total ? done * static_cast<std::size_t>(width) / total : 0;
  std::string bar = "[" + std::string(filled, '#') + std::string(static_cast<std::size_t>(width) - filled, '.') + "]";
  char buf[256];
  std::snprintf(buf, sizeof buf, " %zu/%zu  trial %d/%d  %s  %d worker%s  ETA %s", done, total, next.trial + 1, trials,
                next.policy.c_str(), next.workers, next.workers == 1 ? "" : "s", format_duration(eta_s).c_str());
  return bar + buf;
}

Progress::Progress(std::size_t total, int trials, bool terminal, std::FILE* out)
    : total_(total), trials_(trials), terminal_(terminal), out_(out) {}

void Progress::starting(std::size_t index, const RunSpec& run) {
  if (!terminal_) return;
  const double eta = finished_ ? spent_s_ / static_cast<double>(finished_) * static_cast<double>(total_ - index) : -1;
  std::fprintf(out_, "\r%s\033[K", progress_bar_line(index, total_, run, trials_, eta).c_str());
  std::fflush(out_);
  bar_drawn_ = true;
}

void Progress::finished(std::size_t index, const RunSpec& run, double elapsed_s, const std::string& outcome,
                        bool failed) {
  spent_s_ += elapsed_s;
  ++finished_;
  if (terminal_ && !failed) return;  // the bar shows it
  if (terminal_) std::fprintf(out_, "\r\033[K");
  std::fprintf(out_, "rubato run: [%zu/%zu] trial %d/%d %s workers=%d: %s\n", index + 1, total_, run.trial + 1, trials_,
               run.policy.c_str(), run.workers, outcome.c_str());
  std::fflush(out_);
}

void Progress::close() {
  if (terminal_ && bar_drawn_) std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
}

}  // namespace rubato::cli
