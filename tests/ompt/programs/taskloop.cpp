// taskloop with few chunks (libomp splits linearly on the encountering thread
// when num_tasks <= 10 x team size): taskloop <threads>.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ground_truth.hpp"

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  constexpr int kChunks = 16, kPerChunk = 4, kN = kChunks * kPerChunk;
  std::vector<long> out(kN);
  long sum = 0;
#pragma omp parallel num_threads(threads)
#pragma omp single
  for (int round = 0; round < 30; ++round) {
    long slots[kChunks];
    for (int c = 0; c < kChunks; ++c) slots[c] = ground_truth::before_task();
#pragma omp taskloop num_tasks(kChunks) shared(out, slots)
    for (int i = 0; i < kN; ++i) {
      if (i % kPerChunk == 0) ground_truth::task_started(slots[i / kPerChunk]);
      out[static_cast<std::size_t>(i)] = i * round + (ground_truth::work(300) & 0);
    }
    for (int c = 0; c < kChunks; ++c) ground_truth::after_task(slots[c]);
    for (long v : out) sum += v;
  }
  std::printf("sum %ld\n", sum);
  ground_truth::write();
  return 0;
}
