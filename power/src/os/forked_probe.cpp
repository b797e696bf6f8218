#include "os/forked_probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace rubato::detail {

std::optional<std::string> run_forked_probe(const std::function<std::string()>& probe, double timeout_s,
                                            std::string& why) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return why = "cannot create a pipe for the probe", std::nullopt;
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    return why = "cannot fork the probe", std::nullopt;
  }
  if (child == 0) {
    close(fds[0]);
    const int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0) dup2(null_fd, 1), dup2(null_fd, 2);
    const std::string answer = probe();
    [[maybe_unused]] const ssize_t n = write(fds[1], answer.data(), answer.size());
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  bool timed_out = false;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[512];
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;  // the child closed the pipe: it ended
    text.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  if (timed_out) return why = "the probe timed out after " + std::to_string(timeout_s) + " s", std::nullopt;
  if (text.empty()) return why = "the probe ended without an answer", std::nullopt;
  return text;
}

}  // namespace rubato::detail
