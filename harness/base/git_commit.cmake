# Writes OUT (a header defining SL_GIT_COMMIT) from the commit of the source
# tree SRC at build time, so a run records the commit its binary was built
# from, not the one CMake was configured at; "-dirty" when tracked files
# differ from that commit. The file is rewritten only when the line
# changes, so an unchanged tree rebuilds nothing.
set(commit "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
                  WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE head
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                  RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND head)
    set(commit "${head}")
    execute_process(COMMAND ${GIT_EXECUTABLE} diff --quiet HEAD --
                    WORKING_DIRECTORY ${SRC} RESULT_VARIABLE dirty
                    ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      set(commit "${head}-dirty")
    endif()
  endif()
endif()
set(line "#define SL_GIT_COMMIT \"${commit}\"\n")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL line)
  file(WRITE ${OUT} "${line}")
endif()
