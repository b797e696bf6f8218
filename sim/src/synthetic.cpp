// The shapes of the synthetic DAG kinds. Each frame's arguments (a, b) and
// program counter are all the state a task needs; nothing is generated before
// a task is spawned.
#include "rubato/sim/synthetic.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace rubato::sim {

namespace {

constexpr std::uint64_t kJitterSalt = 0x6a09e667f3bcc909ull;
constexpr std::uint64_t kSplitSalt = 0xbb67ae8584caa73bull;

// A shape of one phase: its work class, jitter and DAG seed.
class PhaseShape : public Shape {
 public:
  PhaseShape(WorkClass wc, double jitter, std::uint64_t seed) : Shape(wc), jitter_(jitter), seed_(seed) {}

 protected:
  // Work of this frame, scaled by U[1-j, 1+j] drawn from the frame's identity.
  double jittered(double ns, const Frame& f) const noexcept {
    if (jitter_ == 0) return ns;
    return ns * (1 + jitter_ * (2 * unit_hash(f.id, seed_ ^ kJitterSalt) - 1));
  }
  double draw(const Frame& f) const noexcept { return unit_hash(f.id, seed_ ^ kSplitSalt); }

 private:
  double jitter_;
  std::uint64_t seed_;
};

// One task of fixed work.
class SerialShape final : public PhaseShape {
 public:
  SerialShape(WorkClass wc, double jitter, std::uint64_t seed, double ns) : PhaseShape(wc, jitter, seed), ns_(ns) {}
  Step next(Frame& f) const override {
    if (f.pc++ == 0) return Step::work(jittered(ns_, f));
    return Step::ret();
  }

 private:
  double ns_;
};

// fib(n): n < 2 is a leaf; otherwise work, spawn fib(n-1), spawn fib(n-2), sync.
class FibShape final : public PhaseShape {
 public:
  FibShape(WorkClass wc, double jitter, std::uint64_t seed, double node_ns, double leaf_ns)
      : PhaseShape(wc, jitter, seed), node_ns_(node_ns), leaf_ns_(leaf_ns) {}
  Step next(Frame& f) const override {
    if (f.a < 2) return f.pc++ == 0 ? Step::work(jittered(leaf_ns_, f)) : Step::ret();
    switch (f.pc++) {
      case 0: return Step::work(jittered(node_ns_, f));
      case 1: return Step::spawn(this, f.a - 1);
      case 2: return Step::spawn(this, f.a - 2);
      case 3: return Step::sync();
      default: return Step::ret();
    }
  }

 private:
  double node_ns_, leaf_ns_;
};

// Parallel loop over [a, b): ranges of at most `grain` iterations are leaves;
// larger ones split in halves (cilk_for) or spawn every chunk in turn (taskloop).
class LoopShape final : public PhaseShape {
 public:
  LoopShape(WorkClass wc, double jitter, std::uint64_t seed, double iter_ns, std::int64_t grain, bool linear)
      : PhaseShape(wc, jitter, seed), iter_ns_(iter_ns), grain_(grain), linear_(linear) {}
  Step next(Frame& f) const override {
    const std::int64_t size = f.b - f.a;
    if (size <= grain_)
      return f.pc++ == 0 ? Step::work(jittered(static_cast<double>(size) * iter_ns_, f)) : Step::ret();
    if (linear_) {
      const std::int64_t chunks = (size + grain_ - 1) / grain_;
      const std::int64_t k = f.pc++;
      if (k < chunks) return Step::spawn(this, f.a + k * grain_, std::min(f.b, f.a + (k + 1) * grain_));
      return k == chunks ? Step::sync() : Step::ret();
    }
    const std::int64_t mid = f.a + size / 2;
    switch (f.pc++) {
      case 0: return Step::spawn(this, f.a, mid);
      case 1: return Step::spawn(this, mid, f.b);
      case 2: return Step::sync();
      default: return Step::ret();
    }
  }

 private:
  double iter_ns_;
  std::int64_t grain_;
  bool linear_;
};

// Balanced divide and conquer of depth a: pre work, `fanout` children, sync, post work.
class DcShape final : public PhaseShape {
 public:
  DcShape(WorkClass wc, double jitter, std::uint64_t seed, double leaf_ns, double pre_ns, double post_ns, int fanout)
      : PhaseShape(wc, jitter, seed),
        leaf_ns_(leaf_ns),
        pre_ns_(pre_ns),
        post_ns_(post_ns),
        fanout_(static_cast<std::uint32_t>(fanout)) {}
  Step next(Frame& f) const override {
    if (f.a == 0) return f.pc++ == 0 ? Step::work(jittered(leaf_ns_, f)) : Step::ret();
    const std::uint32_t pc = f.pc++;
    if (pc == 0) return Step::work(pre_ns_);
    if (pc <= fanout_) return Step::spawn(this, f.a - 1);
    if (pc == fanout_ + 1) return Step::sync();
    if (pc == fanout_ + 2) return Step::work(post_ns_);
    return Step::ret();
  }

