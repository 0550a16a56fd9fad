#include "mpath/model/map.h"

#include <gtest/gtest.h>
#include <sys/sysmacros.h>

using namespace mpath::model;

TEST(Path, DevtStringIsMajorColonMinor) {
    Path p;
    p.devt = makedev(8, 16);
    EXPECT_EQ(p.devtString(), "8:16");
}

TEST(Map, DmUuidIsMpathDashWwid) {
    Map m;
    m.wwid = "3600140512345";
    EXPECT_EQ(m.dmUuid(), "mpath-3600140512345");
}

TEST(Map, CopiesCompareEqualAndDifferAfterChange) {
    Map m;
    m.wwid = "x";
    m.groups.push_back(PathGroup{});
    Path p;
    p.kernelName = "sda";
    m.groups[0].paths.push_back(p);
    Map copy = m;
    EXPECT_EQ(copy, m);
    copy.groups[0].paths[0].kernelName = "sdb";
    EXPECT_NE(copy, m);
}
