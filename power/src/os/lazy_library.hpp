// Calls forwarded to a library loaded on first use instead of linked
// (likwid_library.cpp, papi_library.cpp): the callers keep calling the
// library's functions by name; each forwarder, defined with the library
// header's own declaration, looks its function up once and returns `failure`
// when the library or the symbol is missing.
#pragma once

#include <dlfcn.h>

namespace rubato::lazy_library {

template <class Fn>
Fn* resolve(void* handle, const char* name) noexcept {
  return handle ? reinterpret_cast<Fn*>(dlsym(handle, name)) : nullptr;
}

}  // namespace rubato::lazy_library

// handle: an expression giving the library's dlopen handle (nullptr: not loaded);
// then the return type, name, parameters, arguments, value without the library.
#define RUBATO_LAZY_FORWARD(handle, ret, name, params, args, failure)                     \
  extern "C" ret name params {                                                            \
    static auto* const real = ::rubato::lazy_library::resolve<ret params>(handle, #name); \
    if (!real) return failure;                                                            \
    return real args;                                                                     \
  }
