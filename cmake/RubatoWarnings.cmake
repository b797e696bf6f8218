# Warnings and sanitizers for rubato's own targets (not for consumers).
add_library(rubato_warnings INTERFACE)
target_compile_options(rubato_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                       $<$<CXX_COMPILER_ID:Clang>:-Wno-gnu-zero-variadic-macro-arguments>)

if(RUBATO_SANITIZE)
  add_compile_options(-fsanitize=${RUBATO_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${RUBATO_SANITIZE})
endif()

# Fuzz builds: coverage for libFuzzer in every library the targets link
# (tests/fuzz). The asan preset builds them too, so the macro that lets mutated
# inputs past checksums is set only on the fuzz targets (tests/fuzz): the unit
# tests of the same tree check that a damaged checksum is refused.
if(RUBATO_BUILD_FUZZERS)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

function(rubato_target_defaults target)
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:rubato_warnings>)
endfunction()
