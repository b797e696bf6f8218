#include "rubato/core/io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rubato {

std::FILE* open_output_file(const std::string& path, std::string& why) {
  // O_NONBLOCK: opening a FIFO without a reader must not wait (it is refused below).
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int err = errno;
    // ELOOP: O_NOFOLLOW met a link; ENXIO: a FIFO without a reader (or a device without its driver).
    const std::string reason = err == ELOOP   ? "is a symbolic link; refused"
                               : err == ENXIO ? "not a regular file; refused"
                                              : std::strerror(err);
    why = "'" + path + "': " + reason;
    return nullptr;
  }
  struct stat st {};
  std::string refused;
  if (::fstat(fd, &st) != 0) refused = std::strerror(errno);
  else if (!S_ISREG(st.st_mode)) refused = "not a regular file; refused";
  else if (st.st_nlink > 1) refused = "has other hard links; refused";
  else if (st.st_uid != ::geteuid()) refused = "owned by uid " + std::to_string(st.st_uid) + "; refused";
  else if (::fcntl(fd, F_SETFL, 0) != 0 || ::ftruncate(fd, 0) != 0) refused = std::strerror(errno);
  std::FILE* f = refused.empty() ? ::fdopen(fd, "w") : nullptr;
  if (!f) {
    if (refused.empty()) refused = std::strerror(errno);
    ::close(fd);
    why = "'" + path + "': " + refused;
  }
  return f;
}

}  // namespace rubato
