// The PAPI source: PAPI's perf_event component, one event set per thread,
// attached to it (PAPI_attach) and read by the controlling thread. Every event
// is added by name and checked; a metric takes the first of its candidate
// events this CPU has. Like perf, the chip's memory accesses are estimated as
// the tracked threads' memory reads added up (PAPI's uncore component would
// need CPU-specific memory-controller events and root).
#include <sys/syscall.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "counters/counter_source_makers.hpp"
#include "counters/thread_counter_table.hpp"

#ifdef RUBATO_HAVE_PAPI
#include <papi.h>
#endif

namespace rubato::detail {
namespace {

using counters::Metric;

#ifdef RUBATO_HAVE_PAPI

struct Candidates {
  Metric metric;
  std::vector<const char*> names;
};

const Candidates kCandidates[] = {
    {Metric::busy_s, {"perf::TASK-CLOCK"}},
    {Metric::instructions, {"PAPI_TOT_INS"}},
    {Metric::cycles, {"PAPI_TOT_CYC"}},
    {Metric::llc_misses, {"PAPI_L3_TCM", "perf::LLC-LOAD-MISSES"}},
    {Metric::fp_ops, {"PAPI_DP_OPS", "PAPI_FP_OPS", "PAPI_SP_OPS"}},
    {Metric::mem_reads, {"perf::LLC-LOAD-MISSES", "PAPI_L3_LDM"}},
};

struct ChosenEvent {
  Metric metric;
  std::string name;
};

std::string papi_error(const char* call, int code) { return std::string(call) + ": " + PAPI_strerror(code); }

// An event set on component 0 (perf_event) attached to thread `tid`; PAPI_NULL and `why` on failure.
int attached_event_set(int tid, std::string& why) {
  int es = PAPI_NULL;
  int rc = PAPI_create_eventset(&es);
  if (rc != PAPI_OK) return why = papi_error("PAPI_create_eventset", rc), PAPI_NULL;
  rc = PAPI_assign_eventset_component(es, 0);
  if (rc == PAPI_OK) rc = PAPI_attach(es, static_cast<unsigned long>(tid));
  if (rc != PAPI_OK) {
    why = papi_error("PAPI_attach to a thread", rc);
    PAPI_destroy_eventset(&es);
    return PAPI_NULL;
  }
  return es;
}

void drop_event_set(int& es) {
  long long ignored[16];
  PAPI_stop(es, ignored);
  PAPI_cleanup_eventset(es);
  PAPI_destroy_eventset(&es);
}

class PapiThreadReader final : public ThreadReader {
 public:
  PapiThreadReader(int es, std::vector<Metric> metrics) : es_(es), metrics_(std::move(metrics)) {}
  ~PapiThreadReader() override { drop_event_set(es_); }
  bool read(MetricTotals& totals) override {
    long long values[16] = {};
    if (PAPI_read(es_, values) != PAPI_OK) return false;
    for (std::size_t i = 0; i < metrics_.size(); ++i)
      totals[static_cast<std::size_t>(metrics_[i])] =
          metrics_[i] == Metric::busy_s ? static_cast<double>(values[i]) * 1e-9 : static_cast<double>(values[i]);
    return true;
  }

 private:
  int es_;
  std::vector<Metric> metrics_;
};

class PapiCounters final : public PerThreadSource {
 public:
  explicit PapiCounters(const std::vector<Metric>& want)
      : PerThreadSource("papi", [this](int, int tid) { return open_thread(tid); }) {
    probe(want);
    mark_unavailable(availability_, "papi: no candidate event for it");
  }

 private:
  void probe(const std::vector<Metric>& want) {
    if (PAPI_is_initialized() == PAPI_NOT_INITED) {
      const int rc = PAPI_library_init(PAPI_VER_CURRENT);
      if (rc != PAPI_VER_CURRENT)
        return mark_unavailable(availability_, "papi: " + papi_error("PAPI_library_init", rc));
    }
    // What attaches to this thread attaches to the targets.
    std::string why;
    int es = attached_event_set(static_cast<int>(syscall(SYS_gettid)), why);
    if (es == PAPI_NULL) return mark_unavailable(availability_, "papi: " + why);
    for (const Candidates& c : kCandidates) {
      auto& status = availability_[c.metric];
      if (!wants(want, c.metric)) {
        status.note = "papi: not needed by the policies";
        continue;
      }
      for (const char* name : c.names) {
        const int rc = PAPI_add_named_event(es, name);
        if (rc == PAPI_OK) {
          status = {true, "papi", name};
          events_.push_back({c.metric, name});
          break;
        }
        status.note += (status.note.empty() ? "papi: " : "; ") + papi_error(name, rc);
      }
    }
    drop_event_set(es);
    estimate_chip_accesses(want);
  }

  std::unique_ptr<ThreadReader> open_thread(int tid) {
    if (events_.empty()) return nullptr;
    std::string why;
    int es = attached_event_set(tid, why);
    if (es == PAPI_NULL) return nullptr;
    std::vector<Metric> metrics;
    for (const ChosenEvent& e : events_) {
      if (PAPI_add_named_event(es, e.name.c_str()) != PAPI_OK) continue;
      metrics.push_back(e.metric);
    }
    if (metrics.empty() || PAPI_start(es) != PAPI_OK) {
      drop_event_set(es);
      return nullptr;
    }
    return std::make_unique<PapiThreadReader>(es, std::move(metrics));
  }

  std::vector<ChosenEvent> events_;
};

#endif  // RUBATO_HAVE_PAPI

}  // namespace

std::unique_ptr<CounterSource> make_papi_counters(const std::vector<Metric>& want) {
#ifdef RUBATO_HAVE_PAPI
  return std::make_unique<PapiCounters>(want);
#else
  (void)want;
  return nullptr;
#endif
}

}  // namespace rubato::detail
