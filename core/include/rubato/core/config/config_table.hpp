// The one table of configuration keys: environment name, file key, accepted
// values, default and meaning. The parser applies it; `rubato info` and the
// README print it.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "rubato/core/config/settings.hpp"

namespace rubato {

struct ConfigKey {
  std::string_view env;           // RUBATO_POLICY
  std::string_view file_key;      // policy
  std::string_view default_text;  // as the user would write it
  std::string_view accepted;      // what the parser takes, for error messages
  std::string_view description;
  // Parses `value` into `out`; on failure returns false and leaves `out` alone.
  bool (*apply)(Settings& out, std::string_view value, std::string& why);
};

std::span<const ConfigKey> config_keys();
const ConfigKey* find_config_key_by_env(std::string_view env);
const ConfigKey* find_config_key_by_file_key(std::string_view key);

}  // namespace rubato
