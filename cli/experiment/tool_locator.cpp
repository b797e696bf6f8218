#include "experiment/tool_locator.hpp"

#include <filesystem>

#ifndef RUBATO_INSTALL_LIBDIR
#define RUBATO_INSTALL_LIBDIR "lib"
#endif

namespace rubato::cli {

namespace fs = std::filesystem;

std::string executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

std::vector<std::string> ompt_tool_candidates(const std::string& exe_dir) {
  const fs::path dir(exe_dir);
  std::vector<std::string> out{(dir / ".." / "frontends" / "ompt" / "librubato_ompt.so").lexically_normal().string(),
                               (dir / ".." / RUBATO_INSTALL_LIBDIR / "librubato_ompt.so").lexically_normal().string()};
  const std::string plain_lib = (dir / ".." / "lib" / "librubato_ompt.so").lexically_normal().string();
  if (plain_lib != out.back()) out.push_back(plain_lib);
  return out;
}

std::optional<std::string> find_ompt_tool(const std::string& exe_dir) {
  for (const std::string& c : ompt_tool_candidates(exe_dir)) {
    std::error_code ec;
    if (fs::is_regular_file(c, ec)) return fs::absolute(c, ec).string();
  }
  return std::nullopt;
}

}  // namespace rubato::cli
