// A long-running OpenMP program for the fault tests: rounds of task-parallel
// fib until a stop file appears (or a time limit), so that a test can act on
// the tool while the program runs. After the first round it creates
// "<stop-file>.started". Its one stdout line is deterministic.
//
//   ticker <fib-n> <stop-file> <max-seconds> [segv|abort|exit3|handler]
//
// segv / abort: crash that way once stopped (a program that dies of a fault
// signal with rubato attached); exit3: end with exit status 3; handler: the
// program's own SIGTERM handler, installed before its first OpenMP construct,
// ends it at once with _exit(7) (no atexit: a report can only come from
// rubato's handler, which runs first).
#include <omp.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {

long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
#pragma omp task shared(a) if (n > 10)
  a = fib(n - 1);
#pragma omp task shared(b) if (n > 10)
  b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

void own_sigterm_handler(int) { ::_exit(7); }

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s <fib-n> <stop-file> <max-seconds> [segv|abort|exit3]\n", argv[0]);
    return 2;
  }
  const int n = std::atoi(argv[1]);
  const std::string stop = argv[2];
  const double max_s = std::atof(argv[3]);
  const char* end = argc > 4 ? argv[4] : "";
  if (std::strcmp(end, "handler") == 0) std::signal(SIGTERM, own_sigterm_handler);
  const auto t0 = std::chrono::steady_clock::now();
  long value = 0;
  bool announced = false;
  for (;;) {
#pragma omp parallel
#pragma omp single
    value = fib(n);
    if (!announced) {
      std::ofstream(stop + ".started") << "started\n";
      announced = true;
    }
    if (exists(stop) || std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > max_s) break;
  }
  std::printf("fib(%d) = %ld\n", n, value);
  std::fflush(stdout);
  if (std::strcmp(end, "segv") == 0) {
    volatile int* volatile nowhere = nullptr;
    *nowhere = 1;  // the deliberate crash
  }
  if (std::strcmp(end, "abort") == 0) std::abort();
  return std::strcmp(end, "exit3") == 0 ? 3 : 0;
}
