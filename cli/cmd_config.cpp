// `rubato config`: the configuration table (the same one the parser uses).
#include <cstdio>

#include "args.hpp"
#include "commands.hpp"
#include "rubato/core/config_table.hpp"

namespace rubato::cli {

const CommandSpec& config_spec() {
  static const CommandSpec spec{
      "config",
      "list every RUBATO_* variable and config-file key with its default",
      "",
      "",
      {
          {"markdown", kOutputFormat, "a Markdown table (as docs/configuration.md has it)", "", "", ""},
      },
      "",
  };
  return spec;
}

namespace {
struct ConfigOptions {
  bool markdown = false;
};

// A table cell: '|' would end the cell, '<' '>' would read as HTML.
std::string markdown_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

ConfigOptions setup(const std::vector<std::string>& argv) {
  Args a(argv, config_spec());
  if (!a.positionals().empty()) throw UsageError("unexpected argument '" + a.positionals().front() + "'");
  return {a.flag("markdown")};
}
}  // namespace

int run_config(const std::vector<std::string>& argv) {
  const ConfigOptions o = setup(argv);
  if (o.markdown) {
    std::printf("| variable | file key | default | accepted | meaning |\n|---|---|---|---|---|\n");
    for (const auto& k : config_keys())
      std::printf("| `%s` | `%s` | `%s` | %s | %s |\n", markdown_cell(k.env).c_str(), markdown_cell(k.file_key).c_str(),
                  markdown_cell(k.default_text).c_str(), markdown_cell(k.accepted).c_str(),
                  markdown_cell(k.description).c_str());
    return 0;
  }
  for (const auto& k : config_keys())
    std::printf("%-26.*s %-18.*s default %.*s\n    %.*s\n    accepted: %.*s\n", int(k.env.size()), k.env.data(),
                int(k.file_key.size()), k.file_key.data(), int(k.default_text.size()), k.default_text.data(),
                int(k.description.size()), k.description.data(), int(k.accepted.size()), k.accepted.data());
  std::printf(
      "\nRUBATO_CONFIG=<file> reads 'key = value' lines (file keys above, '#' comments); the environment wins.\n");
  return 0;
}

}  // namespace rubato::cli
