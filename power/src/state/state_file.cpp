#include "rubato/power/state/state_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>

namespace rubato {
namespace {

constexpr std::size_t kMaxStateBytes = 1 << 20;
constexpr std::size_t kMaxContentBytes = 256;
constexpr std::string_view kMagic = "rubato-state 1";

std::string hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) out += digits[c >> 4], out += digits[c & 15];
  return out;
}

bool unhex(std::string_view text, std::string& out) {
  if (text.size() % 2) return false;
  out.clear();
  auto val = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int hi = val(text[i]), lo = val(text[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out += static_cast<char>(hi * 16 + lo);
  }
  return true;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// <root>/devices/system/cpu/cpufreq/policyN or <root>/devices/system/cpu/cpuN/cpufreq
bool is_policy_dir(const std::string& dir, const std::string& root) {
  if (dir.find("/../") != std::string::npos || dir.find("/./") != std::string::npos || dir.ends_with("/.."))
    return false;
  const std::string base = root + "/devices/system/cpu/";
  if (dir.rfind(base, 0) != 0) return false;
  const std::string_view rest = std::string_view(dir).substr(base.size());
  if (rest.rfind("cpufreq/policy", 0) == 0) return all_digits(rest.substr(14));
  if (rest.rfind("cpu", 0) == 0 && rest.ends_with("/cpufreq")) return all_digits(rest.substr(3, rest.size() - 3 - 8));
  return false;
}

// <root>/devices/system/cpu/intel_uncore_frequency/package_NN_die_NN or .../uncoreNN
bool is_uncore_dir(const std::string& dir, const std::string& root) {
  if (dir.find("/../") != std::string::npos || dir.find("/./") != std::string::npos || dir.ends_with("/.."))
    return false;
  const std::string base = root + "/devices/system/cpu/intel_uncore_frequency/";
  if (dir.rfind(base, 0) != 0) return false;
  const std::string_view rest = std::string_view(dir).substr(base.size());
  if (rest.rfind("uncore", 0) == 0) return all_digits(rest.substr(6));
  // package_00_die_00
  return rest.size() == 17 && rest.rfind("package_", 0) == 0 && all_digits(rest.substr(8, 2)) &&
         rest.substr(10, 5) == "_die_" && all_digits(rest.substr(15, 2));
}

// FNV-1a over the file's bytes before its "check" line: a state file damaged
// on disk is refused rather than written into cpufreq.
std::uint64_t checksum(std::string_view bytes) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string checksum_hex(std::string_view bytes) {
  const std::uint64_t h = checksum(bytes);
  std::string raw(8, '\0');
  for (int i = 0; i < 8; ++i) raw[static_cast<std::size_t>(i)] = static_cast<char>((h >> (56 - 8 * i)) & 0xff);
  return hex(raw);
}

// The policy directory as the kernel resolves it must still lie in the root's
// cpu tree: a symlink inside a (fake) tree that leads out of it is refused.
// Real sysfs passes: policyN is a directory, cpuN/cpufreq links to ../cpufreq/policyN.
// A directory that does not exist (an offline CPU) passes the lexical check
// alone: files are opened without O_CREAT, so nothing can be written there.
bool resolves_inside(const std::string& dir, const std::string& root, std::string& why) {
  using Resolved = std::unique_ptr<char, decltype(&std::free)>;
  Resolved real_dir(::realpath(dir.c_str(), nullptr), &std::free);
  if (!real_dir) {
    if (errno == ENOENT) return true;
    why = "'" + dir + "' cannot be resolved: " + std::strerror(errno);
    return false;
  }
  Resolved real_root(::realpath(root.c_str(), nullptr), &std::free);
  if (!real_root) {
    why = "'" + root + "' cannot be resolved: " + std::strerror(errno);
    return false;
  }
  const std::string base = std::string(real_root.get()) + "/devices/system/cpu/";
  if (std::string_view(real_dir.get()).rfind(base, 0) != 0) {
    why = "'" + dir + "' leads to '" + real_dir.get() + "', outside " + base;
    return false;
  }
  return true;
}

bool printable(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == '\n' || (c >= 0x20 && c < 0x7f); });
}

}  // namespace

std::span<const char* const> control_files(SavedKind kind) noexcept {
  if (kind == SavedKind::uncore) return kUncoreControlFiles;
  return kCpufreqControlFiles;
}

std::string default_state_dir() {
  if (geteuid() == 0) return "/run/rubato";
  const char* xdg = std::getenv("XDG_RUNTIME_DIR");
  return xdg && *xdg == '/' ? std::string(xdg) + "/rubato" : "";
}

bool prepare_state_dir(const std::string& dir, std::string& why) {
  if (dir.empty()) {
    why = "no state directory (not root and XDG_RUNTIME_DIR unset; set RUBATO_STATE_DIR)";
    return false;
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    why = "cannot create state directory " + dir + ": " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    why = "cannot inspect state directory " + dir + ": " + std::strerror(errno);
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    why = "state directory " + dir + " is not a directory (a symlink is refused)";
    return false;
  }
  if (st.st_uid != geteuid()) {
    why = "state directory " + dir + " is owned by uid " + std::to_string(st.st_uid) + ", not by us; refused";
    return false;
  }
  if ((st.st_mode & 077) != 0) {
    why = "state directory " + dir + " is accessible to other users (mode " + std::to_string((st.st_mode >> 6) & 7) +
          std::to_string((st.st_mode >> 3) & 7) + std::to_string(st.st_mode & 7) + "); it must be 0700";
    return false;
  }
  return true;
}

