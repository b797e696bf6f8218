// rubato: the command line. Dispatches to one subcommand; any error becomes a
// message and a non-zero exit status (2 for usage, 1 for failures).
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "commands/args.hpp"
#include "commands/commands.hpp"
#include "rubato/core/version.hpp"

namespace {

void print_help() {
  std::printf(
      "rubato %s — energy-aware tempo layer for task-parallel programs\n\nusage: rubato <command> [options]\n\n",
      rubato::kVersion);
  for (const auto& c : rubato::cli::commands())
    std::printf("  %-10s %s\n", c.spec().name.c_str(), c.spec().summary.c_str());
  std::printf(
      "\n  rubato <command> --help   shows a command's options\n"
      "  attach to OpenMP programs: OMP_TOOL_LIBRARIES=/path/librubato_ompt.so ./app\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
    print_help();
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version") || !std::strcmp(argv[1], "version")) {
    std::printf("rubato %s\n", rubato::kVersion);
    return 0;
  }
  const std::string name = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& c : rubato::cli::commands()) {
    const rubato::cli::CommandSpec& spec = c.spec();
    if (name != spec.name) continue;
    bool wants_help = false;
    for (const auto& a : args) {
      if (a == "--") break;
      wants_help |= a == "--help" || a == "-h";
    }
    if (wants_help) {
      std::fputs(rubato::cli::help_text(spec).c_str(), stdout);
      return 0;
    }
    try {
      return c.run(args);
    } catch (const rubato::cli::UsageError& e) {
      std::fprintf(stderr, "rubato %s: %s\n(rubato %s --help lists the options)\n", spec.name.c_str(), e.what(),
                   spec.name.c_str());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rubato %s: %s\n", spec.name.c_str(), e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "rubato: unknown command '%s' (rubato --help lists them)\n", name.c_str());
  return 2;
}
