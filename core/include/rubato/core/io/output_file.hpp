// Opening a file the user named for output (the report, the task trace)
// without letting the path turn the host process against its machine: the
// file is created or truncated only if it is a plain file of ours — never
// through a symbolic link (a link planted at a predictable /tmp name), never
// a file with other hard links, owned by another user, a FIFO (which would
// block the program at exit) or a device. See tests/RELIABILITY.md, "Security".
#pragma once

#include <cstdio>
#include <string>

namespace rubato {

// A stream open for writing from the start of the file, or nullptr and `why`
// (one line, naming the path).
std::FILE* open_output_file(const std::string& path, std::string& why);

}  // namespace rubato
