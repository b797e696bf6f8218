#include "export/otf2_sink.hpp"

#ifdef RUBATO_HAVE_OTF2

#include <otf2/otf2.h>

#include <algorithm>
#include <map>
#include <vector>

namespace rubato::cli {

namespace {

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_FlushCallbacks g_flush = {pre_flush, nullptr};

// Fixed string and region ids; task names get regions from kFirstTaskRegion on.
enum : OTF2_RegionRef { kWaitRegion0 = 0, kFirstTaskRegion = 4 };
enum : OTF2_MetricMemberRef { kLevelMember = 0, kFrequencyMember = 1, kPowerMember = 2 };
constexpr OTF2_MetricRef kTempoMetric = 0;
constexpr OTF2_ParameterRef kVictimParameter = 0;

struct OpenWait {
  std::uint64_t task;
  OTF2_RegionRef region;
};

struct Location {
  OTF2_EvtWriter* writer = nullptr;
  std::uint64_t last = 0;  // latest timestamp written (OTF2 wants them in order per location)
  std::vector<OpenWait> waits;
  bool used = false;  // had events (its writer closed at the end)
  std::uint64_t events = 0;
};

class Otf2Sink : public ExportSink {
 public:
  explicit Otf2Sink(std::string directory) : directory_(std::move(directory)) {}
  ~Otf2Sink() override {
    if (archive_) OTF2_Archive_Close(archive_);
  }
  bool begin(const ExportContext& context, std::string& error) override;
  void segment(const ExportSegment& s) override;
  void wait(const ExportWait& w) override;
  bool end(std::uint64_t last_ns, std::string& error) override;

 private:
  Location& location(WorkerId w);
  OTF2_TimeStamp at(Location& l, std::uint64_t ns) {
    l.last = std::max(l.last, offset_ + ns);
    return l.last;
  }
  void metric(Location& l, std::uint64_t ns, std::uint8_t level, double power_w);
  bool write_definitions(std::uint64_t last_ns, std::string& error);
  void write_strings_and_regions(OTF2_GlobalDefWriter* d);
  void write_metrics(OTF2_GlobalDefWriter* d);

