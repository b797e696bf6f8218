#include "rubato/power/os/loaded_modules.hpp"

#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

namespace rubato {
namespace {

// The GNU build-id note of a loaded PT_NOTE segment, or "".
std::string build_id_in(const char* note, std::size_t size) {
  std::size_t at = 0;
  while (at + sizeof(ElfW(Nhdr)) <= size) {
    ElfW(Nhdr) h;
    std::memcpy(&h, note + at, sizeof h);
    const std::size_t name_at = at + sizeof h;
    const std::size_t desc_at = name_at + ((h.n_namesz + 3u) & ~3u);
    const std::size_t next = desc_at + ((h.n_descsz + 3u) & ~3u);
    if (next > size) break;
    if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 && std::memcmp(note + name_at, "GNU", 4) == 0)
      return std::string(note + desc_at, h.n_descsz);
    at = next;
  }
  return {};
}

std::string executable_path() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf);
  return n > 0 && static_cast<std::size_t>(n) < sizeof buf ? std::string(buf, static_cast<std::size_t>(n)) : "";
}

// No exception may leave it: dl_iterate_phdr holds the loader's lock.
void add_module(dl_phdr_info* info, std::vector<TraceModule>& out) {
  TraceModule m;
  m.bias = info->dlpi_addr;
  m.low = std::numeric_limits<std::uint64_t>::max();
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type == PT_LOAD) {
      m.low = std::min<std::uint64_t>(m.low, info->dlpi_addr + p.p_vaddr);
      m.high = std::max<std::uint64_t>(m.high, info->dlpi_addr + p.p_vaddr + p.p_memsz);
    } else if (p.p_type == PT_NOTE && m.build_id.empty()) {
      m.build_id = build_id_in(reinterpret_cast<const char*>(info->dlpi_addr + p.p_vaddr), p.p_memsz);
    }
  }
  if (m.high == 0) return;  // nothing loaded
  // The executable is the first entry and has an empty name.
  m.path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : (out.empty() ? executable_path() : "");
  if (!m.path.empty()) out.push_back(std::move(m));
}

int add_module_or_stop(dl_phdr_info* info, std::size_t, void* data) noexcept {
  try {
    add_module(info, *static_cast<std::vector<TraceModule>*>(data));
    return 0;
  } catch (...) {
    return 1;  // out of memory: stop here
  }
}

}  // namespace

std::vector<TraceModule> loaded_modules() noexcept {
  std::vector<TraceModule> modules;
  dl_iterate_phdr(&add_module_or_stop, &modules);
  return modules;
}

}  // namespace rubato
