// A plain-text table with columns sized to their widest cell (UTF-8 aware, so
// "±" counts as one column), for terminal output.
#pragma once

#include <string>
#include <vector>

namespace rubato::cli {

class TextTable {
 public:
  // `right_aligned[i]`: column i is numeric (aligned right).
  TextTable(std::vector<std::string> header, std::vector<bool> right_aligned);
  void add_row(std::vector<std::string> cells);
  std::string render(const std::string& indent = "") const;

 private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

// Display columns of a UTF-8 string (code points; rubato's output has no wide glyphs).
std::size_t display_width(const std::string& s);

}  // namespace rubato::cli
