#include "commands.hpp"

namespace rubato::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"config", "list every RUBATO_* variable and config-file key with its default",
       "rubato config [--markdown]", run_config},
  };
  return table;
}

}  // namespace rubato::cli
