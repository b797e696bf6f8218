#include "rubato/sim/dag_spec.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <initializer_list>

namespace rubato::sim {
namespace {

struct ParseFailure {
  std::string message;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_on(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

// The leading number of `s` (from_chars accepts "1e6", "0.5"); `rest` gets the unit.
bool leading_number(std::string_view s, double& value, std::string_view& rest) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end == s.data() || !std::isfinite(value)) return false;
  rest = s.substr(static_cast<std::size_t>(end - s.data()));
  return true;
}

class PhaseParser {
 public:
  PhaseParser(std::string_view text, std::size_t index) : text_(text), index_(index) {}

  [[noreturn]] void fail(std::string_view token, const std::string& expected) const {
    throw ParseFailure{"phase " + std::to_string(index_ + 1) + " ('" + std::string(text_) + "'): '" +
                       std::string(token) + "': " + expected};
  }

  double number(std::string_view key, std::string_view v, double lo, double hi) const {
    double x = 0;
    std::string_view rest;
    if (!leading_number(v, x, rest) || !rest.empty() || x < lo || x > hi)
      fail(v, "expected a number in [" + fmt(lo) + ", " + fmt(hi) + "] for " + std::string(key));
    return x;
  }

  std::int64_t count(std::string_view key, std::string_view v, double lo, double hi) const {
    const double x = number(key, v, lo, hi);
    if (x != std::floor(x)) fail(v, "expected a whole number for " + std::string(key));
    return static_cast<std::int64_t>(x);
  }

  WorkAmount amount(std::string_view key, std::string_view v) const {
    double x = 0;
    std::string_view unit;
    if (!leading_number(v, x, unit) || x < 0 || x > 1e15)
      fail(v, "expected an amount of work for " + std::string(key) + " (e.g. 10us, 50ns, 2ms, 3000cyc, 2kcyc)");
    WorkAmount w;
    if (unit == "ns") w.ns = x;
    else if (unit == "us") w.ns = x * 1e3;
    else if (unit == "ms") w.ns = x * 1e6;
    else if (unit == "s") w.ns = x * 1e9;
    else if (unit == "cyc") w.cycles = x;
    else if (unit == "kcyc") w.cycles = x * 1e3;
    else if (unit == "Mcyc") w.cycles = x * 1e6;
    else
      fail(v, "expected a unit for " + std::string(key) +
                  ": ns, us, ms, s (time at the fastest frequency) or cyc, kcyc, Mcyc");
    return w;
  }

  static std::string fmt(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", x);
    return buf;
  }

 private:
  std::string_view text_;
  std::size_t index_;
};

constexpr double kMaxCount = 1e12;

PhaseKind kind_of(std::string_view name, const PhaseParser& p) {
  if (name == "fib") return PhaseKind::fib;
  if (name == "loop") return PhaseKind::loop;
  if (name == "dc") return PhaseKind::dc;
  if (name == "split") return PhaseKind::split;
  if (name == "chain") return PhaseKind::chain;
  if (name == "serial") return PhaseKind::serial;
  if (name == "mem") return PhaseKind::mem;
  p.fail(name, "expected a kind: fib, loop, dc, split, chain, serial, mem or pbbs");
}

const char* keys_of(PhaseKind k) {
  switch (k) {
    case PhaseKind::fib: return "work, node, leaf";
    case PhaseKind::loop: return "grain, iter, split";
    case PhaseKind::dc: return "depth, fanout, leaf, pre, post";
    case PhaseKind::split: return "grain, item, part, skew, filter";
    case PhaseKind::chain: return "work";
    case PhaseKind::serial: return "work";
    case PhaseKind::mem: return "tasks, work, solo";
  }
  return "";
}

PhaseSpec defaults_for(PhaseKind k) {
  PhaseSpec s;
  s.kind = k;
  switch (k) {
    case PhaseKind::fib:
      s.work.ns = 50;
      s.node.ns = 50;
      break;
    case PhaseKind::loop:
      s.grain = 1000;
      s.work.ns = 10;
      break;
    case PhaseKind::dc: s.work.ns = 10e3; break;
    case PhaseKind::split:
      s.grain = 1000;
      s.work.ns = 10;
      s.node.ns = 2;
      s.skew = 0.5;
      break;
    case PhaseKind::chain: s.work.ns = 10e3; break;
    case PhaseKind::serial: break;
    case PhaseKind::mem:
      s.work.ns = 1e9;
      s.bus = 1;
      break;
  }
  return s;
}

bool has_main_argument(PhaseKind k) { return k != PhaseKind::dc; }

void set_main(PhaseSpec& s, std::string_view v, const PhaseParser& p) {
  switch (s.kind) {
    case PhaseKind::fib: s.n = p.count("N", v, 0, 90); break;
    case PhaseKind::loop:
    case PhaseKind::split:
    case PhaseKind::chain:
    case PhaseKind::mem: s.n = p.count("N", v, 0, kMaxCount); break;
    case PhaseKind::serial: s.work = p.amount("T", v); break;
    case PhaseKind::dc: p.fail(v, "dc takes no bare value; expected key=value (depth, fanout, leaf, pre, post)");
  }
}

// One key=value item of a phase: the key, its value and the parser that
// reads the value (and names the phase when it is wrong).
struct KeyValue {
  std::string_view key;
  std::string_view value;
  const PhaseParser& p;

