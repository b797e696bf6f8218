// liblikwid is loaded on first use (likwid_library.cpp): whether it could be.
#pragma once

#include <string>

namespace rubato {

// Loads the library if not yet done; false with the reason when it cannot be.
bool likwid_library_usable(std::string& why);

}  // namespace rubato