  std::string directory_;
  OTF2_Archive* archive_ = nullptr;
  ExportContext context_;
  std::uint64_t offset_ = 0;
  std::vector<Location> locations_;  // by worker; writer null until its first event
  bool failed_ = false;
};

bool Otf2Sink::begin(const ExportContext& context, std::string& error) {
  context_ = context;
  offset_ = context.header->origin_ns;
  locations_.resize(context.header->max_workers);
  archive_ = OTF2_Archive_Open(directory_.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                               OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!archive_) {
    error = "cannot create the OTF2 archive in " + directory_;
    return false;
  }
  OTF2_Archive_SetFlushCallbacks(archive_, &g_flush, nullptr);
  OTF2_Archive_SetSerialCollectiveCallbacks(archive_);
  OTF2_Archive_SetCreator(archive_, "rubato trace export");
  OTF2_Archive_SetDescription(archive_, ("rubato task trace (" + context.header->frontend + ")").c_str());
  if (OTF2_Archive_OpenEvtFiles(archive_) != OTF2_SUCCESS) {
    error = "cannot open the OTF2 event files in " + directory_;
    return false;
  }
  return true;
}

Location& Otf2Sink::location(WorkerId w) {
  Location& l = locations_[w];
  if (!l.writer) {
    l.writer = OTF2_Archive_GetEvtWriter(archive_, w);
    if (!l.writer) failed_ = true;
  }
  return l;
}

void Otf2Sink::metric(Location& l, std::uint64_t ns, std::uint8_t level, double power_w) {
  OTF2_Type types[3] = {OTF2_TYPE_UINT64, OTF2_TYPE_DOUBLE, OTF2_TYPE_DOUBLE};
  OTF2_MetricValue values[3];
  values[0].unsigned_int = level;
  values[1].floating_point = context_.header->level_hz[level];
  values[2].floating_point = power_w;
  const std::uint8_t n = context_.power_source.empty() ? 2 : 3;
  OTF2_EvtWriter_Metric(l.writer, nullptr, at(l, ns), kTempoMetric, n, types, values);
}

void Otf2Sink::segment(const ExportSegment& s) {
  Location& l = location(s.worker);
  if (!l.writer) return;
  const bool power = s.busy_w >= 0;
  if (power) metric(l, s.start_ns, s.level, s.busy_w);
  const OTF2_RegionRef region = kFirstTaskRegion + s.name;
  OTF2_EvtWriter_Enter(l.writer, nullptr, at(l, s.start_ns), region);
  if (s.stolen) OTF2_EvtWriter_ParameterUnsignedInt(l.writer, nullptr, at(l, s.start_ns), kVictimParameter, s.victim);
  OTF2_EvtWriter_Leave(l.writer, nullptr, at(l, s.end_ns), region);
  if (s.level_changed || power) metric(l, s.end_ns, s.level, power ? s.idle_w : 0);
}

void Otf2Sink::wait(const ExportWait& w) {
  Location& l = location(w.worker);
  if (!l.writer) return;
  const OTF2_RegionRef region = kWaitRegion0 + static_cast<OTF2_RegionRef>(w.kind) - 1;
  if (w.begin) {
    OTF2_EvtWriter_Enter(l.writer, nullptr, at(l, w.time_ns), region);
    l.waits.push_back(OpenWait{w.task, region});
    return;
  }
  // Leave every region down to the task's wait (waits nest per worker; one
  // whose end was recorded elsewhere is left here).
  auto it = std::find_if(l.waits.rbegin(), l.waits.rend(), [&](const OpenWait& o) { return o.task == w.task; });
  if (it == l.waits.rend()) return;
  const std::size_t keep = static_cast<std::size_t>(l.waits.rend() - it) - 1;
  while (l.waits.size() > keep) {
    OTF2_EvtWriter_Leave(l.writer, nullptr, at(l, w.time_ns), l.waits.back().region);
    l.waits.pop_back();
  }
}

bool Otf2Sink::end(std::uint64_t last_ns, std::string& error) {
  if (failed_) {
    error = "cannot create an OTF2 event writer in " + directory_;
    return false;
  }
  for (Location& l : locations_) {
    if (!l.writer) continue;
    while (!l.waits.empty()) {  // a worker that ended inside a wait
      OTF2_EvtWriter_Leave(l.writer, nullptr, at(l, last_ns), l.waits.back().region);
      l.waits.pop_back();
    }
  }
  return write_definitions(last_ns, error);
}

// Strings: 0 "", 1 machine, 2 "process", 3 "rubato trace", 4.. worker names,
// then region names and source files.
void Otf2Sink::write_strings_and_regions(OTF2_GlobalDefWriter* d) {
  OTF2_StringRef next = 0;
  const auto str = [&](const std::string& text) {
    OTF2_GlobalDefWriter_WriteString(d, next, text.c_str());
    return next++;
  };
  const OTF2_StringRef empty = str("");
  const char* waits[4] = {"taskwait", "taskgroup", "barrier", "wait"};
  const OTF2_RegionRole roles[4] = {OTF2_REGION_ROLE_TASK_WAIT, OTF2_REGION_ROLE_TASK_WAIT, OTF2_REGION_ROLE_BARRIER,
                                    OTF2_REGION_ROLE_TASK_WAIT};
  for (OTF2_RegionRef r = 0; r < 4; ++r) {
    const OTF2_StringRef name = str(waits[r]);
    OTF2_GlobalDefWriter_WriteRegion(d, kWaitRegion0 + r, name, name, empty, roles[r], OTF2_PARADIGM_OPENMP,
                                     OTF2_REGION_FLAG_NONE, empty, 0, 0);
  }
  const std::vector<ExportName>& names = *context_.names;
  std::map<std::string, OTF2_StringRef> files;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const ExportName& n = names[i];
    const OTF2_StringRef label = str(n.label);
    const OTF2_StringRef canonical = n.function.empty() ? label : str(n.function);
    OTF2_StringRef file = empty;
    if (!n.file.empty()) {
      auto [it, added] = files.try_emplace(n.file, 0);
      if (added) it->second = str(n.file);
      file = it->second;
    }
    OTF2_GlobalDefWriter_WriteRegion(d, kFirstTaskRegion + static_cast<OTF2_RegionRef>(i), label, canonical, empty,
                                     OTF2_REGION_ROLE_TASK, OTF2_PARADIGM_OPENMP, OTF2_REGION_FLAG_NONE, file, n.line,
                                     n.line);
  }
  const OTF2_StringRef machine = str("machine"), node = str("node"), process = str("rubato trace");
  OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, machine, node, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  OTF2_GlobalDefWriter_WriteLocationGroup(d, 0, process, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                          OTF2_UNDEFINED_LOCATION_GROUP);
  for (WorkerId w = 0; w < locations_.size(); ++w) {
    if (!locations_[w].used) continue;
    OTF2_GlobalDefWriter_WriteLocation(d, w, str("worker " + std::to_string(w)), OTF2_LOCATION_TYPE_CPU_THREAD,
                                       locations_[w].events, 0);
  }
  OTF2_GlobalDefWriter_WriteParameter(d, kVictimParameter, str("stolen from worker"), OTF2_PARAMETER_TYPE_UINT64);
  const OTF2_StringRef level = str("tempo level"), level_doc = str("tempo level in effect (0: fastest)");
  const OTF2_StringRef freq = str("frequency"), freq_doc = str("the tempo level's frequency"), hz = str("Hz");
  const OTF2_StringRef none = str("level");
  OTF2_GlobalDefWriter_WriteMetricMember(d, kLevelMember, level, level_doc, OTF2_METRIC_TYPE_USER,
                                         OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, none);
  OTF2_GlobalDefWriter_WriteMetricMember(d, kFrequencyMember, freq, freq_doc, OTF2_METRIC_TYPE_USER,
                                         OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL, 0, hz);
  if (!context_.power_source.empty()) {
    const OTF2_StringRef power = str("power"), doc = str("core power, " + context_.power_source), watt = str("W");
    OTF2_GlobalDefWriter_WriteMetricMember(d, kPowerMember, power, doc, OTF2_METRIC_TYPE_USER,
                                           OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL, 0, watt);
  }
}

void Otf2Sink::write_metrics(OTF2_GlobalDefWriter* d) {
  const OTF2_MetricMemberRef members[3] = {kLevelMember, kFrequencyMember, kPowerMember};
  OTF2_GlobalDefWriter_WriteMetricClass(d, kTempoMetric, context_.power_source.empty() ? 2 : 3, members,
                                        OTF2_METRIC_SYNCHRONOUS, OTF2_RECORDER_KIND_ABSTRACT);
}

bool Otf2Sink::write_definitions(std::uint64_t last_ns, std::string& error) {
  for (Location& l : locations_) {
    if (!l.writer) continue;
    OTF2_EvtWriter_GetNumberOfEvents(l.writer, &l.events);
    OTF2_Archive_CloseEvtWriter(archive_, l.writer);
    l.writer = nullptr;
    l.used = true;
  }
  if (OTF2_Archive_CloseEvtFiles(archive_) != OTF2_SUCCESS) {
    error = "cannot close the OTF2 event files";
    return false;
  }
  // Empty local definitions per location, as readers expect one file each.
  OTF2_Archive_OpenDefFiles(archive_);
  for (WorkerId w = 0; w < locations_.size(); ++w)
    if (locations_[w].used) OTF2_Archive_CloseDefWriter(archive_, OTF2_Archive_GetDefWriter(archive_, w));
  OTF2_Archive_CloseDefFiles(archive_);
  OTF2_GlobalDefWriter* d = OTF2_Archive_GetGlobalDefWriter(archive_);
  // 1 ns ticks; the steady clock's origin as offset; no wall-clock time known.
  std::uint64_t last = offset_ + last_ns;
  for (const Location& l : locations_) last = std::max(last, l.last);
  OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, offset_, last - offset_ + 1, OTF2_UNDEFINED_TIMESTAMP);
  write_strings_and_regions(d);
  write_metrics(d);
  const OTF2_ErrorCode closed = OTF2_Archive_Close(archive_);
  archive_ = nullptr;
  if (closed != OTF2_SUCCESS) {
    error = std::string("cannot write the OTF2 archive: ") + OTF2_Error_GetDescription(closed);
    return false;
  }
  return true;
}

}  // namespace

bool otf2_built() noexcept { return true; }

std::unique_ptr<ExportSink> make_otf2_sink(const std::string& directory) {
  return std::make_unique<Otf2Sink>(directory);
}

}  // namespace rubato::cli

#else  // built without OTF2

namespace rubato::cli {

namespace {

class Otf2Missing : public ExportSink {
 public:
  bool begin(const ExportContext&, std::string& error) override {
    error =
        "this rubato was built without OTF2 (the OTF2 library was not found at build time: apt-get install "
        "libotf2-trace-dev, then reconfigure); --format perfetto works";
    return false;
  }
  void segment(const ExportSegment&) override {}
  void wait(const ExportWait&) override {}
  bool end(std::uint64_t, std::string&) override { return false; }
};

}  // namespace

bool otf2_built() noexcept { return false; }

std::unique_ptr<ExportSink> make_otf2_sink(const std::string&) { return std::make_unique<Otf2Missing>(); }

}  // namespace rubato::cli

#endif
