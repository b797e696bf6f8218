// Messages for the user collected where they arise and printed by whoever owns
// stderr (the OMPT tool, the CLI). Core never prints.
#pragma once

#include <string>
#include <vector>

namespace rubato {

struct Diagnostics {
  std::vector<std::string> lines;
  void add(std::string line) { lines.push_back(std::move(line)); }
  bool empty() const noexcept { return lines.empty(); }
};

}  // namespace rubato
