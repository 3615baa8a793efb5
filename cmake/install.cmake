# `cmake --install BUILD --prefix PREFIX`: what a user of an installed
# scatterlab gets.
#
#   PREFIX/bin/scatterlab                         the CLI
#   PREFIX/lib/libscatterlab_kernels.so.1         scatterlab's kernels (a
#   PREFIX/lib/libscatterlab_kernels.so           provider), with its links
#   PREFIX/include/sl/sl.h, sl/sl_provider.h      the provider ABI
#   PREFIX/lib/cmake/scatterlab/                  find_package(scatterlab):
#       scatterlab::provider (headers only), scatterlab::kernels,
#       scatterlab_EXECUTABLE, SCATTERLAB_PROVIDER_ABI
#   PREFIX/lib/pkgconfig/scatterlab.pc            pkg-config --cflags
#
# (lib is CMAKE_INSTALL_LIBDIR, bin CMAKE_INSTALL_BINDIR, include
# CMAKE_INSTALL_INCLUDEDIR.) Everything is relocatable: the CLI finds the
# kernels library from its own location (harness/CMakeLists.txt computes
# bindir -> libdir), the package config from its own, the .pc file from
# ${pcfiledir}. So `--prefix` may differ from CMAKE_INSTALL_PREFIX.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(SL_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/scatterlab)

# The provider ABI version, read from the header that defines it, so that
# the package cannot announce a version the headers do not have.
file(STRINGS ${PROJECT_SOURCE_DIR}/core/include/sl/sl_provider.h sl_abi_line
     REGEX "^#define SL_PROVIDER_ABI_VERSION [0-9]+u?$")
string(REGEX REPLACE "^#define SL_PROVIDER_ABI_VERSION ([0-9]+)u?$" "\\1"
       SCATTERLAB_PROVIDER_ABI "${sl_abi_line}")
if(NOT SCATTERLAB_PROVIDER_ABI MATCHES "^[0-9]+$")
  message(FATAL_ERROR "install.cmake: no SL_PROVIDER_ABI_VERSION in "
                      "core/include/sl/sl_provider.h")
endif()
# The kernels library's soname carries the same number (core/CMakeLists.txt).
if(NOT SL_KERNELS_SONAME STREQUAL
   "libscatterlab_kernels.so.${SCATTERLAB_PROVIDER_ABI}")
  message(FATAL_ERROR "install.cmake: the kernels library's soname "
                      "${SL_KERNELS_SONAME} does not carry the provider ABI "
                      "version ${SCATTERLAB_PROVIDER_ABI}")
endif()

# --- The CLI ---------------------------------------------------------------
# In the build tree CMake gives the executable a RUNPATH to every directory
# it linked from; installing replaces it with INSTALL_RPATH, which is empty
# by default, and the installed CLI would then not find LibTorch (linked
# from SL_TORCH_HOME/lib, outside the system's library path) nor a CUDA
# runtime outside it. INSTALL_RPATH_USE_LINK_PATH keeps the directories of
# the libraries it links that lie outside the build tree and the system's
# own; $ORIGIN/<bindir -> libdir> is where the kernels library lives (the
# CLI dlopens it by full path, so this is for tools such as ldd and for
# anything that loads it by soname).
file(RELATIVE_PATH sl_bin_to_lib
     ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}
     ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR})
set_target_properties(scatterlab PROPERTIES
  INSTALL_RPATH "$ORIGIN/${sl_bin_to_lib}"
  INSTALL_RPATH_USE_LINK_PATH ON)
# The kernels library is dlopened: its own dependencies (the CUDA runtime in
# a CUDA build) are looked up through its own RUNPATH, not the CLI's. It is
# linked by nvcc in a CUDA build, for which the toolkit's library directory
# is an implicit one that INSTALL_RPATH_USE_LINK_PATH leaves out: named
# here. (Inside the CLI the runtime is already loaded, by the CLI's RUNPATH;
# this is for any other process that loads the library.)
set_target_properties(scatterlab_kernels PROPERTIES
  INSTALL_RPATH_USE_LINK_PATH ON)
if(SL_CUDA AND CUDAToolkit_LIBRARY_DIR)
  set_target_properties(scatterlab_kernels PROPERTIES
    INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
endif()

install(TARGETS scatterlab
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
# The real file libscatterlab_kernels.so.1 (VERSION = SOVERSION = the ABI)
# and the libscatterlab_kernels.so link to it.
install(TARGETS scatterlab_kernels
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)

# --- Headers and the provider target ----------------------------------------
install(FILES ${PROJECT_SOURCE_DIR}/core/include/sl/sl.h
              ${PROJECT_SOURCE_DIR}/core/include/sl/sl_provider.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sl COMPONENT dev)

# What a provider needs: the two headers, nothing to link (sl_provider.h).
add_library(scatterlab_provider INTERFACE)
add_library(scatterlab::provider ALIAS scatterlab_provider)
target_include_directories(scatterlab_provider INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/core/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(scatterlab_provider INTERFACE c_std_11)
set_target_properties(scatterlab_provider PROPERTIES EXPORT_NAME provider)
install(TARGETS scatterlab_provider EXPORT scatterlabTargets)
install(EXPORT scatterlabTargets NAMESPACE scatterlab::
        FILE scatterlabTargets.cmake DESTINATION ${SL_INSTALL_CMAKEDIR}
        COMPONENT dev)

# --- Package config ---------------------------------------------------------
# scatterlab::kernels is declared in the config file itself (an imported
# library at the installed path) rather than exported: the target in this
# build links the static core and its OpenMP/CUDA usage requirements, none
# of which a user of the installed library needs or has.
set(SL_KERNELS_FILE ${SL_KERNELS_SONAME})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/scatterlabConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/scatterlabConfig.cmake
  INSTALL_DESTINATION ${SL_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
# 0.x: a new minor version may change what the package offers. Whether a
# provider loads is SCATTERLAB_PROVIDER_ABI's business, checked at load time.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/scatterlabConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/scatterlabConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/scatterlabConfigVersion.cmake
        DESTINATION ${SL_INSTALL_CMAKEDIR} COMPONENT dev)

# --- pkg-config -------------------------------------------------------------
# prefix is found from the .pc file's own directory (${pcfiledir}), so the
# file holds no absolute path and survives `cmake --install --prefix`.
set(sl_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR
   IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  # Absolute directories chosen by the user: no relocation possible.
  set(SL_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(SL_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH sl_pc_up ${CMAKE_INSTALL_PREFIX}/${sl_pc_dir}
       ${CMAKE_INSTALL_PREFIX})
  string(REGEX REPLACE "/$" "" sl_pc_up "${sl_pc_up}")
  set(SL_PC_PREFIX "\${pcfiledir}/${sl_pc_up}")
  set(SL_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/scatterlab.pc.in
               ${PROJECT_BINARY_DIR}/cmake/scatterlab.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/scatterlab.pc
        DESTINATION ${sl_pc_dir} COMPONENT dev)
