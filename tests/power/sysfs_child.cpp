// Child process for the kill / restore tests: opens a session on the sysfs
// back-end of a fake tree (RUBATO_SYSFS_ROOT), starts a worker at the policy's
// fixed low frequency, waits until the flusher wrote scaling_setspeed, prints
// "ready" and then waits to be killed. With "own-handler" as second argument
// it installs its own SIGTERM handler first (exit status 7), to check that
// rubato's restore chains to it.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "rubato/power/session/session.hpp"

extern char** environ;

namespace {
void own_handler(int) {
  const char msg[] = "own handler ran\n";
  [[maybe_unused]] const ssize_t n = write(2, msg, sizeof msg - 1);
  _exit(7);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <expected scaling_setspeed file>\n", argv[0]);
    return 2;
  }
  if (argc > 2 && std::strcmp(argv[2], "own-handler") == 0) std::signal(SIGTERM, own_handler);
  rubato::Environment env;
  for (char** e = environ; *e; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq) env.emplace_back(std::string(*e, static_cast<std::size_t>(eq - *e)), std::string(eq + 1));
  }
  auto session = rubato::Session::open(env, {"test-child", "none", true});
  if (!session) return 3;
  session->worker_started(0);
  // A plain file read while the flusher truncates and writes it can be empty
  // or, on ext4, the new digits followed by the old value's tail: a speed
  // counts once two reads in a row agree and it is all digits.
  const auto read_speed = [&] {
    std::ifstream in(argv[1]);
    std::string speed;
    in >> speed;
    return speed;
  };
  for (int i = 0; i < 4000; ++i) {  // 20 s at most
    const std::string speed = read_speed();
    if (!speed.empty() && speed.find_first_not_of("0123456789") == std::string::npos && read_speed() == speed) {
      std::printf("ready %s\n", speed.c_str());
      std::fflush(stdout);
      for (;;) pause();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return 4;
}
