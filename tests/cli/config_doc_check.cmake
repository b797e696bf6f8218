# docs/configuration.md is `rubato config --document`, byte for byte: the page
# cannot drift from the one table the parser uses.
execute_process(COMMAND ${RUBATO} config --document OUTPUT_VARIABLE page RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "rubato config --document failed (${rc})")
endif()
if(NOT EXISTS ${DOC})
  message(FATAL_ERROR "${DOC} is missing; generate it: rubato config --document > docs/configuration.md")
endif()
file(READ ${DOC} doc)
if(NOT doc STREQUAL page)
  message(FATAL_ERROR "docs/configuration.md differs from `rubato config --document`; regenerate it "
                      "(from the source root): build/default/cli/rubato config --document > docs/configuration.md")
endif()
