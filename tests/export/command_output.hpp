// A shell command's standard output, for the export tests that read an
// archive back with otf2-print or the OTF2 Python bindings; "FAILED: " in
// front when the command did not exit 0.
#pragma once

#include <cstdio>
#include <string>

namespace rubato::test {

inline std::string run_output(const std::string& command) {
  std::string out;
  if (std::FILE* p = popen(command.c_str(), "r")) {
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    if (pclose(p) != 0) out = "FAILED: " + out;
  }
  return out;
}

}  // namespace rubato::test
