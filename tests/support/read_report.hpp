// The report a run wrote, read back with rubato's own reader: the tests check
// fields, not the layout of the JSON text.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "rubato/core/io/report.hpp"
#include "child_process.hpp"

namespace rubato::test {

// nullopt when the file is missing or unreadable; `error` says why.
inline std::optional<Report> read_report(const std::string& path, std::string& error) {
  auto r = report_from_json(read_file(path), error);
  if (!r) error = path + ": " + error;
  return r;
}

inline std::optional<Report> read_report(const std::string& path) {
  std::string error;
  return read_report(path, error);
}

// The same for a checker program: why it failed goes to stderr.
inline std::optional<Report> read_report_or_say(const std::string& path) {
  std::string error;
  auto r = read_report(path, error);
  if (!r) std::fprintf(stderr, "%s\n", error.c_str());
  return r;
}

// True when `r` has a note containing `text`.
inline bool has_note(const Report& r, const std::string& text) {
  for (const auto& n : r.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace rubato::test