  double number(double lo, double hi) const { return p.number(key, value, lo, hi); }
  std::int64_t count(double lo, double hi) const { return p.count(key, value, lo, hi); }
  WorkAmount amount() const { return p.amount(key, value); }
  // A value that is one of two words: false for `no`, true for `yes`.
  bool choice(std::string_view no, std::string_view yes) const {
    if (value == no) return false;
    if (value != yes)
      p.fail(value, "expected " + std::string(no) + " or " + std::string(yes) + " for " + std::string(key));
    return true;
  }
};

// The kinds that take a key: one bit per PhaseKind.
using KindSet = unsigned;
constexpr KindSet kind_set(std::initializer_list<PhaseKind> ks) {
  KindSet set = 0;
  for (PhaseKind k : ks) set |= 1u << static_cast<unsigned>(k);
  return set;
}
constexpr KindSet kEveryKind = ~0u;

struct PhaseKey {
  KindSet kinds;
  std::string_view key;
  void (*set)(PhaseSpec& s, const KeyValue& kv);
};

using K = PhaseKind;

// What each key sets, per kind (dag_spec.hpp lists them with their meaning).
constexpr PhaseKey kPhaseKeys[] = {
    {kEveryKind, "jitter", [](PhaseSpec& s, const KeyValue& kv) { s.jitter = kv.number(0, 1); }},
    {kEveryKind, "beta", [](PhaseSpec& s, const KeyValue& kv) { s.beta = kv.number(0, 1); }},
    {kEveryKind, "uncore", [](PhaseSpec& s, const KeyValue& kv) { s.uncore = kv.number(0, 1); }},
    {kEveryKind, "bus", [](PhaseSpec& s, const KeyValue& kv) { s.bus = kv.number(0, 1); }},
    {kEveryKind, "solo", [](PhaseSpec& s, const KeyValue& kv) { s.bus = kv.number(0, 1); }},
    {kEveryKind, "seed",
     [](PhaseSpec& s, const KeyValue& kv) { s.seed = static_cast<std::uint64_t>(kv.count(0, 1e15)); }},
    {kEveryKind, "rep", [](PhaseSpec& s, const KeyValue& kv) { s.rep = static_cast<int>(kv.count(1, 1e6)); }},
    {kind_set({K::fib}), "work", [](PhaseSpec& s, const KeyValue& kv) { s.work = s.node = kv.amount(); }},
    {kind_set({K::fib}), "node", [](PhaseSpec& s, const KeyValue& kv) { s.node = kv.amount(); }},
    {kind_set({K::fib, K::dc}), "leaf", [](PhaseSpec& s, const KeyValue& kv) { s.work = kv.amount(); }},
    {kind_set({K::loop, K::split}), "grain",
     [](PhaseSpec& s, const KeyValue& kv) { s.grain = kv.count(1, kMaxCount); }},
    {kind_set({K::loop}), "iter", [](PhaseSpec& s, const KeyValue& kv) { s.work = kv.amount(); }},
    {kind_set({K::loop}), "split", [](PhaseSpec& s, const KeyValue& kv) { s.linear = kv.choice("binary", "linear"); }},
    {kind_set({K::dc}), "depth", [](PhaseSpec& s, const KeyValue& kv) { s.depth = static_cast<int>(kv.count(0, 40)); }},
    {kind_set({K::dc}), "fanout",
     [](PhaseSpec& s, const KeyValue& kv) { s.fanout = static_cast<int>(kv.count(1, 64)); }},
    {kind_set({K::dc}), "pre", [](PhaseSpec& s, const KeyValue& kv) { s.node = kv.amount(); }},
    {kind_set({K::dc}), "post", [](PhaseSpec& s, const KeyValue& kv) { s.post = kv.amount(); }},
    {kind_set({K::split}), "item", [](PhaseSpec& s, const KeyValue& kv) { s.work = kv.amount(); }},
    {kind_set({K::split}), "part", [](PhaseSpec& s, const KeyValue& kv) { s.node = kv.amount(); }},
    {kind_set({K::split}), "skew", [](PhaseSpec& s, const KeyValue& kv) { s.skew = kv.number(0, 0.98); }},
    {kind_set({K::split}), "filter",
     [](PhaseSpec& s, const KeyValue& kv) { s.parallel_filter = kv.choice("serial", "par"); }},
    {kind_set({K::chain, K::serial, K::mem}), "work", [](PhaseSpec& s, const KeyValue& kv) { s.work = kv.amount(); }},
    {kind_set({K::mem}), "tasks", [](PhaseSpec& s, const KeyValue& kv) { s.n = kv.count(0, kMaxCount); }},
};

void set_key(PhaseSpec& s, std::string_view key, std::string_view v, const PhaseParser& p) {
  for (const PhaseKey& k : kPhaseKeys) {
    if (k.key == key && (k.kinds & kind_set({s.kind}))) return k.set(s, KeyValue{key, v, p});
  }
  p.fail(key,
         std::string("unknown key; expected ") + keys_of(s.kind) + ", jitter, beta, uncore, bus/solo, seed or rep");
}

PhaseSpec parse_phase(std::string_view text, std::size_t index) {
  const PhaseParser p(text, index);
  const auto items = split_on(text, ':');
  const std::string_view name = trim(items.front());
  if (name.empty()) p.fail(text, "expected a kind: fib, loop, dc, split, chain, serial, mem or pbbs");
  PhaseSpec s = defaults_for(kind_of(name, p));
  s.text = std::string(text);
  bool main_seen = false;
  for (std::size_t i = 1; i < items.size(); ++i) {
    const std::string_view item = trim(items[i]);
    if (item.empty()) p.fail(text, "empty item between ':'");
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) {
      if (main_seen || i != 1 || !has_main_argument(s.kind))
        p.fail(item,
               std::string("expected key=value (") + keys_of(s.kind) + ", jitter, beta, uncore, bus/solo, seed, rep)");
      set_main(s, item, p);
      main_seen = true;
      continue;
    }
    const std::string_view key = trim(item.substr(0, eq));
    const std::string_view value = trim(item.substr(eq + 1));
    if (value.empty()) p.fail(item, "expected a value after '='");
    set_key(s, key, value, p);
    if (s.kind == PhaseKind::mem && key == "tasks") main_seen = true;  // mem:tasks=N is mem:N
  }
  if (s.beta && s.uncore && *s.beta + *s.uncore > 1 + 1e-9)
    p.fail(text,
           "beta + uncore must be at most 1 (the shares of the work's time that scale with the core and "
           "with the uncore clock)");
  if (!main_seen && has_main_argument(s.kind)) {
    if (s.kind == PhaseKind::serial && (s.work.ns > 0 || s.work.cycles > 0)) return s;
    p.fail(text, s.kind == PhaseKind::serial ? "expected serial:<time>" : "expected <kind>:<N> (the size)");
  }
  return s;
}

}  // namespace

