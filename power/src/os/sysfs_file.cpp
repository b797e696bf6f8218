#include "os/sysfs_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

namespace rubato {

long read_small(const char* path, char* buf, std::size_t cap) noexcept {
  // O_NONBLOCK: a FIFO planted in the tree must not hang the program (sysfs files ignore it).
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return -1;
  std::size_t got = 0;
  while (got + 1 < cap) {
    const ssize_t n = ::read(fd, buf + got, cap - 1 - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  buf[got] = '\0';
  return static_cast<long>(got);
}

bool write_exact(const char* path, const char* data, std::size_t len) noexcept {
  const int fd = ::open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return false;
  std::size_t put = 0;
  while (put < len) {
    const ssize_t n = ::write(fd, data + put, len - put);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    put += static_cast<std::size_t>(n);
  }
  return ::close(fd) == 0 && put == len;
}

long long leading_integer(const char* text) noexcept {
  long long v = 0;
  bool any = false;
  for (; *text >= '0' && *text <= '9'; ++text, any = true) v = v * 10 + (*text - '0');
  return any ? v : -1;
}

bool write_text(const std::string& path, const std::string& text) {
  return write_exact(path.c_str(), text.data(), text.size());
}

long long read_khz(const std::string& path) {
  char buf[64];
  return read_small(path.c_str(), buf, sizeof buf) > 0 ? leading_integer(buf) : -1;
}

bool read_sysfs_value(const std::string& path, std::string& out) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
    if (!line.empty()) {
      out = line;
      return true;
    }
  }
  out.clear();
  return !in.bad();
}

}  // namespace rubato
