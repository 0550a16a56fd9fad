# Discovery, grouping and table planning over a generated sysfs tree: 4096
# paths, 1024 maps.
add_executable(discovery_bench ${CMAKE_CURRENT_LIST_DIR}/discovery_bench.cpp)
target_link_libraries(discovery_bench PRIVATE mpath_testing benchmark::benchmark mpath_warnings)
