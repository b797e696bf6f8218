// Runs a probe in a forked child and returns what it wrote: for libraries that
// may end the calling process (likwid's access-daemon mode exit()s it after a
// 10 s timeout when the daemon is missing). The child's stdout and stderr go
// to /dev/null; it is killed after `timeout_s`.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace rubato::detail {

// nullopt and `why` when the child could not run or gave no answer in time.
std::optional<std::string> run_forked_probe(const std::function<std::string()>& probe, double timeout_s,
                                            std::string& why);

}  // namespace rubato::detail
