# rubato_library(<name> <STATIC|SHARED|MODULE> SOURCES <files...> [INSTALL_HEADERS <paths...>]
#                [INTERNAL | NO_EXPORT])
# The shape every rubato library shares: target rubato_<name> with the alias
# rubato::<name> (the name find_package(rubato) users link), position-
# independent code (the front-ends are shared objects that link the static
# libraries), include/ as the public include root and src/ as the private one
# (a folder's private headers are included as "<concern>/<file>.hpp"), C++20,
# the project's warnings, and its place in the exported package.
# INSTALL_HEADERS <paths...>: the public headers to install, relative to
# include/ (folders install whole); none when left out.
# MODULE (a plug-in such as the OMPT tool): loaded, never linked against, so
# it exports no usage requirements. INTERNAL: a piece of another target and
# its tests, neither installed nor exported. NO_EXPORT: installed, but not in
# the exported package (the preload library: programs load it, none links it).
function(rubato_library name type)
  cmake_parse_arguments(arg "INTERNAL;NO_EXPORT" "" "SOURCES;INSTALL_HEADERS" ${ARGN})
  set(target rubato_${name})
  add_library(${target} ${type} ${arg_SOURCES})
  add_library(rubato::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name} OUTPUT_NAME ${target} POSITION_INDEPENDENT_CODE ON)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/include)
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                                                $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  endif()
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/src)
    target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)
  endif()
  if(type STREQUAL "MODULE")
    target_compile_features(${target} PRIVATE cxx_std_20)
  else()
    target_compile_features(${target} PUBLIC cxx_std_20)
  endif()
  rubato_target_defaults(${target})
  if(arg_INTERNAL)
    return()
  endif()
  set(export EXPORT rubatoTargets)
  if(arg_NO_EXPORT)
    set(export "")
  endif()
  install(TARGETS ${target} ${export} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  foreach(header IN LISTS arg_INSTALL_HEADERS)
    get_filename_component(subdir ${header} DIRECTORY)
    if(IS_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/${header})
      install(DIRECTORY include/${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${subdir})
    else()
      install(FILES include/${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${subdir})
    endif()
  endforeach()
endfunction()
