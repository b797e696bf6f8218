#include "experiment/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

#include "rubato/power/session/run_identity.hpp"

namespace rubato::cli {
namespace {

volatile sig_atomic_t g_interrupted = 0;  // the signal that arrived (SIGINT / SIGTERM), 0: none
volatile pid_t g_child_group = 0;
// The programs of a --mix: each its own group, any of them perhaps stopped by
// efs (a stopped program only acts on a signal once continued).
constexpr int kMaxMixGroups = 256;
volatile pid_t g_mix_groups[kMaxMixGroups] = {};

void continue_mix_groups() {
  for (int i = 0; i < kMaxMixGroups; ++i)
    if (g_mix_groups[i] > 0) kill(-g_mix_groups[i], SIGCONT);
}

void forward_signal(int sig) {
  if (g_interrupted == 0) g_interrupted = sig;  // the first one says how rubato ends
  if (g_child_group > 0) kill(-g_child_group, sig);
  for (int i = 0; i < kMaxMixGroups; ++i)
    if (g_mix_groups[i] > 0) kill(-g_mix_groups[i], sig);
  continue_mix_groups();
}

// rubato itself dies: no program of a mix stays stopped behind it.
void continue_and_die(int sig) {
  continue_mix_groups();
  signal(sig, SIG_DFL);
  raise(sig);
}

std::vector<std::string> merged_environment(const EnvOverrides& overrides) {
  std::map<std::string, std::string> env;
  for (auto& [k, v] : read_process_environment()) env[k] = std::move(v);
  for (const auto& [k, v] : overrides) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

int status_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

}  // namespace

void install_interrupt_forwarding() {
  struct sigaction sa {};
  sa.sa_handler = forward_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool interrupt_requested() { return g_interrupted != 0; }

int interrupt_signal() { return g_interrupted; }

bool register_mix_group(pid_t pgid) {
  static bool handlers = false;
  if (!handlers) {
    handlers = true;
    struct sigaction sa {};
    sa.sa_handler = continue_and_die;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    for (int sig : {SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) sigaction(sig, &sa, nullptr);
    std::atexit(continue_mix_groups);
  }
  for (int i = 0; i < kMaxMixGroups; ++i)
    if (g_mix_groups[i] == 0) {
      g_mix_groups[i] = pgid;
      return true;
    }
  return false;
}

void unregister_mix_group(pid_t pgid) {
  for (int i = 0; i < kMaxMixGroups; ++i)
    if (g_mix_groups[i] == pgid) {
      kill(-pgid, SIGCONT);
      g_mix_groups[i] = 0;
    }
}

pid_t spawn_child(const std::vector<std::string>& argv, const EnvOverrides& env, const std::string& stdout_path,
                  const std::string& stderr_path, std::string& error) {
  if (argv.empty()) {
    error = "no program given";
    return -1;
  }
  std::vector<std::string> env_strings = merged_environment(env);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);

  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(&attr, &empty);

  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &files, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    error = "cannot start " + argv[0] + ": " + std::strerror(rc);
    return -1;
  }
  return pid;
}

int exit_status_code(int wait_status) { return status_code(wait_status); }

ChildResult run_child(const std::vector<std::string>& argv, const EnvOverrides& env, const std::string& stdout_path,
                      const std::string& stderr_path, double timeout_s) {
  ChildResult r;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = spawn_child(argv, env, stdout_path, stderr_path, r.error);
  if (pid < 0) return r;
  r.started = true;
  g_child_group = pid;
  const bool interrupted_before = g_interrupted != 0;
  if (interrupted_before) kill(-pid, SIGTERM);

  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  int status = 0;
  bool term_sent = false;
  double kill_at = 0;
  struct rusage usage {};
  while (true) {
    const pid_t w = wait4(pid, &status, timeout_s > 0 || term_sent ? WNOHANG : 0, &usage);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      status = 255 << 8;
      break;
    }
    if (w < 0) continue;  // EINTR: a forwarded signal; keep waiting for the child
    const double now = elapsed();
    if (timeout_s > 0 && !term_sent && now > timeout_s) {
      r.timed_out = true;
      term_sent = true;
      kill_at = now + 2.0;
      kill(-pid, SIGTERM);
    } else if (term_sent && now > kill_at) {
      kill(-pid, SIGKILL);
      kill_at = now + 3600;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  g_child_group = 0;
  r.elapsed_s = elapsed();
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  r.cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  r.exit_status = status_code(status);
  r.interrupted = g_interrupted != 0;
  return r;
}

}  // namespace rubato::cli
