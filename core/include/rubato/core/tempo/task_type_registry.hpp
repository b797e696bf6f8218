// Gives each kind of task a small task type (task_type_stats.hpp) from what a
// front-end knows of it: an address that stands for its code (OMPT's
// codeptr_ra of the task construct, a oneTBB task's vtable). Thread-safe:
// one lock, taken only the first time a thread meets an address (the
// front-ends cache the answer per thread). Types run 1 .. kMaxTaskTypes − 1
// in order of first appearance; beyond, every new address is untyped.
#pragma once

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "rubato/core/tempo/task_type_stats.hpp"

namespace rubato {

class TaskTypeRegistry {
 public:
  // The type of `code` (0: not known, untyped); new addresses get the next type.
  TaskType type_of(std::uint64_t code) {
    if (code == 0) return kUntypedTask;
    std::lock_guard<std::mutex> lock(mutex_);
    if (const auto it = types_.find(code); it != types_.end()) return it->second;
    if (codes_.size() + 1 >= kMaxTaskTypes) {
      ++untyped_;
      return kUntypedTask;
    }
    codes_.push_back(code);
    const auto t = static_cast<TaskType>(codes_.size());
    types_.emplace(code, t);
    return t;
  }
  // By type: "code 0x…" (index 0: untyped, "").
  std::vector<std::string> names() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out(codes_.size() + 1);
    for (std::size_t i = 0; i < codes_.size(); ++i) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "code 0x%llx", static_cast<unsigned long long>(codes_[i]));
      out[i + 1] = buf;
    }
    return out;
  }
  // Addresses that found no type left (more than kMaxTaskTypes − 1 kinds).
  std::uint64_t untyped() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return untyped_;
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::uint64_t, TaskType> types_;
  std::vector<std::uint64_t> codes_;
  std::uint64_t untyped_ = 0;
};

}  // namespace rubato
