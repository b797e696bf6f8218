// One control interval's segments per (type, level): the difference of two
// Engine::task_type_stats() snapshots, kept by the host that steps the
// closed loop (learner.hpp). The engine's counts only grow.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "rubato/core/tempo/task_type_stats.hpp"

namespace rubato::min_energy {

class TypeStatsDelta {
 public:
  // The cells since the last call (none the first time but what `now` holds).
  std::vector<TaskTypeCell> since_last(const std::vector<TaskTypeCell>& now) {
    std::vector<TaskTypeCell> out;
    for (const TaskTypeCell& c : now) {
      TaskTypeCell& was = last_[{c.type, c.level}];
      TaskTypeCell d = c;
      d.segments = c.segments >= was.segments ? c.segments - was.segments : 0;
      d.ns = c.ns >= was.ns ? c.ns - was.ns : 0;
      d.sq_us = c.sq_us >= was.sq_us ? c.sq_us - was.sq_us : 0;
      was = c;
      if (d.segments > 0) out.push_back(d);
    }
    return out;
  }

 private:
  std::map<std::pair<TaskType, Level>, TaskTypeCell> last_;
};

}  // namespace rubato::min_energy
