#include "experiment/likwid_csv.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace rubato::cli {
namespace {

std::vector<std::string> split_csv_line(std::string_view line) {
  // likwid never quotes; trailing padding commas are dropped.
  std::vector<std::string> cells;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    cells.emplace_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  while (!cells.empty() && cells.back().empty()) cells.pop_back();
  return cells;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::optional<double> number(const std::string& cell) {
  double v = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (cell.empty() || ec != std::errc() || end != cell.data() + cell.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

bool LikwidTable::is_metric() const { return title.size() >= 6 && title.compare(title.size() - 6, 6, "Metric") == 0; }

std::optional<LikwidOutput> parse_likwid_csv(std::string_view text, std::string& error) {
  error.clear();
  LikwidOutput out;
  LikwidTable* table = nullptr;
  std::size_t declared = 0;
  std::size_t line_no = 0, table_line = 0;
  int info_left = 0;
  bool seen_struct = false;
  auto close_table = [&]() -> bool {
    if (!table) return true;
    if (table->header.empty() || table->rows.size() != declared) {
      error = "line " + std::to_string(table_line) + ": table '" + table->title + "' declares " +
              std::to_string(declared) + " rows but has " + std::to_string(table->rows.size()) +
              (table->header.empty() ? " and no header" : "") + " (truncated output?)";
      return false;
    }
    table = nullptr;
    return true;
  };
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const std::vector<std::string> cells = split_csv_line(line);
    if (starts_with(line, "STRUCT,")) {
      if (!close_table()) return std::nullopt;
      seen_struct = true;
      info_left = cells.size() > 2 ? static_cast<int>(number(cells[2]).value_or(0)) : 0;
      continue;
    }
    if (info_left > 0) {
      --info_left;
      if (cells.size() >= 2 && cells[0] == "CPU name:") out.cpu_name = cells[1];
      if (cells.size() >= 2 && cells[0] == "CPU type:") out.cpu_type = cells[1];
      continue;
    }
    if (starts_with(line, "TABLE,")) {
      if (!close_table()) return std::nullopt;
      // TABLE,<title parts…>,<GROUP>,<rows>; a region adds a title part in front.
      if (cells.size() < 4) {
        error = "line " + std::to_string(line_no) + ": TABLE line needs a title, a group and a row count";
        return std::nullopt;
      }
      const auto rows = number(cells.back());
      if (!rows || *rows < 0) {
        error = "line " + std::to_string(line_no) + ": TABLE row count '" + cells.back() + "' is not a number";
        return std::nullopt;
      }
      LikwidTable t;
      for (std::size_t i = 1; i + 2 < cells.size(); ++i) t.title += (i > 1 ? "," : "") + cells[i];
      t.group = cells[cells.size() - 2];
      out.tables.push_back(std::move(t));
      table = &out.tables.back();
      declared = static_cast<std::size_t>(*rows);
      table_line = line_no;
      continue;
    }
    if (!table) continue;  // text around the CSV (e.g. the program's own output)
    if (table->header.empty()) {
      // Region runs print an info block (per-HWThread runtime and call count) before the header.
      if (cells.empty() || (cells[0] != "Event" && cells[0] != "Metric")) continue;
      table->header = cells;
      continue;
    }
    // Past the declared rows: text that is not likwid's (e.g. the program's output).
    if (table->rows.size() < declared) table->rows.push_back(cells);
  }
  if (!close_table()) return std::nullopt;
  if (!seen_struct && out.tables.empty()) {
    error = "line 1: no likwid tables (expected 'STRUCT,Info,3' and 'TABLE,…' lines from likwid-perfctr -O)";
    return std::nullopt;
  }
  return out;
}

std::string likwid_key(std::string_view metric) {
  std::string key = "likwid.";
  bool pending_sep = false;
  for (std::size_t i = 0; i < metric.size(); ++i) {
    const char c = metric[i];
    if (std::isalnum(static_cast<unsigned char>(c))) {
      if (pending_sep && key.back() != '.') key += '_';
      pending_sep = false;
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (c == '/') {
      key += key.back() == '.' ? "per_" : "_per";
      pending_sep = true;
    } else {
      pending_sep = true;
    }
  }
  return key;
}

std::map<std::string, double> likwid_figures(const LikwidOutput& out) {
  std::map<std::string, double> figures;
  for (const LikwidTable& t : out.tables) {
    if (!t.is_metric()) continue;
    // A region's figures are its own: prefix them with the region tag.
    std::string prefix;
    if (starts_with(t.title, "Region ")) prefix = t.title.substr(7, t.title.find(',') - 7) + ".";
    for (const auto& row : t.rows) {
      if (row.empty()) continue;
      const std::string name = lower(row[0]);
      const bool is_runtime = name.find("runtime (rdtsc)") != std::string::npos;
      const bool summed = name.find("energy") != std::string::npos || name.find("power") != std::string::npos ||
                          name.find("bandwidth") != std::string::npos || name.find("data volume") != std::string::npos;
      if (!is_runtime && !summed) continue;
      std::optional<double> value;
      for (std::size_t i = 1; i < row.size(); ++i) {
        const auto v = number(row[i]);
        if (!v) continue;
        value = is_runtime ? std::max(value.value_or(*v), *v) : value.value_or(0.0) + *v;
      }
      if (!value) continue;
      std::string key = likwid_key(row[0]);
      key.insert(7, prefix);
      figures[key] = *value;
    }
  }
  return figures;
}

}  // namespace rubato::cli
