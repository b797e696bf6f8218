// libFuzzer target: the report reader (rubato compare / report). Invariants:
// a refused report says where ("offset N: ..."); an accepted one survives a
// round trip: written again and read back, it is the same document.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "rubato/core/io/report.hpp"

using namespace rubato;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto report = report_from_json(text, error);
  if (!report) {
    fuzz::require(error.rfind("offset ", 0) == 0, "a refused report names the offset");
    return 0;
  }
  const std::string once = to_json(*report);
  std::string again_error;
  const auto again = report_from_json(once, again_error);
  fuzz::require(again.has_value(), "a report rubato wrote can be read back");
  fuzz::require(to_json(*again) == once, "writing, reading and writing again gives the same document");
  return 0;
}
