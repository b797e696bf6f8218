// Recursive fib with a task per call, on any task_group type (plain oneTBB or
// rubato's drop-in), for tests that need many small tasks.
#pragma once

namespace rubato::test {

template <class Group>
long fib(int n) {
  if (n < 2) return n;
  long a = 0, b = 0;
  Group g;
  g.run([&] { a = fib<Group>(n - 1); });
  g.run([&] { b = fib<Group>(n - 2); });
  g.wait();
  return a + b;
}

}  // namespace rubato::test