namespace {

// One ','-separated group: phases joined by '+' (before a kind's name, so
// that "1e+6" stays a number) run at the same time.
bool parse_group(std::string_view group, std::size_t& index, DagSpec& spec, std::string& error) {
  std::size_t from = 0;
  bool joined = false;
  for (std::size_t i = 0; i <= group.size(); ++i) {
    const bool cut = i == group.size() || (group[i] == '+' && i + 1 < group.size() &&
                                           std::isalpha(static_cast<unsigned char>(group[i + 1])));
    if (!cut) continue;
    const std::string_view member = trim(group.substr(from, i - from));
    if (member.empty()) {
      error = "phase " + std::to_string(index + 1) + " is empty (phases run together are joined by '+')";
      return false;
    }
    PhaseSpec s = parse_phase(member, index++);
    s.with_previous = joined;
    spec.phases.push_back(std::move(s));
    joined = true;
    from = i + 1;
  }
  return true;
}

}  // namespace

std::optional<DagSpec> parse_dag_spec(std::string_view text, std::string& error) {
  error.clear();
  DagSpec spec;
  spec.text = std::string(trim(text));
  if (spec.text.empty()) {
    error = "empty DAG spec (e.g. fib:30, loop:1e6:grain=1000, dc:depth=20:leaf=10us, pbbs:sort)";
    return std::nullopt;
  }
  try {
    std::size_t index = 0;
    for (std::string_view raw : split_on(spec.text, ',')) {
      const std::string_view phase = trim(raw);
      if (phase.empty()) {
        error = "phase " + std::to_string(index + 1) + " is empty (phases are separated by ',')";
        return std::nullopt;
      }
      if (phase.substr(0, 5) == "pbbs:" || phase == "pbbs") {
        const auto items = split_on(phase, ':');
        const std::string_view name = items.size() > 1 ? trim(items[1]) : std::string_view{};
        const auto preset = pbbs_preset(name);
        if (!preset) {
          std::string names;
          for (const auto& n : pbbs_preset_names()) names += (names.empty() ? "" : ", ") + n;
          error = "phase " + std::to_string(index + 1) + " ('" + std::string(phase) + "'): '" + std::string(name) +
                  "': expected a PBBS shape: " + names;
          return std::nullopt;
        }
        // Extra items (e.g. pbbs:sort:seed=3) apply to every phase of the preset.
        std::string extra;
        for (std::size_t i = 2; i < items.size(); ++i) extra += ":" + std::string(trim(items[i]));
        for (std::string_view sub : split_on(*preset, ',')) {
          PhaseSpec s = parse_phase(std::string(trim(sub)) + extra, index);
          s.text = std::string(trim(sub)) + extra;
          spec.phases.push_back(std::move(s));
        }
        ++index;
        continue;
      }
      if (!parse_group(phase, index, spec, error)) return std::nullopt;
    }
  } catch (const ParseFailure& f) {
    error = f.message;
    return std::nullopt;
  }
  return spec;
}

}  // namespace rubato::sim