std::string encode_state(const MachineState& s) {
  std::ostringstream out;
  out << kMagic << "\nroot " << s.sysfs_root << "\npid " << s.pid << "\nbackend " << s.backend << "\n";
  for (const auto& p : s.policies) {
    out << (p.kind == SavedKind::uncore ? "uncore " : "policy ") << p.dir << "\n";
    const auto files = control_files(p.kind);
    for (std::size_t i = 0; i < p.content.size() && i < files.size(); ++i)
      out << "file " << files[i] << " " << hex(p.content[i]) << "\n";
  }
  std::string text = out.str();
  text += "check " + checksum_hex(text) + "\nend\n";
  return text;
}

std::optional<MachineState> decode_state(std::string_view text, std::string& why) {
  MachineState s;
  bool ended = false, checked = false;
  std::size_t line_no = 0, offset = 0, next = 0;
  const std::string_view all = text;
  auto fail = [&](const std::string& what) {
    why = "line " + std::to_string(line_no) + " (offset " + std::to_string(offset) + "): " + what;
    return std::nullopt;
  };
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    offset = next;
    next += line.size() + 1;
    ++line_no;
    if (nl == std::string_view::npos) return fail("truncated (the last line has no newline)");
    if (line_no == 1) {
      if (line != kMagic) return fail("not a rubato state file");
      continue;
    }
    if (ended) return fail("text after 'end'");
    const std::size_t sp = line.find(' ');
    const std::string_view key = line.substr(0, sp);
    const std::string_view value = sp == std::string_view::npos ? std::string_view{} : line.substr(sp + 1);
    if (checked && key != "end") return fail("text after the checksum");
    if (key == "root") s.sysfs_root = value;
    else if (key == "pid") {
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), s.pid);
      if (ec != std::errc() || end != value.data() + value.size()) return fail("bad pid");
    } else if (key == "backend") s.backend = value;
    else if (key == "policy") s.policies.push_back({std::string(value), {}, SavedKind::cpufreq});
    else if (key == "uncore") s.policies.push_back({std::string(value), {}, SavedKind::uncore});
    else if (key == "file") {
      if (s.policies.empty()) return fail("'file' before any 'policy'");
      auto& p = s.policies.back();
      const std::size_t sp2 = value.find(' ');
      const std::string_view name = value.substr(0, sp2);
      const auto files = control_files(p.kind);
      if (p.content.size() >= files.size() || name != files[p.content.size()])
        return fail("unexpected file '" + std::string(name) + "'");
      std::string bytes;
      if (sp2 == std::string_view::npos || !unhex(value.substr(sp2 + 1), bytes)) return fail("bad content encoding");
      p.content.push_back(std::move(bytes));
    } else if (key == "check") {
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION  // fuzzing: mutated inputs reach the rest of the parser
      if (value != checksum_hex(all.substr(0, offset))) return fail("checksum mismatch: the file is damaged");
#endif
      checked = true;
    } else if (key == "end") {
      if (!checked) return fail("no checksum before 'end'");
      ended = true;
    } else if (!line.empty()) return fail("unknown key '" + std::string(key) + "'");
  }
  if (!ended) {
    why = "truncated at offset " + std::to_string(all.size()) + " (no 'end' line)";
    return std::nullopt;
  }
  return s;
}

bool validate_state(const MachineState& s, const std::string& sysfs_root, std::string& why) {
  if (s.sysfs_root != sysfs_root) {
    why = "saved for sysfs root '" + s.sysfs_root + "', not '" + sysfs_root + "' (set RUBATO_SYSFS_ROOT)";
    return false;
  }
  for (const auto& p : s.policies) {
    const bool uncore = p.kind == SavedKind::uncore;
    if (uncore ? !is_uncore_dir(p.dir, sysfs_root) : !is_policy_dir(p.dir, sysfs_root)) {
      why = "'" + p.dir + "' is not " + (uncore ? "an intel_uncore_frequency domain" : "a cpufreq policy") +
            " directory under " + sysfs_root;
      return false;
    }
    if (!resolves_inside(p.dir, sysfs_root, why)) return false;
    if (p.content.size() != control_files(p.kind).size()) {
      why = p.dir + ": expected " + std::to_string(control_files(p.kind).size()) + " saved files";
      return false;
    }
    for (const auto& c : p.content)
      if (c.size() > kMaxContentBytes || !printable(c)) {
        why = p.dir + ": saved content is not a short printable value";
        return false;
      }
  }
  return true;
}

bool write_state_file(const std::string& dir, const MachineState& s, std::string& path, std::string& why,
                      std::string_view prefix) {
  path = dir + "/" + std::string(prefix) + "-" + std::to_string(s.pid) + ".state";
  // A file left by an earlier process with our pid is stale (that pid is us now).
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid()) ::unlink(path.c_str());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    why = "cannot create state file " + path + ": " + std::strerror(errno);
    return false;
  }
  const std::string text = encode_state(s);
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  if (!ok) {
    ::unlink(path.c_str());
    why = "cannot write state file " + path + ": " + std::strerror(err);
    return false;
  }
  return true;
}

std::optional<MachineState> read_state_file(const std::string& path, std::string& why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    why = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
      static_cast<std::size_t>(st.st_size) > kMaxStateBytes) {
    ::close(fd);
    why = path + ": not a regular file of ours (or larger than 1 MiB); refused";
    return std::nullopt;
  }
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(got);
  auto s = decode_state(text, why);
  if (!s) why = path + ": " + why;
  return s;
}

std::vector<std::string> list_state_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".state") out.push_back(it->path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace rubato
