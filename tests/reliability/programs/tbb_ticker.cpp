// The ticker for unmodified oneTBB programs (links oneTBB only; the tests
// attach rubato with LD_PRELOAD): rounds of task_group fib until a stop file
// appears (or a time limit). After the first round it creates
// "<stop-file>.started". Its one stdout line is deterministic.
//
//   tbb_ticker <fib-n> <stop-file> <max-seconds> [exit3]
//
// exit3: end with exit status 3.
#include <oneapi/tbb/task_group.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace {

long fib(int n) {
  if (n < 12) return n < 2 ? n : fib(n - 1) + fib(n - 2);
  long a = 0, b = 0;
  tbb::task_group g;
  g.run([&] { a = fib(n - 1); });
  g.run([&] { b = fib(n - 2); });
  g.wait();
  return a + b;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s <fib-n> <stop-file> <max-seconds> [exit3]\n", argv[0]);
    return 2;
  }
  const int n = std::atoi(argv[1]);
  const std::string stop = argv[2];
  const double max_s = std::atof(argv[3]);
  const bool exit3 = argc > 4 && std::strcmp(argv[4], "exit3") == 0;
  const auto t0 = std::chrono::steady_clock::now();
  long value = 0;
  for (bool announced = false;;) {
    value = fib(n);
    if (!announced) {
      std::ofstream(stop + ".started") << "started\n";
      announced = true;
    }
    if (exists(stop) || std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > max_s) break;
  }
  std::printf("fib(%d) = %ld\n", n, value);
  std::fflush(stdout);
  return exit3 ? 3 : 0;
}
