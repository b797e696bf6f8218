// rubato's oneTBB front-end (target rubato::tbb). See frontends/tbb/README.md.
//
//   rubato::tbb::observer obs;        // RAII: attach, report at destruction
//   rubato::tbb::task_group g;        // drop-ins for tbb::task_group,
//   rubato::tbb::parallel_invoke(...) //   tbb::parallel_invoke and
//   rubato::tbb::parallel_for(...)    //   tbb::parallel_for: their tasks' push /
//                                     //   pop / steal / idle reach the engine
//   rubato::tbb::concurrency_throttle // the thread-count actuator (EFS)
#pragma once

#include "rubato/tbb/concurrency_throttle.hpp"
#include "rubato/tbb/observer.hpp"
#include "rubato/tbb/parallel_for.hpp"
#include "rubato/tbb/parallel_invoke.hpp"
#include "rubato/tbb/task_group.hpp"
