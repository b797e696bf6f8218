// libFuzzer target: the configuration parser. The input is read as a
// RUBATO_CONFIG document (apply_config_text) and, line by line, as
// NAME=VALUE environment entries (load_settings). Invariant: every message is
// one printable line starting "rubato: " (values are shown shortened and
// cleaned: they reach the user's terminal).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "rubato/core/config/settings.hpp"

using namespace rubato;

namespace {

void check_messages(const Diagnostics& diag) {
  for (const std::string& line : diag.lines) {
    fuzz::require(line.rfind("rubato: ", 0) == 0, "message starts with 'rubato: '");
    fuzz::require(fuzz::one_printable_line(line), "message is one printable line");
    fuzz::require(line.size() < 2048, "message is short");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Settings from_file;
  Diagnostics file_diag;
  apply_config_text(text, "fuzz.conf", from_file, file_diag);
  check_messages(file_diag);

  Environment env;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string name(line.substr(0, eq));
    if (name.rfind("RUBATO_", 0) != 0) name = "RUBATO_" + name;
    if (name == "RUBATO_CONFIG") continue;  // would read a file named by the input
    env.emplace_back(std::move(name), std::string(line.substr(eq + 1)));
  }
  Diagnostics env_diag;
  const Settings from_env = load_settings(env, env_diag);
  check_messages(env_diag);
  fuzz::require(from_env.max_workers >= 1 && from_env.max_workers <= 4096, "max_workers in range");
  fuzz::require(from_env.thresholds >= 1 && from_env.thresholds <= 8, "thresholds in range");
  return 0;
}
