# rubato_compat_headers(<target> <old=new>...): headers at the paths of
# rubato 0.1.x that forward to where each header lives now (CHANGELOG.md,
# 0.2.0: the headers moved into one folder per concern). Installed only: the
# tree's own code uses the new paths. To be removed in 0.3.
function(rubato_compat_headers target)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/compat)
  foreach(pair IN LISTS ARGN)
    string(REPLACE "=" ";" pair ${pair})
    list(GET pair 0 old)
    list(GET pair 1 new)
    file(WRITE ${dir}/${old}.tmp "// Deprecated path (rubato 0.1): include <${new}>. Removed in rubato 0.3.\n"
                                 "#pragma once\n#include <${new}>\n")
    configure_file(${dir}/${old}.tmp ${dir}/${old} COPYONLY)
    file(REMOVE ${dir}/${old}.tmp)
  endforeach()
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endfunction()
