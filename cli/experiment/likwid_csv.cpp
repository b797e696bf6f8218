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

namespace {

// likwid-perfctr -O output, line by line: STRUCT blocks (the CPU's name and
// type), then TABLE blocks (a header and the declared number of rows).
class LikwidParser {
 public:
  explicit LikwidParser(std::string& error) : error_(error) {}

  // False (and the error) when the line shows that the text is not likwid CSV.
  bool add_line(std::string_view line) {
    ++line_no_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) return true;
    const std::vector<std::string> cells = split_csv_line(line);
    if (starts_with(line, "STRUCT,")) {
      if (!close_table()) return false;
      seen_struct_ = true;
      info_left_ = cells.size() > 2 ? static_cast<int>(number(cells[2]).value_or(0)) : 0;
      return true;
    }
    if (info_left_ > 0) {
      --info_left_;
      if (cells.size() >= 2 && cells[0] == "CPU name:") out_.cpu_name = cells[1];
      if (cells.size() >= 2 && cells[0] == "CPU type:") out_.cpu_type = cells[1];
      return true;
    }
    if (starts_with(line, "TABLE,")) return close_table() && open_table(cells);
    if (!table_) return true;  // text around the CSV (e.g. the program's own output)
    if (table_->header.empty()) {
      // Region runs print an info block (per-HWThread runtime and call count) before the header.
      if (!cells.empty() && (cells[0] == "Event" || cells[0] == "Metric")) table_->header = cells;
      return true;
    }
    // Past the declared rows: text that is not likwid's (e.g. the program's output).
    if (table_->rows.size() < declared_) table_->rows.push_back(cells);
    return true;
  }

  std::optional<LikwidOutput> finish() {
    if (!close_table()) return std::nullopt;
    if (!seen_struct_ && out_.tables.empty()) {
      error_ = "line 1: no likwid tables (expected 'STRUCT,Info,3' and 'TABLE,…' lines from likwid-perfctr -O)";
      return std::nullopt;
    }
    return std::move(out_);
  }

 private:
  bool close_table() {
    if (!table_) return true;
    if (table_->header.empty() || table_->rows.size() != declared_) {
      error_ = "line " + std::to_string(table_line_) + ": table '" + table_->title + "' declares " +
               std::to_string(declared_) + " rows but has " + std::to_string(table_->rows.size()) +
               (table_->header.empty() ? " and no header" : "") + " (truncated output?)";
      return false;
    }
    table_ = nullptr;
    return true;
  }

  // TABLE,<title parts…>,<GROUP>,<rows>; a region adds a title part in front.
  bool open_table(const std::vector<std::string>& cells) {
    if (cells.size() < 4) {
      error_ = "line " + std::to_string(line_no_) + ": TABLE line needs a title, a group and a row count";
      return false;
    }
    const auto rows = number(cells.back());
    if (!rows || *rows < 0) {
      error_ = "line " + std::to_string(line_no_) + ": TABLE row count '" + cells.back() + "' is not a number";
      return false;
    }
    LikwidTable t;
    for (std::size_t i = 1; i + 2 < cells.size(); ++i) t.title += (i > 1 ? "," : "") + cells[i];
    t.group = cells[cells.size() - 2];
    out_.tables.push_back(std::move(t));
    table_ = &out_.tables.back();
    declared_ = static_cast<std::size_t>(*rows);
    table_line_ = line_no_;
    return true;
  }

  std::string& error_;
  LikwidOutput out_;
  LikwidTable* table_ = nullptr;
  std::size_t declared_ = 0;
  std::size_t line_no_ = 0, table_line_ = 0;
  int info_left_ = 0;
  bool seen_struct_ = false;
};

}  // namespace

std::optional<LikwidOutput> parse_likwid_csv(std::string_view text, std::string& error) {
  error.clear();
  LikwidParser parser(error);
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const auto nl = text.find('\n', pos);
    const std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    if (!parser.add_line(line)) return std::nullopt;
  }
  return parser.finish();
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
