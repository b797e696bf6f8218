// A private temporary directory (0700), removed with everything in it at scope
// end: where tests put state files, reports and a program's output, never the
// working directory.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace rubato::test {

class TempDir {
 public:
  // `base`: where the directory goes (/dev/shm gives tmpfs); `prefix`: its name's start.
  explicit TempDir(const std::string& base = "/tmp", const std::string& prefix = "rubato-test") {
    std::string tmpl = base + "/" + prefix + "-XXXXXX";
    const char* made = ::mkdtemp(tmpl.data());
    path_ = made ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // `name` inside the directory.
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace rubato::test
