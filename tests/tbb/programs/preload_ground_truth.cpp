// A oneTBB program that knows nothing of rubato (links oneTBB only), for the
// preload's task-level front-end. Usage: preload_ground_truth CASE TRUTH_FILE
//
// It prints its results on stdout (the same with and without the preload) and
// writes what it knows of its own tasks to TRUTH_FILE:
//   tasks N        tasks it created (-1: the algorithm creates tasks it cannot see)
//   steals N       tasks that ran on another thread than the one that created them
//   slot_steals N  the same by arena slot (this_task_arena::current_thread_index)
// Cases where every task is the program's own (task_group run / defer, in the
// implicit arena or an explicit task_arena) count exactly; parallel_for,
// parallel_reduce, parallel_invoke and a flow graph create tasks inside
// oneTBB's templates, and tasks that throw or are cancelled may never start,
// so only their results are checked there.
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <thread>

namespace {

std::atomic<int> g_threads{0};
thread_local int t_thread = -1;
int this_thread() {
  if (t_thread < 0) t_thread = g_threads.fetch_add(1);
  return t_thread;
}
int this_slot() { return tbb::this_task_arena::current_thread_index(); }

struct Truth {
  struct Mark {
    int thread, slot;
  };
  std::atomic<long> tasks{0}, steals{0}, slot_steals{0};
  Mark created() {
    tasks.fetch_add(1);
    return {this_thread(), this_slot()};
  }
  void started(Mark m) {
    if (m.thread != this_thread()) steals.fetch_add(1);
    if (m.slot != this_slot()) slot_steals.fetch_add(1);
  }
};
Truth g_truth;

// Some work per task, so that the other thread finds something to steal.
long spin(long n) {
  volatile long x = 0;
  for (long i = 0; i < n; ++i) x = x + i;
  return x;
}

long fib(int n) {
  if (n < 2) {
    spin(200);
    return n;
  }
  long a = 0, b = 0;
  tbb::task_group g;
  g.run([&, m = g_truth.created()] {
    g_truth.started(m);
    a = fib(n - 1);
  });
  g.run([&, m = g_truth.created()] {
    g_truth.started(m);
    b = fib(n - 2);
  });
  g.wait();
  return a + b;
}

// Before fib: one counted task that the main thread watches run on another
// thread without waiting in oneTBB (where it could take the task itself): at
// least one steal however the OS schedules the worker (a loaded machine can
// keep it off the CPU for all of a short fib, and a policy then has nothing to
// act on). Given up after 10 s, when the main thread runs it at the wait.
void stolen_first_task() {
  std::atomic<bool> ran{false};
  tbb::task_group g;
  g.run([&, m = g_truth.created()] {
    g_truth.started(m);
    ran = true;
  });
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!ran.load() && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
  g.wait();
}

long fib_deferred(int n) {
  if (n < 2) {
    spin(200);
    return n;
  }
  long a = 0, b = 0;
  tbb::task_group g;
  tbb::task_handle ha = g.defer([&, m = g_truth.created()] {
    g_truth.started(m);
    a = fib_deferred(n - 1);
  });
  tbb::task_handle hb = g.defer([&, m = g_truth.created()] {
    g_truth.started(m);
    b = fib_deferred(n - 2);
  });
  g.run(std::move(ha));
  g.run(std::move(hb));
  g.wait();
  return a + b;
}

long nested_parallel_for() {
  std::atomic<long> sum{0};
  tbb::parallel_for(tbb::blocked_range<int>(0, 16), [&](const tbb::blocked_range<int>& outer) {
    for (int i = outer.begin(); i < outer.end(); ++i)
      tbb::parallel_for(tbb::blocked_range<long>(0, 20000), [&](const tbb::blocked_range<long>& r) {
        long s = 0;
        for (long k = r.begin(); k < r.end(); ++k) s += k % (i + 1);
        sum += s;
      });
  });
  return sum.load();
}

long reduce() {
  return tbb::parallel_reduce(
      tbb::blocked_range<long>(0, 2000000), 0L,
      [](const tbb::blocked_range<long>& r, long s) {
        for (long k = r.begin(); k < r.end(); ++k) s += k % 7;
        return s;
      },
      std::plus<long>());
}

long invoke(int depth) {
  if (depth == 0) return spin(2000) * 0 + 1;
  long a = 0, b = 0, c = 0;
  tbb::parallel_invoke([&] { a = invoke(depth - 1); }, [&] { b = invoke(depth - 1); }, [&] { c = invoke(depth - 1); });
  return a + b + c;
}

long flow() {
  using namespace tbb::flow;
  graph g;
  long total = 0;
  function_node<int, long> square(g, unlimited, [](int v) {
    spin(500);
    return static_cast<long>(v) * v;
  });
  function_node<long> add(g, serial, [&](long v) {
    total += v;
    return continue_msg();
  });
  make_edge(square, add);
  for (int i = 0; i < 2000; ++i) square.try_put(i);
  g.wait_for_all();
  return total;
}

// Tasks that throw, some from inside nested waits: each round's wait rethrows
// one of them. Returns the rounds whose exception arrived.
long throwing() {
  long caught = 0;
  for (int round = 0; round < 20; ++round) {
    tbb::task_group g;
    for (int i = 0; i < 64; ++i)
      g.run([i] {
        spin(300);
        if (i % 9 == 4) {
          tbb::task_group inner;  // the exception leaves a task run inside this wait
          inner.run([] { throw std::runtime_error("inner"); });
          inner.wait();
        }
        if (i % 7 == 3) throw std::runtime_error("task");
      });
    try {
      g.wait();
    } catch (const std::runtime_error&) {
      ++caught;
    }
  }
  return caught;
}

// A group cancelled by its first task: the rest are dropped unrun or run
// their cancel path inside oneTBB.
long cancelled() {
  long cancelled_rounds = 0;
  for (int round = 0; round < 20; ++round) {
    tbb::task_group g;
    for (int i = 0; i < 256; ++i)
      g.run([&g, i] {
        spin(200);
        if (i == 0) g.cancel();
      });
    if (g.wait() == tbb::task_group_status::canceled) ++cancelled_rounds;
  }
  return cancelled_rounds;
}

// A task still running when main returns: enqueued, it tells main it has
// started and then works on for `ms` milliseconds, unwaited for (3: it ends
// while the process exits; 5000: the process is gone first).
long exit_in_task(int ms) {
  static std::atomic<bool> started{false};
  tbb::this_task_arena::enqueue([ms] {
    started.store(true);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  });
  while (!started.load()) std::this_thread::yield();
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr,
                 "usage: %s fib|serial|defer|arena|parallel_for|reduce|invoke|flow|throw|cancel|exit_in_task|"
                 "exit_in_long_task TRUTH_FILE\n",
                 argv[0]);
    return 2;
  }
  const char* what = argv[1];
  // serial: no worker threads, so every task runs where it was made.
  std::optional<tbb::global_control> one_thread;
  if (!std::strcmp(what, "serial")) one_thread.emplace(tbb::global_control::max_allowed_parallelism, 1);
  // The main thread takes its arena slot (0 in the implicit arena) before it
  // creates the first counted task: until its first oneTBB call it is in no
  // arena (current_thread_index() is not_initialized), so the first root
  // task's mark would hold that, and the main thread running that task itself
  // would count as a slot steal that is no steal (serial shows it every time).
  tbb::this_task_arena::isolate([] {});
  bool exact = true;
  long result = 0;
  if (!std::strcmp(what, "fib")) {
    stolen_first_task();
    result = fib(22);
  } else if (!std::strcmp(what, "serial")) {
    result = fib(18);
  } else if (!std::strcmp(what, "defer")) {
    result = fib_deferred(20);
  } else if (!std::strcmp(what, "arena")) {
    tbb::task_arena arena(2);
    arena.execute([&] { result = fib(20); });
  } else {
    exact = false;
    if (!std::strcmp(what, "parallel_for")) result = nested_parallel_for();
    else if (!std::strcmp(what, "reduce")) result = reduce();
    else if (!std::strcmp(what, "invoke")) result = invoke(6);
    else if (!std::strcmp(what, "flow")) result = flow();
    else if (!std::strcmp(what, "throw")) result = throwing();
    else if (!std::strcmp(what, "cancel")) result = cancelled();
    else if (!std::strcmp(what, "exit_in_task")) result = exit_in_task(3);
    else if (!std::strcmp(what, "exit_in_long_task")) result = exit_in_task(5000);
    else {
      std::fprintf(stderr, "unknown case %s\n", what);
      return 2;
    }
  }
  std::printf("%s = %ld\n", what, result);
  std::FILE* f = std::fopen(argv[2], "w");
  if (!f) return 3;
  std::fprintf(f, "tasks %ld\nsteals %ld\nslot_steals %ld\n", exact ? g_truth.tasks.load() : -1L, g_truth.steals.load(),
               g_truth.slot_steals.load());
  std::fclose(f);
  return 0;
}
