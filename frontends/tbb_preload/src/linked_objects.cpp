#include "linked_objects.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

namespace rubato::tbb::detail {
namespace {

struct Search {
  std::string_view prefix;
  const void* self_base = nullptr;
  bool found = false;
};

bool needs(const dl_phdr_info& info, std::string_view prefix) {
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info.dlpi_phdr[i];
    if (ph.p_type != PT_DYNAMIC) continue;
    const auto* dyn = reinterpret_cast<const ElfW(Dyn)*>(info.dlpi_addr + ph.p_vaddr);
    const char* strtab = nullptr;
    for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d) {
      if (d->d_tag != DT_STRTAB) continue;
      // ld.so relocates the dynamic section of objects it loads, not the vDSO's.
      ElfW(Addr) at = d->d_un.d_ptr;
      if (at < info.dlpi_addr) at += info.dlpi_addr;
      strtab = reinterpret_cast<const char*>(at);
    }
    if (!strtab) return false;
    for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d)
      if (d->d_tag == DT_NEEDED && std::string_view(strtab + d->d_un.d_val).starts_with(prefix)) return true;
  }
  return false;
}

int visit(dl_phdr_info* info, std::size_t, void* data) {
  auto& s = *static_cast<Search*>(data);
  if (reinterpret_cast<const void*>(info->dlpi_addr) == s.self_base) return 0;
  if (needs(*info, s.prefix)) {
    s.found = true;
    return 1;
  }
  return 0;
}

}  // namespace

bool another_object_needs(std::string_view prefix, const void* self) noexcept {
  Dl_info own{};
  if (!dladdr(self, &own)) return false;
  Search s{prefix, own.dli_fbase, false};
  dl_iterate_phdr(&visit, &s);
  return s.found;
}

}  // namespace rubato::tbb::detail
