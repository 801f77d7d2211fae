# `cmake --install`: the mdpvi command, the engine's libraries and their headers, and
# a CMake package (find_package(mdpvi) gives mdpvi::pipeline and the stages below it;
# tests/install_example builds against it).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(mdpvi_libraries mdpvi_model mdpvi_automata mdpvi_numeric mdpvi_ranks mdpvi_io mdpvi_gpu mdpvi_graph mdpvi_explore mdpvi_solve mdpvi_check
    mdpvi_pipeline)
foreach(library IN LISTS mdpvi_libraries)
  string(REPLACE "mdpvi_" "" short_name ${library})
  set_target_properties(${library} PROPERTIES EXPORT_NAME ${short_name})
endforeach()
# Headers include each other from the source root ("engine/model/sparse_mdp.h"):
# installed under include/mdpvi with the same paths.
set(mdpvi_include_dir ${CMAKE_INSTALL_INCLUDEDIR}/mdpvi)
target_include_directories(mdpvi_model INTERFACE $<INSTALL_INTERFACE:${mdpvi_include_dir}>)

install(TARGETS mdpvi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${mdpvi_libraries} EXPORT mdpviTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY engine graph gpu io DESTINATION ${mdpvi_include_dir} FILES_MATCHING PATTERN "*.h")

set(mdpvi_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/mdpvi)
install(EXPORT mdpviTargets NAMESPACE mdpvi:: DESTINATION ${mdpvi_package_dir})
configure_package_config_file(tools/cmake/mdpviConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/mdpviConfig.cmake
                              INSTALL_DESTINATION ${mdpvi_package_dir})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/mdpviConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mdpviConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/mdpviConfigVersion.cmake
        DESTINATION ${mdpvi_package_dir})
