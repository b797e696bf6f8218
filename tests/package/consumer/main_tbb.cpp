// Uses rubato::tbb from the installed package: fib with the instrumented
// task_group under an observer. Exits 0 when the result is right and every
// spawned task was counted as run once.
#include <cstdio>

#include <rubato/tbb.hpp>

long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  rubato::tbb::task_group g;
  g.run([&] { a = fib(n - 1); });
  g.run([&] { b = fib(n - 2); });
  g.wait();
  return a + b;
}

int main() {
  rubato::tbb::observer obs({{"RUBATO_REPORT", ""}, {"RUBATO_BACKEND", "dry-run"}, {"RUBATO_LOG", "error"}});
  const long f = fib(20);
  const rubato::Report& r = obs.finish();
  std::uint64_t pushes = 0, started = 0, completed = 0;
  for (const auto& w : r.workers) {
    pushes += w.pushes;
    started += w.pops + w.steals;
    completed += w.tasks_completed;
  }
  std::printf("rubato::tbb: fib(20) = %ld, %llu tasks, %zu workers\n", f, static_cast<unsigned long long>(pushes),
              r.workers.size());
  return obs.active() && f == 6765 && pushes == 21890 && started == pushes && completed == pushes ? 0 : 1;
}
