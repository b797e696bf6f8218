// A program that rewrites its own argv in place before its first OpenMP
// construct, as one benchmark suite does (it overwrites the option letters it
// parsed with '*'): the report's command must be the line it was started with.
//   argv_rewrite [args...]
#include <cstdio>

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (char* c = argv[i]; *c; ++c)
      if (*c != '-') *c = '*';
  long sum = 0;
  // A worksharing reduction, not a taskloop one: Archer (the TSan stage's
  // OpenMP edges) reports libomp's task-reduction buffers as racing.
#pragma omp parallel for reduction(+ : sum)
  for (long k = 1; k <= 100000; ++k) sum += k;
  std::printf("sum = %ld\n", sum);
  return 0;
}
