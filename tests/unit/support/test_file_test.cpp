#include "temp_dir.h"
#include "test_file.h"

#include <fstream>
#include <gtest/gtest.h>
#include <stdexcept>

TEST(TestFile, ReadsTheWholeFile) {
    mpath_test::TempDir dir;
    std::ofstream(dir.file("data")) << "one\ntwo\n";
    EXPECT_EQ(mpath_test::readFile(dir.file("data")), "one\ntwo\n");
}

TEST(TestFile, AMissingFileThrowsAndNamesIt) {
    mpath_test::TempDir dir;
    try {
        (void)mpath_test::readFile(dir.file("missing.conf"));
        FAIL() << "no exception for a missing file";
    } catch (const std::runtime_error &e) {
        EXPECT_NE(std::string(e.what()).find("missing.conf: No such file or directory"),
                  std::string::npos)
            << e.what();
    }
}
