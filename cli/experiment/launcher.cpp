#include "experiment/launcher.hpp"

#include <unistd.h>

#include <cctype>
#include <charconv>
#include <filesystem>
#include <stdexcept>

#include "commands/args.hpp"
#include "analysis/file_io.hpp"

namespace rubato::cli {
namespace {

namespace fs = std::filesystem;

std::optional<int> positive_int(const std::string& s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v <= 0) return std::nullopt;
  return v;
}

bool contains(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

}  // namespace

const char* to_string(LauncherKind k) {
  switch (k) {
    case LauncherKind::open_mpi: return "openmpi";
    case LauncherKind::mpich: return "mpich";
    case LauncherKind::slurm: return "slurm";
    case LauncherKind::inherit: return "inherit";
  }
  return "inherit";
}

constexpr LauncherKind kLauncherKinds[] = {LauncherKind::open_mpi, LauncherKind::mpich, LauncherKind::slurm,
                                           LauncherKind::inherit};

std::optional<LauncherKind> launcher_kind_from_name(const std::string& name) {
  for (LauncherKind k : kLauncherKinds)
    if (name == to_string(k)) return k;
  return std::nullopt;
}

std::string launcher_kind_names() {
  std::string out;
  for (LauncherKind k : kLauncherKinds) out += (out.empty() ? "" : " | ") + std::string(to_string(k));
  return out;
}

std::vector<std::string> split_command_words(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\'') {
      const std::size_t end = text.find('\'', i + 1);
      if (end == std::string::npos) throw std::invalid_argument("unterminated ' quote");
      word += text.substr(i + 1, end - i - 1);
      in_word = true;
      i = end;
    } else if (c == '"') {
      ++i;
      for (; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && std::string("\"\\$`").find(text[i + 1]) != std::string::npos) ++i;
        word += text[i];
      }
      if (i >= text.size()) throw std::invalid_argument("unterminated \" quote");
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::optional<LauncherKind> kind_from_name(const std::string& program) {
  const std::string base = fs::path(program).filename().string();
  if (base == "srun") return LauncherKind::slurm;
  if (base == "orterun" || base == "prterun" || base == "prun" || contains(base, "openmpi"))
    return LauncherKind::open_mpi;
  if (contains(base, "hydra") || contains(base, "mpich") || contains(base, "intel")) return LauncherKind::mpich;
  return std::nullopt;
}

std::optional<LauncherKind> kind_from_version(const std::string& v) {
  if (contains(v, "Open MPI") || contains(v, "OpenRTE") || contains(v, "Open RTE") || contains(v, "PRRTE"))
    return LauncherKind::open_mpi;
  if (contains(v, "HYDRA") || contains(v, "Hydra") || contains(v, "MPICH") || contains(v, "Intel(R) MPI"))
    return LauncherKind::mpich;
  if (contains(v, "slurm")) return LauncherKind::slurm;
  return std::nullopt;
}

std::optional<int> requested_ranks(const std::vector<std::string>& argv) {
  std::optional<int> total, nodes, per_node;
  const bool slurm = !argv.empty() && fs::path(argv.front()).filename() == "srun";
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    const bool has_next = i + 1 < argv.size();
    auto value_of = [&](const std::string& name) -> std::optional<std::string> {
      if (a == name && has_next) return argv[i + 1];
      if (name.rfind("--", 0) == 0 && a.rfind(name + "=", 0) == 0) return a.substr(name.size() + 1);
      return std::nullopt;
    };
    for (const char* name : {"-np", "--np", "-n", "--n", "--ntasks"})
      if (auto v = value_of(name)) total = positive_int(*v);
    // srun's -N is nodes (Open MPI's is processes per node: left alone).
    if (slurm)
      for (const char* name : {"-N", "--nodes"})
        if (auto v = value_of(name)) nodes = positive_int(*v);
    if (auto v = value_of("--ntasks-per-node")) per_node = positive_int(*v);
  }
  if (total) return total;
  if (nodes && per_node) return *nodes * *per_node;
  return std::nullopt;
}

Launcher make_launcher(const std::string& text, std::optional<LauncherKind> forced) {
  Launcher l;
  l.text = text;
  try {
    l.argv = split_command_words(text);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--launcher '" + text + "': " + e.what());
  }
  if (l.argv.empty()) throw UsageError("--launcher: give the launch command, e.g. --launcher \"mpirun -np 2\"");
  l.ranks = requested_ranks(l.argv);
  if (forced) {
    l.kind = *forced;
    l.kind_why = "--launcher-kind";
    return l;
  }
  if (const auto k = kind_from_name(l.argv.front())) {
    l.kind = *k;
    l.kind_why = fs::path(l.argv.front()).filename().string();
    return l;
  }
  // A plain mpirun / mpiexec: ask it which MPI it belongs to.
  const fs::path tmp = fs::temp_directory_path() / ("rubato-launcher-" + std::to_string(getpid()));
  const ChildResult r = run_child({l.argv.front(), "--version"}, {}, tmp.string() + ".out", tmp.string() + ".err", 10);
  const std::string version =
      read_file(tmp.string() + ".out").value_or("") + read_file(tmp.string() + ".err").value_or("");
  std::error_code ec;
  fs::remove(tmp.string() + ".out", ec);
  fs::remove(tmp.string() + ".err", ec);
  if (!r.started) throw UsageError("--launcher: cannot run " + l.argv.front() + ": " + r.error);
  if (const auto k = kind_from_version(version)) {
    l.kind = *k;
    l.kind_why = l.argv.front() + " --version";
  } else {
    l.kind = LauncherKind::inherit;
    l.kind_why = l.argv.front() + " --version names no known MPI";
  }
  return l;
}

EnvOverrides rank_environment(const EnvOverrides& env, const EnvOverrides& ours) {
  EnvOverrides out = env;
  for (const auto& [name, value] : ours) {
    if (name.rfind("RUBATO_", 0) != 0 && name.rfind("OMP_", 0) != 0) continue;
    bool set = false;
    for (const auto& e : out) set |= e.first == name;
    if (!set) out.emplace_back(name, value);
  }
  return out;
}

std::vector<std::string> launch_command(const Launcher& l, const EnvOverrides& env,
                                        const std::vector<std::string>& program) {
  std::vector<std::string> out = l.argv;
  switch (l.kind) {
    case LauncherKind::open_mpi:
      for (const auto& [name, value] : env) {
        out.push_back("-x");
        out.push_back(name + "=" + value);
      }
      break;
    case LauncherKind::mpich:
      for (const auto& [name, value] : env) {
        out.push_back("-genv");
        out.push_back(name);
        out.push_back(value);
      }
      break;
    case LauncherKind::slurm: {
      // --export splits at commas: a value holding one reaches the ranks through
      // ALL (the launcher's own environment, where run_child sets it too).
      std::string exports = "--export=ALL";
      for (const auto& [name, value] : env)
        if (value.find(',') == std::string::npos) exports += "," + name + "=" + value;
      out.push_back(exports);
      break;
    }
    case LauncherKind::inherit: break;
  }
  out.insert(out.end(), program.begin(), program.end());
  return out;
}

}  // namespace rubato::cli