 private:
  double leaf_ns_, pre_ns_, post_ns_;
  std::uint32_t fanout_;
};

// Uneven recursive split of a items (quicksort, quickhull): partition work
// (serial, or a nested parallel loop), then two children of sizes n r and
// n (1 - r), r = 0.5 + skew (U - 0.5).
class SplitShape final : public PhaseShape {
 public:
  SplitShape(WorkClass wc, double jitter, std::uint64_t seed, double item_ns, double part_ns, std::int64_t grain,
             double skew, const Shape* filter)
      : PhaseShape(wc, jitter, seed),
        item_ns_(item_ns),
        part_ns_(part_ns),
        grain_(grain),
        skew_(skew),
        filter_(filter) {}
  Step next(Frame& f) const override {
    const std::int64_t n = f.a;
    if (n <= grain_) return f.pc++ == 0 ? Step::work(jittered(static_cast<double>(n) * item_ns_, f)) : Step::ret();
    switch (f.pc++) {
      case 0: return filter_ ? Step::spawn(filter_, 0, n) : Step::work(static_cast<double>(n) * part_ns_);
      case 1:
        if (filter_) return Step::sync();
        ++f.pc;
        [[fallthrough]];
      case 2: return Step::spawn(this, left(f));
      case 3: return Step::spawn(this, n - left(f));
      case 4: return Step::sync();
      default: return Step::ret();
    }
  }

 private:
  std::int64_t left(const Frame& f) const noexcept {
    const double r = 0.5 + skew_ * (draw(f) - 0.5);
    return std::clamp<std::int64_t>(std::llround(static_cast<double>(f.a) * r), 1, f.a - 1);
  }
  double item_ns_, part_ns_;
  std::int64_t grain_;
  double skew_;
  const Shape* filter_;
};

// a tasks one after another: spawn one, wait for it, spawn the next.
class ChainShape final : public Shape {
 public:
  explicit ChainShape(const Shape* link) : Shape(link->work_class()), link_(link) {}
  Step next(Frame& f) const override {
    if (f.pc % 2 == 0) {
      if (f.a == 0) return Step::ret();
      ++f.pc;
      return Step::spawn(link_, 0);
    }
    ++f.pc;
    --f.a;
    return Step::sync();
  }

 private:
  const Shape* link_;
};

// The root: each phase spawned and joined in turn.
class SequenceShape final : public Shape {
 public:
  struct Phase {
    const Shape* shape;
    std::int64_t a, b;
    bool with_previous = false;  // spawned with the phase before, one join for both
  };
  explicit SequenceShape(const std::vector<Phase>& phases) : Shape(WorkClass{}) {
    for (std::size_t i = 0; i < phases.size(); ++i) {
      if (i > 0 && !phases[i].with_previous) steps_.push_back(Step::sync());
      steps_.push_back(Step::spawn(phases[i].shape, phases[i].a, phases[i].b));
    }
    if (!steps_.empty()) steps_.push_back(Step::sync());
  }
  Step next(Frame& f) const override {
    const std::uint32_t pc = f.pc++;
    return pc < steps_.size() ? steps_[pc] : Step::ret();
  }

 private:
  std::vector<Step> steps_;
};

}  // namespace

namespace {

// A phase's work class: its own keys, else the defaults; b_c + b_u checked.
WorkClass work_class_of(const PhaseSpec& p, const WorkSensitivity& defaults) {
  const WorkClass wc{p.beta.value_or(defaults.core), p.bus, p.uncore.value_or(defaults.uncore)};
  if (const std::string error = sensitivity_error(wc.sensitivity()); !error.empty())
    throw std::invalid_argument("synthetic DAG: '" + p.text + "': " + error +
                                " (beta= and uncore= set them per phase; the defaults come from the profile's beta, "
                                "--core-sensitivity and --uncore-sensitivity)");
  return wc;
}

}  // namespace

Program build_synthetic(const DagSpec& spec, double reference_hz, double default_beta) {
  return build_synthetic(spec, reference_hz, WorkSensitivity{default_beta, 0.0});
}

