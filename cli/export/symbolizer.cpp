#include "export/symbolizer.hpp"

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#ifdef RUBATO_HAVE_LIBDW
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#endif

namespace rubato::cli {

namespace {

std::string demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

std::string hex(const std::string& bytes) {
  std::string out;
  char b[3];
  for (unsigned char c : bytes) {
    std::snprintf(b, sizeof b, "%02x", c);
    out += b;
  }
  return out;
}

const TraceModule* module_of(const std::vector<TraceModule>& modules, std::uint64_t address) {
  for (const TraceModule& m : modules)
    if (address >= m.low && address < m.high) return &m;
  return nullptr;
}

}  // namespace

#ifdef RUBATO_HAVE_LIBDW

namespace {

// The line of `address` by walking the module's compilation units: libdwfl's
// own lookup (dwfl_module_getsrc) needs .debug_aranges, which clang does not
// emit by default and elfutils before 0.191 does not rebuild from the units.
Dwarf_Line* line_by_units(Dwfl_Module* mod, Dwarf_Addr address) {
  Dwarf_Addr bias = 0;
  for (Dwarf_Die* cu = dwfl_module_nextcu(mod, nullptr, &bias); cu; cu = dwfl_module_nextcu(mod, cu, &bias))
    if (dwarf_haspc(cu, address - bias) > 0) return dwarf_getsrc_die(cu, address - bias);
  return nullptr;
}

void set_line(Dwfl_Module* mod, Dwarf_Addr call, CodeLocation& where) {
  int lineno = 0;
  const char* file = nullptr;
  if (Dwfl_Line* line = dwfl_module_getsrc(mod, call))
    file = dwfl_lineinfo(line, nullptr, &lineno, nullptr, nullptr, nullptr);
  else if (Dwarf_Line* l = line_by_units(mod, call)) {
    file = dwarf_linesrc(l, nullptr, nullptr);
    dwarf_lineno(l, &lineno);
  }
  if (!file) return;
  where.file = file;
  where.line = static_cast<std::uint32_t>(lineno > 0 ? lineno : 0);
}

}  // namespace

struct Symbolizer::Impl {
  Dwfl_Callbacks callbacks{};
  Dwfl* dwfl = nullptr;
  std::unordered_map<std::uint64_t, CodeLocation> cache;
  std::vector<bool> usable;  // per module: reported and its build-id matches
  char* debuginfo_path = nullptr;
};

Symbolizer::Symbolizer(const std::vector<TraceModule>& modules) : impl_(std::make_unique<Impl>()), modules_(modules) {
  Impl& s = *impl_;
  s.callbacks.find_elf = dwfl_build_id_find_elf;
  s.callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
  s.callbacks.section_address = dwfl_offline_section_address;
  s.callbacks.debuginfo_path = &s.debuginfo_path;
  s.dwfl = dwfl_begin(&s.callbacks);
  s.usable.assign(modules_.size(), false);
  if (!s.dwfl) {
    notes_.push_back(std::string("libdwfl: ") + dwfl_errmsg(-1) + "; tasks are named by address");
    return;
  }
  dwfl_report_begin(s.dwfl);
  for (std::size_t i = 0; i < modules_.size(); ++i) {
    const TraceModule& m = modules_[i];
    std::error_code ec;
    if (!std::filesystem::is_regular_file(m.path, ec)) continue;  // the vDSO, a deleted library
    Dwfl_Module* mod = dwfl_report_elf(s.dwfl, m.path.c_str(), m.path.c_str(), -1, m.bias, true);
    if (!mod) {
      notes_.push_back(m.path + ": " + dwfl_errmsg(-1));
      continue;
    }
    const unsigned char* bits = nullptr;
    GElf_Addr vaddr = 0;
    const int n = dwfl_module_build_id(mod, &bits, &vaddr);
    const std::string now = n > 0 ? std::string(reinterpret_cast<const char*>(bits), static_cast<std::size_t>(n)) : "";
    if (!m.build_id.empty() && now != m.build_id) {
      notes_.push_back(m.path + ": build-id " + hex(now) + " differs from the run's " + hex(m.build_id) +
                       " (rebuilt since?): its tasks are named by address");
      continue;
    }
    s.usable[i] = true;
  }
  dwfl_report_end(s.dwfl, nullptr, nullptr);
}

Symbolizer::~Symbolizer() {
  if (impl_->dwfl) dwfl_end(impl_->dwfl);
}

CodeLocation Symbolizer::resolve(std::uint64_t return_address) {
  auto [it, fresh] = impl_->cache.try_emplace(return_address);
  if (!fresh) return it->second;
  CodeLocation& where = it->second;
  const TraceModule* m = module_of(modules_, return_address);
  if (!m) return where;
  where.module = m->path;
  where.offset = return_address - m->bias;
  if (!impl_->dwfl || !impl_->usable[static_cast<std::size_t>(m - modules_.data())]) return where;
  const Dwarf_Addr call = return_address - 1;
  Dwfl_Module* mod = dwfl_addrmodule(impl_->dwfl, call);
  if (!mod) return where;
  if (const char* name = dwfl_module_addrname(mod, call)) {
    where.function = demangle(name);
    // The tbb-preload's code address is the task object's vtable pointer
    // (docs/trace-format.md): the task is named by its type.
    constexpr std::string_view kVtable = "vtable for ";
    if (where.function.starts_with(kVtable)) where.function.erase(0, kVtable.size());
  }
  set_line(mod, call, where);
  return where;
}

#else  // without libdw: module + offset only

struct Symbolizer::Impl {};

Symbolizer::Symbolizer(const std::vector<TraceModule>& modules) : impl_(std::make_unique<Impl>()), modules_(modules) {
  if (!modules_.empty()) notes_.push_back("built without libdw (elfutils): tasks are named by module and offset");
}
Symbolizer::~Symbolizer() = default;

CodeLocation Symbolizer::resolve(std::uint64_t return_address) {
  CodeLocation where;
  if (const TraceModule* m = module_of(modules_, return_address)) {
    where.module = m->path;
    where.offset = return_address - m->bias;
  }
  return where;
}

#endif

std::string code_label(const CodeLocation& where, std::uint64_t address) {
  if (!where.function.empty()) {
    if (where.file.empty()) return where.function;
    return where.function + " (" + std::filesystem::path(where.file).filename().string() + ":" +
           std::to_string(where.line) + ")";
  }
  char off[32];
  if (where.module.empty()) {
    std::snprintf(off, sizeof off, "task at 0x%llx", static_cast<unsigned long long>(address));
    return off;
  }
  std::snprintf(off, sizeof off, "+0x%llx", static_cast<unsigned long long>(where.offset));
  return std::filesystem::path(where.module).filename().string() + off;
}

}  // namespace rubato::cli
