// How the tests start a program: an argv (no shell), an environment
// built from the test's own, stdout and stderr going to files (no pipe can fill
// and block it), no core dumps, and a timeout. A started program can be
// watched and signalled while it runs.
#pragma once

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
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

// What a started program's environment is made of before the test's own variables.
enum class BaseEnv {
  user,       // the test's, less RUBATO_*, FAULT_*, OMP_TOOL_LIBRARIES and OMP_NUM_THREADS (a user's fresh shell)
  inherited,  // the test's, unchanged
  empty,      // nothing at all
};

struct SpawnOptions {
  EnvList env;  // set over `base`; a test's LD_PRELOAD goes in front of an inherited one
  BaseEnv base = BaseEnv::user;
  std::string work;      // stdout.txt and stderr.txt go here (created if missing)
  std::string out_path;  // instead of <work>/stdout.txt
  std::string err_path;  // instead of <work>/stderr.txt
  std::string cwd;       // "": the test's own
  bool own_process_group = false;
  std::function<void()> before_exec;  // runs in the child just before exec (drop privileges...); may _exit
};

class RunningProgram {
 public:
  // `work`: a directory for the captured output (created if missing).
  RunningProgram(const std::vector<std::string>& argv, const EnvList& env, const std::string& work,
                 const std::string& cwd = "")
      : RunningProgram(argv, SpawnOptions{env, BaseEnv::user, work, "", "", cwd, false, nullptr}) {}

  RunningProgram(const std::vector<std::string>& argv, const SpawnOptions& o) {
    if (!o.work.empty()) std::filesystem::create_directories(o.work);
    // Without `work` or a path, the output is discarded.
    out_path_ = !o.out_path.empty() ? o.out_path : o.work.empty() ? "/dev/null" : o.work + "/stdout.txt";
    err_path_ = !o.err_path.empty() ? o.err_path : o.work.empty() ? "/dev/null" : o.work + "/stderr.txt";
    start_ = std::chrono::steady_clock::now();
    std::fflush(nullptr);  // or the child's freopen writes the parent's pending output again
    pid_ = ::fork();
    if (pid_ != 0) {
      if (pid_ > 0 && o.own_process_group) ::setpgid(pid_, pid_);
      return;
    }
    if (o.own_process_group) ::setpgid(0, 0);
    // Child: the base environment, then the test's variables.
    std::vector<std::string> keep;
    if (o.base != BaseEnv::empty)
      for (char** e = environ; *e; ++e) {
        const std::string kv = *e;
        const std::string name = kv.substr(0, kv.find('='));
        if (o.base == BaseEnv::user && (name.rfind("RUBATO_", 0) == 0 || name == "OMP_TOOL_LIBRARIES" ||
                                        name == "OMP_NUM_THREADS" || name.rfind("FAULT_", 0) == 0))
          continue;
        keep.push_back(kv);
      }
    // An inherited LD_PRELOAD stays (sanitizer runs preload their helpers);
    // a test's own goes in front of it.
    const char* inherited = o.base == BaseEnv::empty ? nullptr : std::getenv("LD_PRELOAD");
    const std::string preload_before = inherited ? inherited : "";
    ::clearenv();
    for (const auto& kv : keep) ::putenv(::strdup(kv.c_str()));
    for (const auto& [k, v] : o.env) {
      const std::string value = k == "LD_PRELOAD" && !preload_before.empty() ? v + ":" + preload_before : v;
      ::setenv(k.c_str(), value.c_str(), 1);
    }
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    if (!o.cwd.empty() && ::chdir(o.cwd.c_str()) != 0) ::_exit(126);
    std::FILE* out = std::freopen(out_path_.c_str(), "w", stdout);
    std::FILE* err = std::freopen(err_path_.c_str(), "w", stderr);
    if (!out || !err) ::_exit(126);
    if (o.before_exec) o.before_exec();
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
  // The first line the program writes to stdout (it must flush it), "" if none
  // within `timeout_s`.
  std::string first_line(double timeout_s = 20) const {
    std::string line;
    const bool got = wait_until(
        [&] {
          const std::string out = read_file(out_path_);
          const std::size_t nl = out.find('\n');
          if (nl == std::string::npos) return false;
          line = out.substr(0, nl);
          return true;
        },
        timeout_s);
    return got ? line : "";
  }
  // Sends `sig` and waits for the end; the wait status.
  int signal_and_wait(int sig) {
    ::kill(pid_, sig);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    reaped_ = true;
    return status;
  }

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

inline ProgramResult run_program(const std::vector<std::string>& argv, const EnvList& env, const std::string& work,
                                 double timeout_s = 120, const std::string& cwd = "") {
  RunningProgram p(argv, env, work, cwd);
  return p.wait(timeout_s);
}

inline ProgramResult run_program(const std::vector<std::string>& argv, const SpawnOptions& o, double timeout_s = 120) {
  RunningProgram p(argv, o);
  return p.wait(timeout_s);
}

// Runs a shell command in the test's environment, output discarded; true when it succeeded.
inline bool run_quietly(const std::string& command) {
  return run_program({"/bin/sh", "-c", command}, SpawnOptions{.base = BaseEnv::inherited}).ok();
}

}  // namespace rubato::test
