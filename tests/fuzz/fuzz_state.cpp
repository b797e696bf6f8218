// libFuzzer target: the state-file reader behind `rubato restore`.
// Invariants: a refused file says where ("line N (offset M): ..." or
// "truncated at offset M"); an accepted one round-trips; validation against a
// root never accepts a policy directory outside that root's cpufreq tree.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "rubato/power/state/state_file.hpp"

using namespace rubato;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why;
  const auto state = decode_state(text, why);
  if (!state) {
    fuzz::require(why.find("offset ") != std::string::npos, "a refused state file names the offset");
    return 0;
  }
  const std::string encoded = encode_state(*state);
  std::string again_why;
  const auto again = decode_state(encoded, again_why);
  fuzz::require(again.has_value(), "an encoded state decodes");
  fuzz::require(encode_state(*again) == encoded, "encoding is stable");
  const std::string root = "/nonexistent-fuzz-root";
  if (validate_state(*state, root, why))
    for (const SavedPolicy& p : state->policies)
      fuzz::require(p.dir.rfind(root + "/devices/system/cpu/", 0) == 0 && p.dir.find("/../") == std::string::npos,
                    "a validated policy directory lies in the root's cpu tree");
  return 0;
}
