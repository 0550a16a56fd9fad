# The D-Bus API's biggest answers (GetManagedObjects) for many maps, over
# the daemon on its test loop.
if(TARGET mpathd_core AND TARGET mpath_testing)
    add_executable(bus_bench ${CMAKE_CURRENT_LIST_DIR}/bus_bench.cpp)
    target_include_directories(bus_bench PRIVATE ${PROJECT_SOURCE_DIR}/tests/integration
                                                 ${PROJECT_SOURCE_DIR}/tests/unit/support)
    target_link_libraries(bus_bench PRIVATE mpathd_core mpath_testing GTest::gtest mpath_warnings)
endif()

# mpathd at 1,024 to 16,384 paths, over the daemon on its test loop.
if(TARGET mpathd_core AND TARGET mpath_testing)
    add_executable(scale_bench ${CMAKE_CURRENT_LIST_DIR}/scale_bench.cpp)
    target_include_directories(scale_bench PRIVATE ${PROJECT_SOURCE_DIR}/tests/integration
                                                   ${PROJECT_SOURCE_DIR}/tests/unit/support)
    target_link_libraries(scale_bench PRIVATE mpathd_core mpath_testing GTest::gtest
                                              mpath_warnings)
endif()