namespace {

// Makes the shapes programs are built of: each a task construct of its own
// (task type = its place, 1, 2, ...), named by the phase it belongs to.
class ShapeMaker {
 public:
  explicit ShapeMaker(Program& prog) : prog_(prog) {}
  void name_next(const std::string& phase_text) { phase_text_ = phase_text; }
  const Shape* own(std::unique_ptr<Shape> s) {
    s->set_task_type(static_cast<TaskType>(prog_.shapes.size() + 1));
    prog_.task_type_names.resize(prog_.shapes.size() + 2);
    prog_.task_type_names[prog_.shapes.size() + 1] = phase_text_;
    prog_.shapes.push_back(std::move(s));
    return prog_.shapes.back().get();
  }

 private:
  Program& prog_;
  std::string phase_text_;
};

SequenceShape::Phase make_phase(const PhaseSpec& p, const WorkSensitivity& defaults, double reference_hz,
                                ShapeMaker& make) {
  const WorkClass wc = work_class_of(p, defaults);
  const double work = p.work.ns_at(reference_hz);
  const double node = p.node.ns_at(reference_hz);
  auto own = [&make](std::unique_ptr<Shape> s) { return make.own(std::move(s)); };
  switch (p.kind) {
    case PhaseKind::fib: return {own(std::make_unique<FibShape>(wc, p.jitter, p.seed, node, work)), p.n, 0};
    case PhaseKind::loop:
      if (p.linear && (p.n + p.grain - 1) / p.grain >= (std::int64_t{1} << 32) - 2)
        throw std::invalid_argument("synthetic DAG: '" + p.text + "': a linear loop may have at most 2^32 - 2 chunks");
      return {own(std::make_unique<LoopShape>(wc, p.jitter, p.seed, work, p.grain, p.linear)), 0, p.n};
    case PhaseKind::dc:
      return {own(std::make_unique<DcShape>(wc, p.jitter, p.seed, work, node, p.post.ns_at(reference_hz), p.fanout)),
              p.depth, 0};
    case PhaseKind::split: {
      const Shape* filter =
          p.parallel_filter ? own(std::make_unique<LoopShape>(wc, 0.0, p.seed, node, p.grain, false)) : nullptr;
      return {own(std::make_unique<SplitShape>(wc, p.jitter, p.seed, work, node, p.grain, p.skew, filter)), p.n, 0};
    }
    case PhaseKind::chain: {
      const Shape* link = own(std::make_unique<SerialShape>(wc, p.jitter, p.seed, work));
      return {own(std::make_unique<ChainShape>(link)), p.n, 0};
    }
    case PhaseKind::serial: return {own(std::make_unique<SerialShape>(wc, p.jitter, p.seed, work)), 0, 0};
    case PhaseKind::mem:  // N tasks of `work` spawned one after another by one task, then joined
      if (p.n >= (std::int64_t{1} << 32) - 2)
        throw std::invalid_argument("synthetic DAG: '" + p.text + "': mem may have at most 2^32 - 2 tasks");
      return {own(std::make_unique<LoopShape>(wc, p.jitter, p.seed, work, 1, true)), 0, p.n};
  }
  return {nullptr, 0, 0};
}

}  // namespace

Program build_synthetic(const DagSpec& spec, double reference_hz, const WorkSensitivity& defaults) {
  if (!(reference_hz > 0)) throw std::invalid_argument("synthetic DAG: reference frequency must be positive");
  Program prog;
  prog.description = spec.text;
  std::vector<SequenceShape::Phase> phases;
  ShapeMaker make(prog);
  std::map<std::string, SequenceShape::Phase> made;  // a phase written the same way again: the same construct
  for (const PhaseSpec& p : spec.phases) {
    make.name_next(p.text);
    auto it = made.find(p.text);
    if (it == made.end()) it = made.emplace(p.text, make_phase(p, defaults, reference_hz, make)).first;
    SequenceShape::Phase phase = it->second;
    for (int r = 0; r < p.rep; ++r) {
      phase.with_previous = p.with_previous && r == 0;
      phases.push_back(phase);
    }
  }
  if (phases.size() == 1) {  // one phase is its own root: no extra task around it
    prog.root = phases.front().shape;
    prog.root_a = phases.front().a;
    prog.root_b = phases.front().b;
    return prog;
  }
  make.name_next("");
  prog.root = make.own(std::make_unique<SequenceShape>(phases));
  return prog;
}

}  // namespace rubato::sim
