// Runs a program the way a user would (fresh environment without any RUBATO_*
// or OMP_TOOL_LIBRARIES unless a test sets them), with stdout and stderr
// going to files (no pipe can fill and block it), no core dumps, and a
// timeout. A started program can be signalled while it runs.
#pragma once

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

extern char** environ;

namespace rubato::test {

using EnvList = std::vector<std::pair<std::string, std::string>>;

struct ProgramResult {
  bool exited = false;
  int exit_code = -1;
  int signal = 0;  // terminating signal, 0 when it exited
  bool timed_out = false;
  std::string out, err;
  double seconds = 0;

  bool ok() const { return exited && exit_code == 0; }
  // "exit 0", "signal 11", "timeout": for messages.
  std::string status() const {
    if (timed_out) return "timeout";
    return exited ? "exit " + std::to_string(exit_code) : "signal " + std::to_string(signal);
  }
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline bool path_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// Polls `done` every 2 ms for at most `seconds`.
inline bool wait_until(const std::function<bool()>& done, double seconds = 20) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return done();
}

// The lines of `text` that rubato wrote ("rubato: ..." / "rubato <cmd>: ...").
inline std::vector<std::string> rubato_lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    const std::string line = text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
    if (line.rfind("rubato", 0) == 0) out.push_back(line);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return out;
}

class RunningProgram {
 public:
  // `work`: a directory for the captured output (created if missing).
  RunningProgram(const std::vector<std::string>& argv, const EnvList& env, const std::string& work,
                 const std::string& cwd = "") {
    std::filesystem::create_directories(work);
    out_path_ = work + "/stdout.txt";
    err_path_ = work + "/stderr.txt";
    start_ = std::chrono::steady_clock::now();
    std::fflush(nullptr);  // or the child's freopen writes the parent's pending output again
    pid_ = ::fork();
    if (pid_ != 0) return;
    // Child: a clean environment, then the test's variables.
    std::vector<std::string> keep;
    for (char** e = environ; *e; ++e) {
      const std::string kv = *e;
      const std::string name = kv.substr(0, kv.find('='));
      if (name.rfind("RUBATO_", 0) == 0 || name == "OMP_TOOL_LIBRARIES" || name == "OMP_NUM_THREADS" ||
          name.rfind("FAULT_", 0) == 0)
        continue;
      keep.push_back(kv);
    }
    // An inherited LD_PRELOAD stays (sanitizer runs preload their helpers);
    // a test's own goes in front of it.
    const char* inherited = std::getenv("LD_PRELOAD");
    const std::string preload_before = inherited ? inherited : "";
    ::clearenv();
    for (const auto& kv : keep) ::putenv(::strdup(kv.c_str()));
    for (const auto& [k, v] : env) {
      const std::string value = k == "LD_PRELOAD" && !preload_before.empty() ? v + ":" + preload_before : v;
      ::setenv(k.c_str(), value.c_str(), 1);
    }
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    std::FILE* o = std::freopen(out_path_.c_str(), "w", stdout);
    std::FILE* e = std::freopen(err_path_.c_str(), "w", stderr);
    if (!o || !e) ::_exit(126);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ~RunningProgram() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  RunningProgram(const RunningProgram&) = delete;
  RunningProgram& operator=(const RunningProgram&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig) const { ::kill(pid_, sig); }
  // Current stderr (the program is still writing it).
  std::string err_so_far() const { return read_file(err_path_); }

  // Waits for the end (SIGKILL after `timeout_s`) and collects the output.
  ProgramResult wait(double timeout_s = 120) {
    ProgramResult r;
    int status = 0;
    const auto deadline = start_ + std::chrono::duration<double>(timeout_s);
    for (;;) {
      const pid_t got = ::waitpid(pid_, &status, WNOHANG);
      if (got == pid_) break;
      if (std::chrono::steady_clock::now() > deadline) {
        r.timed_out = true;
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    reaped_ = true;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    r.exited = WIFEXITED(status);
    r.exit_code = r.exited ? WEXITSTATUS(status) : -1;
    r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    r.out = read_file(out_path_);
    r.err = read_file(err_path_);
    return r;
  }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  std::string out_path_, err_path_;
  std::chrono::steady_clock::time_point start_;
};

// An executable from the usual system directories, "" when missing.
inline std::string tool_on_path(const char* name) {
  for (const char* dir : {"/usr/bin", "/bin", "/usr/sbin", "/sbin"}) {
    const std::string p = std::string(dir) + "/" + name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

// Runs a shell command, output discarded; true when it succeeded.
inline bool run_quietly(const std::string& command) { return std::system((command + " >/dev/null 2>&1").c_str()) == 0; }

inline ProgramResult run_program(const std::vector<std::string>& argv, const EnvList& env, const std::string& work,
                                 double timeout_s = 120, const std::string& cwd = "") {
  RunningProgram p(argv, env, work, cwd);
  return p.wait(timeout_s);
}

}  // namespace rubato::test
