// A hybrid MPI + OpenMP program: a 1-D heat equation split over the ranks.
// Each step a rank exchanges its edge cells with its neighbours (MPI_Sendrecv),
// sweeps its own block in OpenMP tasks (one per chunk, created by one thread
// and stolen by the others), and every few steps the ranks reduce the
// residual (MPI_Allreduce). Nothing here knows about rubato.
//   mpirun -np 2 ./mpi_openmp [cells per rank] [steps]
#include <mpi.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long n = argc > 1 ? std::atol(argv[1]) : 200000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 200;
  const long chunk = 2048;

  // u[0] and u[n + 1] are halo cells; the global left and right edges are held at 1 and 0.
  std::vector<double> u(n + 2, 0.0), next(n + 2, 0.0);
  if (rank == 0) u[0] = next[0] = 1.0;
  const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  const int right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  const double t0 = MPI_Wtime();
  double residual = 0;
  for (int s = 0; s < steps; ++s) {
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0) u[0] = 1.0;
    double local = 0;
#pragma omp parallel
#pragma omp single
    for (long begin = 1; begin <= n; begin += chunk) {
#pragma omp task firstprivate(begin) shared(u, next, local)
      {
        const long end = std::min(begin + chunk, n + 1);
        double d = 0;
        for (long i = begin; i < end; ++i) {
          next[i] = u[i] + 0.25 * (u[i - 1] - 2 * u[i] + u[i + 1]);
          d += std::fabs(next[i] - u[i]);
        }
#pragma omp atomic
        local += d;
      }
    }
    u.swap(next);
    if (s % 10 == 9 || s + 1 == steps) MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0)
    std::printf("%d ranks x %d threads, %ld cells each, %d steps: residual %.6g in %.3f s\n", size,
                omp_get_max_threads(), n, steps, residual, MPI_Wtime() - t0);
  MPI_Finalize();
  return 0;
}
