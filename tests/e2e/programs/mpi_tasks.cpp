// A hybrid test program for `rubato run --launcher`: every rank runs OpenMP
// tasks (one thread creates them, the others steal) between MPI reductions,
// and records who created and who started each task (ground_truth.hpp) into
// gt.r<rank>.txt in $GT_DIR, else next to its report ($RUBATO_REPORT's
// directory), so each rank's report can be checked for its exact steals.
// Tasks are tied and all deferred: a task started on another thread than its
// creator's was stolen.
//   mpi_tasks [tasks per region] [regions] [work per task] [rank that exits 3]
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "../../ompt/programs/ground_truth.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int tasks = argc > 1 ? std::atoi(argv[1]) : 200;
  const int regions = argc > 2 ? std::atoi(argv[2]) : 5;
  const long work = argc > 3 ? std::atol(argv[3]) : 20000;
  long sum = 0, total = 0;
  for (int r = 0; r < regions; ++r) {
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < tasks; ++i) {
      const long slot = ground_truth::before_task();
#pragma omp task firstprivate(slot) shared(sum)
      {
        ground_truth::task_started(slot);
        const long v = ground_truth::work(work);
#pragma omp atomic
        sum += v & 1;
      }
      ground_truth::after_task(slot);
    }
    MPI_Allreduce(&sum, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  }
  std::string dir;
  if (const char* d = std::getenv("GT_DIR")) dir = d;
  else if (const char* report = std::getenv("RUBATO_REPORT"))
    dir = std::filesystem::path(report).parent_path().string();
  if (!dir.empty()) {
    const std::string file = dir + "/gt.r" + std::to_string(rank) + ".txt";
    setenv("GT_FILE", file.c_str(), 1);
    ground_truth::write();
  }
  if (rank == 0) std::printf("%d ranks, %d regions of %d tasks: %ld\n", size, regions, tasks, total);
  MPI_Finalize();
  return argc > 4 && std::atoi(argv[4]) == rank ? 3 : 0;
}
