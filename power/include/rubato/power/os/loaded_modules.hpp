// The modules (executable, shared libraries) loaded in this process, for the
// trace's module table: what a task's code address is resolved against after
// the process is gone (docs/trace-format.md "Module table"). Called once, at
// exit, never on a task's path; shared by the front-ends that record traces.
#pragma once

#include <vector>

#include "rubato/core/io/trace.hpp"

namespace rubato {

// Every loaded module with at least one loadable segment, the executable
// first (as many as memory allows).
std::vector<TraceModule> loaded_modules() noexcept;

}  // namespace rubato
