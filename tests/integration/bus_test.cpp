// The D-Bus API: methods, properties, signals, errors and authorization,
// called through a real dbus-daemon.

#include "bus_harness.h"
#include "bus_service.h"
#include "reconciler.h"
#include "test_file.h"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <future>
#include <gtest/gtest.h>
#include <regex>
#include <set>
#include <spawn.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <thread>

extern char **environ;

namespace {

using namespace std::chrono_literals;
using Bus = mpathd_test::BusFixture;
using Dict = std::map<std::string, std::string>;
using mpathd_test::Reply;
constexpr const char *kName = "org.mpathd.Multipath1";
constexpr const char *kMapA = "36001405aaaa";
constexpr const char *kMapB = "36001405bbbb";

/// Interface name -> the sorted "method Name(in sig, out sig)" and
/// "property Name type" lines of an introspection document.
std::map<std::string, std::set<std::string>> members(const std::string &xml) {
    std::map<std::string, std::set<std::string>> out;
    const std::regex iface(R"re(<interface name="(org\.mpathd\.[^"]+)">([\s\S]*?)</interface>)re");
    const std::regex method(
        R"re(<method name="([^"]+)">([\s\S]*?)</method>|<method name="([^"]+)"/>)re");
    const std::regex argNamed(R"re(<arg\s[^>]*>)re");
    const std::regex prop(R"re(<property name="([^"]+)" type="([^"]+)" access="([^"]+)")re");
    for (std::sregex_iterator i(xml.begin(), xml.end(), iface), end; i != end; ++i) {
        auto &set = out[(*i)[1]];
        const std::string body = (*i)[2];
        for (std::sregex_iterator m(body.begin(), body.end(), method); m != end; ++m) {
            std::string in, outSig, names;
            const std::string args = (*m)[2];
            for (std::sregex_iterator a(args.begin(), args.end(), argNamed); a != end; ++a) {
                const std::string tag = a->str();
                std::smatch t, d, n;
                std::regex_search(tag, t, std::regex(R"re(type="([^"]+)")re"));
                std::regex_search(tag, d, std::regex(R"re(direction="([^"]+)")re"));
                std::regex_search(tag, n, std::regex(R"re(name="([^"]+)")re"));
                (d[1] == "out" ? outSig : in) += t[1].str();
                names += n[1].str() + ",";
            }
            const std::string name = (*m)[1].matched ? (*m)[1].str() : (*m)[3].str();
            set.insert("method " + name + "(" + in + ")->(" + outSig + ") " + names);
        }
        for (std::sregex_iterator p(body.begin(), body.end(), prop); p != end; ++p)
            set.insert("property " + (*p)[1].str() + " " + (*p)[2].str() + " " + (*p)[3].str());
    }
    return out;
}

/// The method names of an introspection document, as "Interface.Method"
/// with the interface's last element ("Map.Flush").
std::set<std::string> methodNames(const std::string &xml) {
    std::set<std::string> out;
    const std::regex method(R"re(method ([A-Za-z]+)\()re");
    for (const auto &[iface, lines] : members(xml))
        for (const auto &line : lines) {
            std::smatch m;
            if (std::regex_search(line, m, method))
                out.insert(iface.substr(iface.rfind('.') + 1) + "." + m[1].str());
        }
    return out;
}

/// The objects the XML's header lists: "/org/mpathd/Multipath1/maps/<WWID>"
/// to "org.mpathd.Multipath1.Map".
std::vector<std::pair<std::string, std::string>> listedObjects(const std::string &xml) {
    std::vector<std::pair<std::string, std::string>> out;
    const std::regex line(
        R"re(\n\s+(/org/mpathd/Multipath1\S*)\s+(org\.[A-Za-z0-9.]+)\s*(?=\n))re");
    for (std::sregex_iterator i(xml.begin(), xml.end(), line), end; i != end; ++i)
        out.emplace_back((*i)[1], (*i)[2]);
    return out;
}

} // namespace

TEST_F(Bus, IntrospectionOfTheRunningServiceMatchesTheInterfaceXml) {
    auto reference = members(mpath_test::readFile(MPATHD_INTERFACE_XML));
    ASSERT_EQ(reference.size(), 4u);
    std::map<std::string, std::set<std::string>> live;
    for (const std::string &path :
         {std::string("/org/mpathd/Multipath1/Manager"), mpathd::BusService::mapPath(kMapA),
          mpathd::BusService::groupPath(kMapA, 1), mpathd::BusService::pathPath("sdb")}) {
        std::string xml = onClient([path](sd_bus *b) {
            sd_bus_message *reply = nullptr;
            std::string out;
            if (sd_bus_call_method(b, kName, path.c_str(), "org.freedesktop.DBus.Introspectable",
                                   "Introspect", nullptr, &reply, "") >= 0) {
                const char *s = nullptr;
                if (sd_bus_message_read(reply, "s", &s) >= 0)
                    out = s;
            }
            sd_bus_message_unref(reply);
            return out;
        });
        ASSERT_FALSE(xml.empty()) << path;
        for (auto &[iface, set] : members(xml))
            live[iface].insert(set.begin(), set.end());
    }
    EXPECT_EQ(live, reference);
}

TEST_F(Bus, ObjectManagerListsMapsGroupsAndPathsWithTheirProperties) {
    auto count = onClient([](sd_bus *b) {
        sd_bus_message *reply = nullptr;
        int n = -1;
        if (sd_bus_call_method(b, kName, "/org/mpathd/Multipath1",
                               "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", nullptr,
                               &reply, "") >= 0) {
            n = 0;
            if (sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}") > 0)
                while (sd_bus_message_skip(reply, "{oa{sa{sv}}}") > 0)
                    ++n;
        }
        sd_bus_message_unref(reply);
        return n;
    });
    // Manager, 2 maps, 2 groups each, 4 paths.
    EXPECT_EQ(count, 11);
    EXPECT_EQ(mapProperty(kMapA, "Name"), kMapA);
    EXPECT_EQ(mapProperty(kMapA, "Uuid"), std::string("mpath-") + kMapA);
    EXPECT_EQ(mapProperty(kMapA, "Target"), "multipath");
    EXPECT_EQ(mapProperty(kMapA, "State"), "ready");
    EXPECT_EQ(property(mpathd::BusService::pathPath("sdc"), "org.mpathd.Multipath1.Path", "Device"),
              "/dev/sdc");
    EXPECT_EQ(property(mpathd::BusService::pathPath("sdc"), "org.mpathd.Multipath1.Path", "DevT"),
              "8:32");
    EXPECT_EQ(property(mpathd::BusService::groupPath(kMapA, 2), "org.mpathd.Multipath1.PathGroup",
                       "Selector"),
              "service-time 0");
    auto *paths = published(mpathd::BusService::groupPath(kMapA, 2), "Paths");
    ASSERT_NE(paths, nullptr);
    EXPECT_EQ(std::get<std::vector<mpathd::BusService::ObjectPath>>(*paths),
              std::vector<mpathd::BusService::ObjectPath>{{mpathd::BusService::pathPath("sdc")}});
}

TEST_F(Bus, ResolveDeviceFindsMapsAndPathsByAnyOfTheirNames) {
    const std::string mapA = mpathd::BusService::mapPath(kMapA);
    EXPECT_EQ(manager("ResolveDevice", "sa{sv}", kMapA, 0).value, mapA);
    EXPECT_EQ(
        manager("ResolveDevice", "sa{sv}", (std::string("/dev/mapper/") + kMapA).c_str(), 0).value,
        mapA);
    EXPECT_EQ(manager("ResolveDevice", "sa{sv}", "/dev/sdd", 0).value,
              mpathd::BusService::pathPath("sdd"));
    EXPECT_EQ(manager("ResolveDevice", "sa{sv}", "8:32", 0).value,
              mpathd::BusService::pathPath("sdc"));
    auto r = manager("ResolveDevice", "sa{sv}", "sdz", 0);
    EXPECT_EQ(r.error, "org.mpathd.Multipath1.Error.NotFound");
    EXPECT_NE(r.message.find("'sdz'"), std::string::npos) << r.message;
}

TEST_F(Bus, SetPathSelectorReloadsTheMapAndSaysTheSettingLastsUntilReconfigure) {
    auto r = map(kMapB, "SetPathSelector", "sa{sv}", "queue-length", 0);
    ASSERT_EQ(r.error, "") << r.message;
    EXPECT_EQ(h_.count("reload "), 1u) << h_.logText();
    EXPECT_TRUE(h_.called(std::string("reload ") + kMapB));
    EXPECT_NE(h_.table(kMapB).find("queue-length"), std::string::npos);
    EXPECT_EQ(mapProperty(kMapB, "Selector"), "queue-length 0");
    auto *o = published(mpathd::BusService::mapPath(kMapB), "Overrides");
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(std::get<Dict>(*o), (Dict{{"path_selector", "runtime"}}));

    // Reading the configuration again ends it.
    ASSERT_EQ(manager("Reconfigure", "a{sv}", 0).error, "");
    EXPECT_EQ(h_.table(kMapB).find("queue-length"), std::string::npos) << h_.table(kMapB);
    EXPECT_EQ(mapProperty(kMapB, "Selector"), "service-time 0");
}

TEST_F(Bus, DescribeMapsSaysWhatAChangeChangedAsSoonAsItsReplyCame) {
    auto describe = [this] {
        const Reply r = manager("DescribeMaps", "a{sv}", 0);
        EXPECT_EQ(r.error, "") << r.message;
        return nlohmann::json::parse(r.value, nullptr, false);
    };
    auto selectorOf = [](const nlohmann::json &doc, const char *wwid) {
        for (const auto &m : doc["maps"])
            if (m["wwid"] == wwid)
                return m["selector"].get<std::string>();
        return std::string("(no map ") + wwid + ")";
    };
    nlohmann::json before = describe();
    ASSERT_FALSE(before.is_discarded());
    EXPECT_EQ(before["version"], 1);
    EXPECT_EQ(selectorOf(before, kMapB), "service-time 0") << before.dump(2);

    ASSERT_EQ(map(kMapB, "SetPathSelector", "sa{sv}", "queue-length", 0).error, "");
    nlohmann::json after = describe();
    EXPECT_EQ(selectorOf(after, kMapB), "queue-length 0") << after.dump(2);
    EXPECT_EQ(selectorOf(after, kMapA), "service-time 0") << after.dump(2);
    for (const auto &m : after["maps"]) {
        if (m["wwid"] == kMapB) {
            EXPECT_EQ(m["overrides"], nlohmann::json({{"path_selector", "runtime"}}));
        }
    }
}

TEST_F(Bus, PropertiesChangedTellsAWatcherTheNewSelector) {
    // A watcher subscribed before the change, reading until it sees it.
    auto watcher = std::async(std::launch::async, [this] {
        sd_bus *b = connect();
        const std::string match = "type='signal',interface='org.freedesktop.DBus.Properties',"
                                  "member='PropertiesChanged',path='" +
                                  mpathd::BusService::mapPath(kMapA) + "'";
        std::string changed;
        (void)sd_bus_add_match(
            b, nullptr, match.c_str(),
            [](sd_bus_message *m, void *u, sd_bus_error *) -> int {
                const char *iface = nullptr;
                if (sd_bus_message_read(m, "s", &iface) < 0 ||
                    sd_bus_message_enter_container(m, 'a', "{sv}") <= 0)
                    return 0;
                while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                    const char *name = nullptr;
                    (void)sd_bus_message_read(m, "s", &name);
                    if (std::string(name) == "Selector") {
                        const char *v = nullptr;
                        if (sd_bus_message_read(m, "v", "s", &v) >= 0)
                            *static_cast<std::string *>(u) = v;
                    } else {
                        (void)sd_bus_message_skip(m, "v");
                    }
                    (void)sd_bus_message_exit_container(m);
                }
                return 0;
            },
            &changed);
        // Say "subscribed" by taking a name the test waits for.
        (void)sd_bus_request_name(b, "org.mpathd.TestWatcher", 0);
        for (int i = 0; i < 500 && changed.empty(); ++i) {
            while (sd_bus_process(b, nullptr) > 0) {
            }
            (void)sd_bus_wait(b, 20000);
        }
        sd_bus_flush_close_unref(b);
        return changed;
    });
    for (int i = 0; i < 200; ++i) {
        bool up = onClient([](sd_bus *b) {
            return sd_bus_get_name_creds(b, "org.mpathd.TestWatcher", 0, nullptr) >= 0;
        });
        if (up)
            break;
    }
    ASSERT_EQ(map(kMapA, "SetPathSelector", "sa{sv}", "round-robin 0", 0).error, "");
    for (int i = 0; i < 200 && watcher.wait_for(0ms) != std::future_status::ready; ++i)
        h_.advance(20ms);
    EXPECT_EQ(watcher.get(), "round-robin 0");
}

TEST_F(Bus, PersistentSettingIsWrittenToConfdAndOutlivesReconfigure) {
    ASSERT_EQ(map(kMapA, "SetPgInitRetries", "ua{sv}", 7u, 1, "persist", "b", 1).error, "");
    const auto dropIn = std::filesystem::path(h_.root()) / "etc/mpathd/conf.d" /
                        (std::string("zz-mpathd-") + kMapA + ".conf");
    ASSERT_TRUE(std::filesystem::exists(dropIn));
    EXPECT_NE(mpath_test::readFile(dropIn).find("pg_init_retries 7"), std::string::npos)
        << mpath_test::readFile(dropIn);
    EXPECT_NE(h_.table(kMapA).find("pg_init_retries 7"), std::string::npos) << h_.table(kMapA);
    ASSERT_EQ(manager("Reconfigure", "a{sv}", 0).error, "");
    EXPECT_NE(h_.table(kMapA).find("pg_init_retries 7"), std::string::npos) << h_.table(kMapA);
    auto *o = published(mpathd::BusService::mapPath(kMapA), "Overrides");
    ASSERT_NE(o, nullptr);
    EXPECT_EQ(std::get<Dict>(*o), (Dict{{"pg_init_retries", "persistent"}}));
}

TEST_F(Bus, BadArgumentsAreNamedErrorsAndChangeNothing) {
    const std::string invalid = "org.mpathd.Multipath1.Error.InvalidArgument";
    auto r = map(kMapA, "SetPathSelector", "sa{sv}", "fastest 0", 0);
    EXPECT_EQ(r.error, invalid);
    EXPECT_NE(r.message.find("invalid value 'fastest 0' for path_selector"), std::string::npos)
        << r.message;
    r = map(kMapA, "SetPgInitRetries", "ua{sv}", 51u, 0);
    EXPECT_EQ(r.error, invalid);
    EXPECT_NE(r.message.find("from 0 to 50"), std::string::npos) << r.message;
    r = map(kMapA, "SetNoPathRetry", "sa{sv}", "sometimes", 0);
    EXPECT_EQ(r.error, invalid);
    r = map(kMapA, "SetNoPathRetry", "sa{sv}", "5\nfeatures \"0\"", 0);
    EXPECT_EQ(r.error, invalid) << "a line break must not reach the configuration";
    r = map(kMapA, "SwitchPathGroup", "ua{sv}", 3u, 0);
    EXPECT_EQ(r.error, invalid);
    EXPECT_NE(r.message.find("has 2 path groups"), std::string::npos) << r.message;
    r = map(kMapA, "Reload", "a{sv}", 1, "force", "b", 1);
    EXPECT_EQ(r.error, invalid);
    EXPECT_NE(r.message.find("unknown option 'force'"), std::string::npos) << r.message;
    r = map(kMapA, "SetPathSelector", "sa{sv}", "round-robin 0", 1, "persist", "s", "yes");
    EXPECT_EQ(r.error, invalid);
    r = call("/org/mpathd/Multipath1/maps/nosuchmap", "org.mpathd.Multipath1.Map", "Reload",
             "a{sv}", 0);
    EXPECT_NE(r.error, "");
    EXPECT_TRUE(h_.calls().empty()) << h_.calls().front();
    EXPECT_FALSE(std::filesystem::exists(std::filesystem::path(h_.root()) / "etc/mpathd/conf.d"));
}

TEST_F(Bus, SetQueueIfNoPathIsAMessageNotAReload) {
    ASSERT_EQ(map(kMapA, "SetQueueIfNoPath", "ba{sv}", 0, 0).error, "");
    EXPECT_TRUE(h_.called(std::string("message ") + kMapA + " fail_if_no_path")) << h_.logText();
    ASSERT_EQ(map(kMapA, "SetQueueIfNoPath", "ba{sv}", 1, 0).error, "");
    EXPECT_TRUE(h_.called(std::string("message ") + kMapA + " queue_if_no_path"));
    h_.settle();
    EXPECT_EQ(h_.count("reload "), 0u) << h_.logText();
    auto *q = published(mpathd::BusService::mapPath(kMapA), "QueueIfNoPath");
    ASSERT_NE(q, nullptr);
    EXPECT_TRUE(std::get<bool>(*q));
}

TEST_F(Bus, APathFailedOnRequestStaysFailedUntilReinstated) {
    const std::string sdc = mpathd::BusService::pathPath("sdc");
    ASSERT_EQ(call(sdc, "org.mpathd.Multipath1.Path", "Fail", "a{sv}", 0).error, "");
    EXPECT_TRUE(h_.called(std::string("message ") + kMapA + " fail_path 8:32"));
    h_.checkers().set("/dev/sdc", mpath::model::CheckerState::Up);
    h_.clearCalls();
    h_.advance(30s); // several checks find it up
    EXPECT_FALSE(h_.called(std::string("message ") + kMapA + " reinstate_path 8:32"))
        << h_.logText();
    EXPECT_EQ(property(sdc, "org.mpathd.Multipath1.Path", "DmState"), "failed");
    ASSERT_EQ(call(sdc, "org.mpathd.Multipath1.Path", "Reinstate", "a{sv}", 0).error, "");
    EXPECT_TRUE(h_.called(std::string("message ") + kMapA + " reinstate_path 8:32"));
    EXPECT_EQ(property(sdc, "org.mpathd.Multipath1.Path", "DmState"), "active");
}

TEST_F(Bus, APathHeldAsShakySaysSoUntilItIsReinstated) {
    h_.config(std::string(mpathd_test::kConfig) + "defaults {\n  san_path_err_threshold 1\n"
                                                  "  san_path_err_forget_rate 10\n"
                                                  "  san_path_err_recovery_time 30\n}\n");
    ASSERT_EQ(manager("Reconfigure", "a{sv}", 0).error, "");
    const std::string sdc = mpathd::BusService::pathPath("sdc");
    auto shaky = [&] {
        const auto *v = published(sdc, "Shaky");
        return v && std::get<bool>(*v);
    };
    EXPECT_FALSE(shaky());
    for (int i = 0; i < 2; ++i) {
        h_.checkers().set("/dev/sdc", mpath::model::CheckerState::Down, "transport offline");
        h_.advance(5s);
        h_.checkers().set("/dev/sdc", mpath::model::CheckerState::Up);
        h_.advance(5s);
    }
    EXPECT_TRUE(shaky()) << h_.logText();
    EXPECT_EQ(property(sdc, "org.mpathd.Multipath1.Path", "DmState"), "failed");
    h_.advance(40s);
    EXPECT_FALSE(shaky()) << h_.logText();
    EXPECT_EQ(property(sdc, "org.mpathd.Multipath1.Path", "DmState"), "active");

    // Held again, then reinstated by an administrator: that stands.
    for (int i = 0; i < 2; ++i) {
        h_.checkers().set("/dev/sdc", mpath::model::CheckerState::Down, "transport offline");
        h_.advance(i == 0 ? 20s : 5s); // up and steady: checked every 20 s at first
        h_.checkers().set("/dev/sdc", mpath::model::CheckerState::Up);
        h_.advance(5s);
    }
    ASSERT_TRUE(shaky()) << h_.logText();
    ASSERT_EQ(call(sdc, "org.mpathd.Multipath1.Path", "Reinstate", "a{sv}", 0).error, "");
    h_.advance(5s);
    EXPECT_FALSE(shaky()) << h_.logText();
    EXPECT_EQ(property(sdc, "org.mpathd.Multipath1.Path", "DmState"), "active");
}

TEST_F(Bus, FlushRemovesTheMapAndAnOpenMapIsBusy) {
    h_.dm().with([](mpath::dm::DeviceMapper &dm) {
        static_cast<mpath::testing::FakeDeviceMapper &>(dm).setOpenCount(kMapB, 1);
        return 0;
    });
    auto r = map(kMapB, "Flush", "a{sv}", 0);
    EXPECT_EQ(r.error, "org.mpathd.Multipath1.Error.Busy") << r.message;
    EXPECT_EQ(h_.liveMaps().size(), 2u);
    ASSERT_EQ(map(kMapA, "Flush", "a{sv}", 0).error, "");
    EXPECT_EQ(h_.liveMaps(), std::vector<std::string>{kMapB});
    h_.advance(10s);
    EXPECT_EQ(h_.liveMaps(), std::vector<std::string>{kMapB}) << "made again: " << h_.logText();
    EXPECT_EQ(service_->objects().count(mpathd::BusService::mapPath(kMapA)), 0u);
}

TEST_F(Bus, ReadsAreOpenToEveryoneAndChangesNeedRootWithoutPolkit) {
    std::string out;
    EXPECT_EQ(busctlAsNobody(std::string("get-property ") + kName + " " +
                                 mpathd::BusService::mapPath(kMapA) +
                                 " org.mpathd.Multipath1.Map Name",
                             &out),
              0)
        << out;
    EXPECT_NE(out.find(kMapA), std::string::npos) << out;
    EXPECT_EQ(busctlAsNobody(std::string("call ") + kName +
                                 " /org/mpathd/Multipath1/Manager org.mpathd.Multipath1.Manager "
                                 "DescribeMaps a{sv} 0",
                             &out),
              0)
        << out;
    EXPECT_NE(out.find(kMapA), std::string::npos) << out;
    EXPECT_EQ(busctlAsNobody(std::string("call ") + kName +
                                 " /org/mpathd/Multipath1/Manager org.mpathd.Multipath1.Manager "
                                 "DescribeTopology a{sv} 0",
                             &out),
              0)
        << out;
    EXPECT_NE(out.find("sdc"), std::string::npos) << out;
    EXPECT_NE(busctlAsNobody(std::string("call ") + kName + " " +
                                 mpathd::BusService::mapPath(kMapA) +
                                 " org.mpathd.Multipath1.Map SetPathSelector sa{sv} "
                                 "queue-length 0",
                             &out),
              0);
    EXPECT_NE(out.find("needs root"), std::string::npos) << out;
    EXPECT_TRUE(h_.calls().empty());
    // Root is let through.
    EXPECT_EQ(map(kMapA, "SetPathSelector", "sa{sv}", "queue-length", 0).error, "");
}

TEST_F(Bus, PolkitDecidesWhenItRunsEvenForRoot) {
    startPolkit();
    auto r = map(kMapA, "SetPathSelector", "sa{sv}", "queue-length", 0);
    EXPECT_EQ(r.error, "org.mpathd.Multipath1.Error.NotAuthorized");
    EXPECT_NE(r.message.find("org.mpathd.multipath1.modify-map"), std::string::npos) << r.message;
    EXPECT_TRUE(h_.calls().empty());
    EXPECT_EQ(mapProperty(kMapA, "Selector"), "service-time 0");
    r = call(mpathd::BusService::pathPath("sdb"), "org.mpathd.Multipath1.Path", "Fail", "a{sv}", 0);
    EXPECT_EQ(r.error, "org.mpathd.Multipath1.Error.NotAuthorized");

    allow("org.mpathd.multipath1.modify-map");
    EXPECT_EQ(map(kMapA, "SetPathSelector", "sa{sv}", "queue-length", 0).error, "");
    EXPECT_EQ(mapProperty(kMapA, "Selector"), "queue-length 0");
    // Another action stays denied.
    EXPECT_EQ(manager("Reconfigure", "a{sv}", 0).error,
              "org.mpathd.Multipath1.Error.NotAuthorized");
}

TEST_F(Bus, QueriesAnswerWhileAChangeWaitsForTheKernel) {
    // The reload hangs in the kernel; a query on the same bus answers.
    h_.dm().setHook([](const std::string &op, const std::string &) {
        if (op == "reload")
            std::this_thread::sleep_for(1500ms);
    });
    auto slow = std::async(std::launch::async, [this] {
        sd_bus *b = connect();
        int r = sd_bus_call_method(b, kName, mpathd::BusService::mapPath(kMapB).c_str(),
                                   "org.mpathd.Multipath1.Map", "SetPathSelector", nullptr, nullptr,
                                   "sa{sv}", "round-robin 0", 0);
        sd_bus_flush_close_unref(b);
        return r;
    });
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(mapProperty(kMapA, "Name"), kMapA);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 1000ms);
    for (int i = 0; i < 2000 && slow.wait_for(0ms) != std::future_status::ready; ++i)
        h_.advance(20ms);
    EXPECT_GE(slow.get(), 0);
}

TEST_F(Bus, SuspendHoldsTheMapUntilResume) {
    ASSERT_EQ(map(kMapA, "Suspend", "a{sv}", 0).error, "");
    EXPECT_TRUE(h_.called(std::string("suspend ") + kMapA));
    EXPECT_EQ(mapProperty(kMapA, "State"), "suspended");
    ASSERT_EQ(map(kMapA, "Resume", "a{sv}", 0).error, "");
    EXPECT_TRUE(h_.called(std::string("resume ") + kMapA));
    EXPECT_EQ(mapProperty(kMapA, "State"), "ready");
}

TEST_F(Bus, APathThatAppearsIsAnnouncedAsANewObjectOfItsMap) {
    auto watcher = std::async(std::launch::async, [this] {
        sd_bus *b = connect();
        std::string added;
        (void)sd_bus_add_match(
            b, nullptr,
            "type='signal',interface='org.freedesktop.DBus.ObjectManager',"
            "member='InterfacesAdded'",
            [](sd_bus_message *m, void *u, sd_bus_error *) -> int {
                const char *path = nullptr;
                if (sd_bus_message_read(m, "o", &path) >= 0)
                    *static_cast<std::string *>(u) = path;
                return 0;
            },
            &added);
        (void)sd_bus_request_name(b, "org.mpathd.TestWatcher", 0);
        for (int i = 0; i < 500 && added.empty(); ++i) {
            while (sd_bus_process(b, nullptr) > 0) {
            }
            (void)sd_bus_wait(b, 20000);
        }
        sd_bus_flush_close_unref(b);
        return added;
    });
    for (int i = 0; i < 200; ++i)
        if (onClient([](sd_bus *b) {
                return sd_bus_get_name_creds(b, "org.mpathd.TestWatcher", 0, nullptr) >= 0;
            }))
            break;
    h_.addDisk("sdf", 80, 3, kMapB, "standby");
    h_.inject("add", "sdf");
    for (int i = 0; i < 200 && watcher.wait_for(0ms) != std::future_status::ready; ++i)
        h_.advance(20ms);
    EXPECT_EQ(watcher.get(), mpathd::BusService::pathPath("sdf"));
    h_.settle();
    auto *paths = published(mpathd::BusService::mapPath(kMapB), "Paths");
    ASSERT_NE(paths, nullptr);
    const auto &v = std::get<std::vector<mpathd::BusService::ObjectPath>>(*paths);
    EXPECT_NE(std::find(v.begin(), v.end(),
                        mpathd::BusService::ObjectPath{mpathd::BusService::pathPath("sdf")}),
              v.end());
    h_.inject("remove", "sdf");
    h_.settle();
    h_.advance(100ms);
    EXPECT_EQ(service_->objects().count(mpathd::BusService::pathPath("sdf")), 0u);
}

TEST_F(Bus, WhatTheKernelDidAloneShowsAfterItsEvent) {
    // Someone fails a path behind the daemon's back (I/O errors do the
    // same); the kernel's event makes the daemon read the status again.
    ASSERT_TRUE(h_.dm().with(
        [](mpath::dm::DeviceMapper &dm) { return bool(dm.message(kMapA, 0, "fail_path 8:16")); }));
    h_.injectMap("change", kMapA, "PATH_FAILED", "8:16");
    h_.settle();
    h_.advance(100ms);
    auto *n = published(mpathd::BusService::pathPath("sdb"), "FailCount");
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(std::get<uint32_t>(*n), 1u);
    // Its check found it up: the daemon put it back.
    EXPECT_TRUE(h_.called(std::string("message ") + kMapA + " reinstate_path 8:16"))
        << h_.logText();
}

TEST_F(Bus, RemovePathTakesItOutOfItsMapUntilAddPath) {
    ASSERT_EQ(manager("RemovePath", "sa{sv}", "/dev/sdc", 0).error, "");
    EXPECT_TRUE(h_.called(std::string("reload ") + kMapA)) << h_.logText();
    EXPECT_EQ(h_.table(kMapA).find("8:32"), std::string::npos) << h_.table(kMapA);
    h_.clearCalls();
    h_.advance(10s); // the next plans leave it out too
    EXPECT_EQ(h_.count("reload "), 0u);
    ASSERT_EQ(manager("AddPath", "sa{sv}", "sdc", 0).error, "");
    EXPECT_NE(h_.table(kMapA).find("8:32"), std::string::npos) << h_.table(kMapA);
    auto r = manager("AddPath", "sa{sv}", "sdz", 0);
    EXPECT_EQ(r.error, "org.mpathd.Multipath1.Error.NotFound");
    EXPECT_NE(r.message.find("sdz"), std::string::npos) << r.message;
}

TEST_F(Bus, AReloadTheKernelRefusesIsADmErrorWithTheReason) {
    h_.dm().with([](mpath::dm::DeviceMapper &dm) {
        static_cast<mpath::testing::FakeDeviceMapper &>(dm).failNext(
            mpath::testing::FakeDeviceMapper::Op::Reload, EIO);
        return 0;
    });
    auto r = map(kMapA, "SetPathSelector", "sa{sv}", "round-robin", 0);
    EXPECT_EQ(r.error, "org.mpathd.Multipath1.Error.DmError");
    EXPECT_NE(r.message.find(std::string("map ") + kMapA), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("Input/output error"), std::string::npos) << r.message;
}

TEST_F(Bus, AChangeAskedWhileTheMapIsBeingReloadedAnswersOnlyOnceItIsMade) {
    // Reloads take a while in the kernel; another one runs when the call
    // comes (an administrator's Reload).
    h_.dm().setHook([](const std::string &op, const std::string &) {
        if (op == "reload")
            std::this_thread::sleep_for(1000ms);
    });
    auto first = std::async(std::launch::async, [this] {
        sd_bus *b = connect();
        int r =
            sd_bus_call_method(b, kName, mpathd::BusService::mapPath(kMapB).c_str(),
                               "org.mpathd.Multipath1.Map", "Reload", nullptr, nullptr, "a{sv}", 0);
        sd_bus_flush_close_unref(b);
        return r;
    });
    auto busy = [this] {
        auto &maps = h_.daemon().state().maps;
        return maps.count(kMapB) && maps.at(kMapB).busy;
    };
    for (int i = 0; i < 200 && !busy(); ++i)
        h_.advance(20ms);
    ASSERT_TRUE(busy()) << h_.logText();
    // The map is busy now: the selector's reload can only follow.
    std::string tableAtReply;
    auto second = std::async(std::launch::async, [this, &tableAtReply] {
        sd_bus *b = connect();
        int r = sd_bus_call_method(b, kName, mpathd::BusService::mapPath(kMapB).c_str(),
                                   "org.mpathd.Multipath1.Map", "SetPathSelector", nullptr, nullptr,
                                   "sa{sv}", "round-robin 0", 0);
        tableAtReply = h_.table(kMapB);
        sd_bus_flush_close_unref(b);
        return r;
    });
    for (int i = 0; i < 2000 && (first.wait_for(0ms) != std::future_status::ready ||
                                 second.wait_for(0ms) != std::future_status::ready);
         ++i)
        h_.advance(20ms);
    EXPECT_GE(first.get(), 0);
    EXPECT_GE(second.get(), 0);
    EXPECT_NE(tableAtReply.find("round-robin"), std::string::npos)
        << "answered before its reload: " << tableAtReply;
}

TEST_F(Bus, RemovingEveryPathOfAMapRemovesTheMap) {
    ASSERT_EQ(manager("RemovePath", "sa{sv}", "sdd", 0).error, "");
    ASSERT_EQ(manager("RemovePath", "sa{sv}", "sde", 0).error, "");
    h_.settle();
    EXPECT_EQ(h_.liveMaps(), std::vector<std::string>{kMapA}) << h_.logText();
}

TEST_F(Bus, AFailTheKernelRefusesChangesNothing) {
    h_.dm().with([](mpath::dm::DeviceMapper &dm) {
        static_cast<mpath::testing::FakeDeviceMapper &>(dm).failNext(
            mpath::testing::FakeDeviceMapper::Op::Message, EIO);
        return 0;
    });
    const std::string sdc = mpathd::BusService::pathPath("sdc");
    auto r = call(sdc, "org.mpathd.Multipath1.Path", "Fail", "a{sv}", 0);
    EXPECT_EQ(r.error, "org.mpathd.Multipath1.Error.DmError") << r.message;
    auto *f = published(sdc, "AdminFailed");
    ASSERT_NE(f, nullptr);
    EXPECT_FALSE(std::get<bool>(*f));
}

TEST_F(Bus, IntrospectionOfEveryObjectListsTheInterfacesTheXmlGivesIt) {
    // Clients that go by introspection (Qt's QDBusInterface) use an
    // interface only when the object's introspection lists it: the root's
    // ObjectManager too.
    const auto listed = listedObjects(mpath_test::readFile(MPATHD_INTERFACE_XML));
    ASSERT_EQ(listed.size(), 5u) << "the XML's header lists the objects and their interfaces";
    for (const auto &object : listed) {
        // (Not a structured binding: clang 14 cannot capture one.)
        std::string path = object.first;
        const std::string &iface = object.second;
        const std::string wwidElement = mpathd::BusService::mapPath(kMapA).substr(
            std::string("/org/mpathd/Multipath1/maps/").size());
        path = std::regex_replace(path, std::regex("<WWID>"), wwidElement);
        path = std::regex_replace(path, std::regex("<N>"), "1");
        path = std::regex_replace(path, std::regex("<NAME>"), "sdb");
        const std::string xml = onClient([path](sd_bus *b) {
            sd_bus_message *reply = nullptr;
            std::string out;
            if (sd_bus_call_method(b, kName, path.c_str(), "org.freedesktop.DBus.Introspectable",
                                   "Introspect", nullptr, &reply, "") >= 0) {
                const char *s = nullptr;
                if (sd_bus_message_read(reply, "s", &s) >= 0)
                    out = s;
            }
            sd_bus_message_unref(reply);
            return out;
        });
        EXPECT_NE(xml.find("<interface name=\"" + iface + "\">"), std::string::npos)
            << path << " does not list " << iface << ":\n"
            << xml;
        if (iface == "org.freedesktop.DBus.ObjectManager") {
            EXPECT_NE(xml.find("<method name=\"GetManagedObjects\">"), std::string::npos) << xml;
            EXPECT_NE(xml.find("<signal name=\"InterfacesAdded\">"), std::string::npos) << xml;
            EXPECT_NE(xml.find("<signal name=\"InterfacesRemoved\">"), std::string::npos) << xml;
        }
    }
    // GetManagedObjects is still answered by the daemon from the objects
    // as computed: an object's one interface, where sd-bus's own answer
    // would add Peer, Introspectable and Properties to each.
    const std::string mapA = mpathd::BusService::mapPath(kMapA);
    auto interfaces = onClient([mapA](sd_bus *b) {
        std::vector<std::string> out;
        sd_bus_message *reply = nullptr;
        if (sd_bus_call_method(b, kName, "/org/mpathd/Multipath1",
                               "org.freedesktop.DBus.ObjectManager", "GetManagedObjects", nullptr,
                               &reply, "") < 0)
            return out;
        (void)sd_bus_message_enter_container(reply, 'a', "{oa{sa{sv}}}");
        while (sd_bus_message_enter_container(reply, 'e', "oa{sa{sv}}") > 0) {
            const char *path = nullptr;
            (void)sd_bus_message_read(reply, "o", &path);
            if (path && mapA == path) {
                (void)sd_bus_message_enter_container(reply, 'a', "{sa{sv}}");
                while (sd_bus_message_enter_container(reply, 'e', "sa{sv}") > 0) {
                    const char *iface = nullptr;
                    (void)sd_bus_message_read(reply, "s", &iface);
                    out.push_back(iface ? iface : "");
                    (void)sd_bus_message_skip(reply, "a{sv}");
                    (void)sd_bus_message_exit_container(reply);
                }
                break;
            }
            (void)sd_bus_message_skip(reply, "a{sa{sv}}");
            (void)sd_bus_message_exit_container(reply);
        }
        sd_bus_message_unref(reply);
        return out;
    });
    EXPECT_EQ(interfaces, std::vector<std::string>{"org.mpathd.Multipath1.Map"});
    auto r = call("/org/mpathd/Multipath1", "org.freedesktop.DBus.ObjectManager",
                  "GetManagedObjects", "s", "unexpected");
    EXPECT_EQ(r.error, "org.freedesktop.DBus.Error.InvalidArgs") << r.message;
}

namespace {

/// One call of a method that changes something, as an unauthorized caller
/// makes it: every argument valid, so only authorization can stop it.
struct ChangingCall {
    std::string path;
    std::string interface;
    std::string method;
    std::string signature;
    std::string args; ///< a Python list
    std::string action;
};

constexpr const char *kManagerObject = "/org/mpathd/Multipath1/Manager";
constexpr const char *kManagerIface = "org.mpathd.Multipath1.Manager";
constexpr const char *kMapIface = "org.mpathd.Multipath1.Map";
constexpr const char *kPathIface = "org.mpathd.Multipath1.Path";
constexpr const char *kModifyMap = "org.mpathd.multipath1.modify-map";
constexpr const char *kManagePaths = "org.mpathd.multipath1.manage-paths";
constexpr const char *kReconfigure = "org.mpathd.multipath1.reconfigure";

} // namespace

TEST_F(Bus, EveryMethodThatChangesSomethingIsRefusedToAnUnauthorizedCaller) {
    const std::string mapA = mpathd::BusService::mapPath(kMapA);
    const std::string sdc = mpathd::BusService::pathPath("sdc");
    const std::vector<ChangingCall> changing = {
        {kManagerObject, kManagerIface, "Reconfigure", "a{sv}", "[{}]", kReconfigure},
        {kManagerObject, kManagerIface, "AddPath", "sa{sv}", "['sdf', {}]", kManagePaths},
        {kManagerObject, kManagerIface, "RemovePath", "sa{sv}", "['sdc', {}]", kManagePaths},
        {mapA, kMapIface, "SetQueueIfNoPath", "ba{sv}", "[False, {}]", kModifyMap},
        {mapA, kMapIface, "SetNoPathRetry", "sa{sv}", "['5', {}]", kModifyMap},
        {mapA, kMapIface, "SetPgInitRetries", "ua{sv}", "[7, {}]", kModifyMap},
        {mapA, kMapIface, "SetPgInitDelayMsecs", "ua{sv}", "[100, {}]", kModifyMap},
        {mapA, kMapIface, "SetPathSelector", "sa{sv}", "['queue-length 0', {'persist': True}]",
         kModifyMap},
        {mapA, kMapIface, "SwitchPathGroup", "ua{sv}", "[2, {}]", kModifyMap},
        {mapA, kMapIface, "Reload", "a{sv}", "[{}]", kModifyMap},
        {mapA, kMapIface, "Suspend", "a{sv}", "[{}]", kModifyMap},
        {mapA, kMapIface, "Resume", "a{sv}", "[{}]", kModifyMap},
        {mapA, kMapIface, "Flush", "a{sv}", "[{}]", kModifyMap},
        {sdc, kPathIface, "Fail", "a{sv}", "[{}]", kManagePaths},
        {sdc, kPathIface, "Reinstate", "a{sv}", "[{}]", kManagePaths},
    };
    const std::set<std::string> reads = {"Manager.GetMaps", "Manager.DescribeMaps",
                                         "Manager.DescribeTopology", "Manager.ResolveDevice"};

    // A method of the interface is in one list or the other: a new one
    // cannot be forgotten here.
    std::set<std::string> tested;
    for (const auto &c : changing)
        tested.insert(c.interface.substr(c.interface.rfind('.') + 1) + "." + c.method);
    for (const auto &m : methodNames(mpath_test::readFile(MPATHD_INTERFACE_XML)))
        EXPECT_NE(tested.count(m) + reads.count(m), 0u)
            << m
            << " is in the XML but neither among the methods that change something nor "
               "among the reads";

    // Every call, if it acted, would show: a disk the daemon has not seen
    // yet (AddPath), a configuration that differs from the running one
    // (Reconfigure), a map open for no one (Flush).
    h_.addDisk("sdf", 80, 3, kMapB, "standby");
    std::string config = mpathd_test::kConfig;
    config.insert(config.rfind('}'), "  path_selector \"round-robin 0\"\n");
    h_.config(config);
    const auto confd = std::filesystem::path(h_.root()) / "etc/mpathd/conf.d";
    h_.advance(6s); // every path checked: what the state says stays
    h_.clearCalls();
    auto refused = [&](bool nobody) {
        for (const auto &c : changing) {
            const auto before = service_->objects();
            Reply r = callFromProcess(nobody, c.path, c.interface, c.method, c.signature, c.args);
            EXPECT_EQ(r.error, "org.mpathd.Multipath1.Error.NotAuthorized")
                << c.method << (nobody ? " as nobody: " : " as root, polkit denying: ")
                << r.message;
            EXPECT_NE(r.message.find(c.action), std::string::npos) << c.method << ": " << r.message;
            h_.settle();
            const auto calls = h_.calls();
            EXPECT_TRUE(calls.empty()) << c.method << " reached device-mapper: " << calls.front();
            const auto after = service_->objects();
            for (const auto &[path, o] : after) {
                auto b = before.find(path);
                if (b == before.end()) {
                    ADD_FAILURE() << c.method << " added " << path;
                    continue;
                }
                for (size_t i = 0; i < o.properties.size(); ++i)
                    EXPECT_TRUE(i < b->second.properties.size() &&
                                b->second.properties[i] == o.properties[i])
                        << c.method << " changed " << path << " " << o.properties[i].first;
            }
            EXPECT_EQ(after.size(), before.size()) << c.method << " removed an object";
            EXPECT_FALSE(std::filesystem::exists(confd)) << c.method << " wrote the configuration";
        }
    };
    // Without polkit only root may: nobody may not.
    refused(true);
    // With polkit, polkit decides, for root too.
    startPolkit();
    refused(false);
}

TEST_F(Bus, SwitchPathGroupZeroIsAnInvalidArgumentAndReachesNoKernel) {
    // Groups count from 1: 0 is no group, whatever the kernel would make
    // of "switch_group 0".
    for (uint32_t group : {0u, 3u, 4294967295u}) {
        auto r = map(kMapA, "SwitchPathGroup", "ua{sv}", group, 0);
        EXPECT_EQ(r.error, "org.mpathd.Multipath1.Error.InvalidArgument") << group;
        EXPECT_NE(r.message.find("there is no group " + std::to_string(group)), std::string::npos)
            << r.message;
    }
    EXPECT_TRUE(h_.calls().empty()) << h_.calls().front();
    EXPECT_EQ(map(kMapA, "SwitchPathGroup", "ua{sv}", 2u, 0).error, "");
    EXPECT_TRUE(h_.called(std::string("message ") + kMapA + " switch_group 2")) << h_.logText();
}

TEST_F(Bus, ABadArgumentIsRefusedBeforeAuthorizationIsAsked) {
    // The caller learns what is wrong with the call without being asked
    // for a password first, and polkit is not asked for a call that cannot
    // go through.
    const std::string mapA = mpathd::BusService::mapPath(kMapA);
    struct Bad {
        std::string path, interface, method, signature, args, error;
    };
    const std::string invalid = "org.mpathd.Multipath1.Error.InvalidArgument";
    const std::string notFound = "org.mpathd.Multipath1.Error.NotFound";
    const std::vector<Bad> bad = {
        {kManagerObject, kManagerIface, "AddPath", "sa{sv}", "['sdz', {}]", notFound},
        {kManagerObject, kManagerIface, "AddPath", "sa{sv}", "['', {}]", invalid},
        {kManagerObject, kManagerIface, "RemovePath", "sa{sv}", "['sdz', {}]", notFound},
        {kManagerObject, kManagerIface, "Reconfigure", "a{sv}", "[{'force': True}]", invalid},
        {mapA, kMapIface, "SwitchPathGroup", "ua{sv}", "[0, {}]", invalid},
        {mapA, kMapIface, "SetPathSelector", "sa{sv}", "['round-robin 2 a b', {}]", invalid},
        {mapA, kMapIface, "SetNoPathRetry", "sa{sv}", "['-1', {}]", invalid},
        {mapA, kMapIface, "SetPgInitRetries", "ua{sv}", "[51, {}]", invalid},
        {mapA, kMapIface, "Flush", "a{sv}", "[{'persist': True}]", invalid},
        {mpathd::BusService::mapPath("nosuchmap"), kMapIface, "Reload", "a{sv}", "[{}]",
         "org.freedesktop.DBus.Error.UnknownObject"},
    };
    for (const auto &b : bad) {
        Reply r = callFromProcess(true, b.path, b.interface, b.method, b.signature, b.args);
        EXPECT_EQ(r.error, b.error) << b.method << " " << b.args << ": " << r.message;
    }
    EXPECT_TRUE(h_.calls().empty()) << h_.calls().front();
}

TEST_F(Bus, ACallerWithTooManyAuthorizationsWaitingIsBusyAndOthersAreNot) {
    // An agent that never answers keeps polkit's checks waiting (for up to
    // 25 minutes with interactive authorization): one caller may not hold
    // all the replies the bus lets the daemon wait for.
    startPolkit();
    polkitMock("SimulateHangActions", {"org.mpathd.multipath1.modify-map"}, true);
    auto flood = std::async(std::launch::async, [this] {
        sd_bus *b = connect();
        std::vector<std::string> errors;
        std::vector<std::string> messages;
        struct Ctx {
            std::vector<std::string> *errors, *messages;
        } ctx{&errors, &messages};
        for (int i = 0; i < 9; ++i)
            (void)sd_bus_call_method_async(
                b, nullptr, kName, mpathd::BusService::mapPath(kMapA).c_str(),
                "org.mpathd.Multipath1.Map", "Reload",
                [](sd_bus_message *m, void *u, sd_bus_error *) -> int {
                    auto *c = static_cast<Ctx *>(u);
                    const sd_bus_error *e = sd_bus_message_get_error(m);
                    c->errors->push_back(e ? e->name : "");
                    c->messages->push_back(e && e->message ? e->message : "");
                    return 0;
                },
                &ctx, "a{sv}", 0);
        for (int i = 0; i < 250 && errors.empty(); ++i) {
            while (sd_bus_process(b, nullptr) > 0) {
            }
            (void)sd_bus_wait(b, 20000);
        }
        sd_bus_flush_close_unref(b);
        return std::make_pair(errors, messages);
    });
    auto [errors, messages] = [&] {
        for (int i = 0; i < 2000 && flood.wait_for(0ms) != std::future_status::ready; ++i)
            h_.advance(20ms);
        return flood.get();
    }();
    ASSERT_EQ(errors.size(), 1u) << "the ninth call is answered at once, the eight others wait";
    EXPECT_EQ(errors[0], "org.mpathd.Multipath1.Error.Busy") << messages[0];
    EXPECT_NE(messages[0].find("8 authorizations waiting"), std::string::npos) << messages[0];
    // Another caller is asked about as usual (Reconfigure: polkit answers).
    EXPECT_EQ(manager("Reconfigure", "a{sv}", 0).error,
              "org.mpathd.Multipath1.Error.NotAuthorized");
    polkitMock("ReleaseHangingCalls");
    EXPECT_TRUE(h_.calls().empty()) << h_.calls().front();
}

TEST_F(Bus, NoMoreAuthorizationsWaitThanTheDaemonKeepsWhateverTheCallers) {
    // A user may open many connections: all of them together may not have
    // more checks waiting than the daemon keeps, below what the bus lets
    // one connection wait for (128 replies on the system bus).
    startPolkit();
    polkitMock("SimulateHangActions", {"org.mpathd.multipath1.modify-map"}, true);
    auto flood = std::async(std::launch::async, [this] {
        std::vector<sd_bus *> buses;
        std::vector<std::string> messages;
        for (int c = 0; c < 9; ++c) {
            buses.push_back(connect());
            for (int i = 0; i < 8; ++i)
                (void)sd_bus_call_method_async(
                    buses.back(), nullptr, kName, mpathd::BusService::mapPath(kMapA).c_str(),
                    "org.mpathd.Multipath1.Map", "Reload",
                    [](sd_bus_message *m, void *u, sd_bus_error *) -> int {
                        const sd_bus_error *e = sd_bus_message_get_error(m);
                        static_cast<std::vector<std::string> *>(u)->push_back(
                            std::string(e ? e->name : "") + ": " +
                            (e && e->message ? e->message : ""));
                        return 0;
                    },
                    &messages, "a{sv}", 0);
        }
        for (int i = 0; i < 250 && messages.size() < 8; ++i)
            for (sd_bus *b : buses) {
                while (sd_bus_process(b, nullptr) > 0) {
                }
                (void)sd_bus_wait(b, 2000);
            }
        for (sd_bus *b : buses)
            sd_bus_flush_close_unref(b);
        return messages;
    });
    for (int i = 0; i < 2000 && flood.wait_for(0ms) != std::future_status::ready; ++i)
        h_.advance(20ms);
    const auto messages = flood.get();
    // 72 calls: 64 wait for polkit, the other 8 are answered at once.
    ASSERT_EQ(messages.size(), 8u);
    for (const auto &m : messages)
        EXPECT_EQ(m, "org.mpathd.Multipath1.Error.Busy: 64 authorizations are waiting already, "
                     "the most the daemon keeps; try again later");
    polkitMock("ReleaseHangingCalls");
    EXPECT_TRUE(h_.calls().empty()) << h_.calls().front();
}

namespace {

/// A call the daemon must refuse, and what it must answer.
struct BadCall {
    std::string path, interface, method, signature;
    std::string args;  ///< a Python list
    std::string error; ///< the error name
    std::string says;  ///< what the message names
};

} // namespace

TEST_F(Bus, BadInputToAnyMethodIsANamedErrorThatChangesNothing) {
    const std::string mapA = mpathd::BusService::mapPath(kMapA);
    const std::string sdc = mpathd::BusService::pathPath("sdc");
    const std::string invalid = "org.mpathd.Multipath1.Error.InvalidArgument";
    const std::string invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs";
    const std::string unknownObject = "org.freedesktop.DBus.Error.UnknownObject";
    const std::string huge = "'x' * (1 << 20)"; // 1 MiB
    std::vector<BadCall> bad;
    // Every method: the wrong types, or no options at all. sd-bus checks
    // the signature against the vtable before the daemon sees the call.
    for (const auto &m : methodNames(mpath_test::readFile(MPATHD_INTERFACE_XML))) {
        const std::string iface = "org.mpathd.Multipath1." + m.substr(0, m.find('.'));
        const std::string name = m.substr(m.find('.') + 1);
        const std::string path = iface == kManagerIface ? kManagerObject
                                 : iface == kMapIface   ? mapA
                                                        : sdc;
        bad.push_back({path, iface, name, "i", "[1]", invalidArgs, ""});
        bad.push_back({path, iface, name, "sa{sv}b", "['sdb', {}, True]", invalidArgs, ""});
        // An object that does not exist.
        if (iface != kManagerIface)
            bad.push_back({iface == kMapIface ? mpathd::BusService::mapPath("nosuchwwid")
                                              : mpathd::BusService::pathPath("sdz"),
                           iface, name, "a{sv}", "[{}]", unknownObject, ""});
    }
    // Strings: empty, 1 MiB, a line break, other control characters.
    for (const auto &[path, iface, method] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {kManagerObject, kManagerIface, "ResolveDevice"},
             {kManagerObject, kManagerIface, "AddPath"},
             {kManagerObject, kManagerIface, "RemovePath"},
             {mapA, kMapIface, "SetNoPathRetry"},
             {mapA, kMapIface, "SetPathSelector"}}) {
        bad.push_back({path, iface, method, "sa{sv}", "['', {}]", invalid, "is empty"});
        bad.push_back({path, iface, method, "sa{sv}", "[" + huge + ", {}]", invalid,
                       "is 1048576 bytes long"});
        bad.push_back({path, iface, method, "sa{sv}", "['sdb\\n', {}]", invalid,
                       "has a control character (0x0a)"});
        bad.push_back({path, iface, method, "sa{sv}", "['5\\tqueue', {}]", invalid,
                       "has a control character (0x09)"});
    }
    // Options: an unknown key, a huge one, persist of the wrong type, and
    // persist where the method takes none.
    bad.push_back({mapA, kMapIface, "SetPgInitRetries", "ua{sv}", "[5, {'force': True}]", invalid,
                   "unknown option 'force'; known: persist"});
    bad.push_back({mapA, kMapIface, "SetPgInitRetries", "ua{sv}", "[5, {" + huge + ": True}]",
                   invalid, "unknown option 'xxxxxxxx"});
    bad.push_back({mapA, kMapIface, "SetPgInitRetries", "ua{sv}", "[5, {'persist': 'yes'}]",
                   invalid, "option 'persist' takes a boolean"});
    bad.push_back({mapA, kMapIface, "Reload", "a{sv}", "[{'persist': True}]", invalid,
                   "unknown option 'persist'; this method takes none"});
    // Each setting out of its range, as the configuration would refuse it.
    for (const char *v : {"-1", "sometimes", "99999999999", "5 queue", "queue "})
        bad.push_back({mapA, kMapIface, "SetNoPathRetry", "sa{sv}",
                       std::string("['") + v + "', {}]", invalid, "for no_path_retry"});
    for (const char *v : {"51", "4294967295"})
        bad.push_back({mapA, kMapIface, "SetPgInitRetries", "ua{sv}",
                       std::string("[") + v + ", {}]", invalid, "from 0 to 50"});
    for (const char *v : {"60001", "4294967295"})
        bad.push_back({mapA, kMapIface, "SetPgInitDelayMsecs", "ua{sv}",
                       std::string("[") + v + ", {}]", invalid, "from 0 to 60000"});
    for (const char *v :
         {"fastest", "service-time 3", "service-time 0 extra", "round-robin 2 a b",
          "historical-service-time 1 5000", "historical-service-time 3 1 2 3",
          "historical-service-time 1 -1", "queue-length 1 \\\\", "service-time\\xa00"})
        bad.push_back({mapA, kMapIface, "SetPathSelector", "sa{sv}",
                       std::string("['") + v + "', {}]", invalid, "for path_selector"});
    // A group that is not one of the map's.
    for (const char *v : {"0", "3", "4294967295"})
        bad.push_back({mapA, kMapIface, "SwitchPathGroup", "ua{sv}", std::string("[") + v + ", {}]",
                       invalid, "there is no group"});

    h_.advance(6s); // every path checked: what the state says stays
    h_.clearCalls();
    const auto confd = std::filesystem::path(h_.root()) / "etc/mpathd/conf.d";
    const auto before = service_->objects();
    std::vector<ProcessCall> calls;
    for (const auto &b : bad)
        calls.push_back({b.path, b.interface, b.method, b.signature, b.args});
    const std::vector<Reply> replies = callsFromProcess(false, calls);
    ASSERT_EQ(replies.size(), bad.size());
    for (size_t i = 0; i < bad.size(); ++i) {
        const BadCall &b = bad[i];
        const Reply &r = replies[i];
        const std::string what = b.method + "(" + b.args.substr(0, 80) + ")";
        // (A message is printed cut short: some of these arguments are 1 MiB.)
        const std::string said = r.message.substr(0, 300);
        EXPECT_EQ(r.error, b.error) << what << ": " << said;
        EXPECT_NE(r.message.find(b.says), std::string::npos) << what << ": " << said;
        EXPECT_LT(r.message.size(), 1000u) << what << ": the message repeats the argument";
    }
    h_.settle();
    EXPECT_TRUE(h_.calls().empty()) << h_.calls().front();
    EXPECT_FALSE(std::filesystem::exists(confd));
    EXPECT_TRUE(service_->objects() == before) << "the state changed";
    // The daemon is alive and answers reads.
    EXPECT_EQ(mapProperty(kMapA, "Name"), kMapA);
}

TEST_F(Bus, WhatAMethodChangedIsSignalledBeforeItsReply) {
    // A client that watches PropertiesChanged and acts on the reply sees
    // the new selector announced first, not 100 ms after the reply.
    const std::string mapA = mpathd::BusService::mapPath(kMapA);
    auto order = onClient([mapA](sd_bus *b) {
        std::vector<std::string> seen;
        (void)sd_bus_match_signal(
            b, nullptr, kName, mapA.c_str(), "org.freedesktop.DBus.Properties", "PropertiesChanged",
            [](sd_bus_message *m, void *u, sd_bus_error *) -> int {
                const char *iface = nullptr;
                if (sd_bus_message_read(m, "s", &iface) < 0 ||
                    sd_bus_message_enter_container(m, 'a', "{sv}") < 0)
                    return 0;
                while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                    const char *name = nullptr;
                    (void)sd_bus_message_read(m, "s", &name);
                    if (name && std::string(name) == "Selector")
                        static_cast<std::vector<std::string> *>(u)->push_back("signal");
                    (void)sd_bus_message_skip(m, "v");
                    (void)sd_bus_message_exit_container(m);
                }
                return 0;
            },
            &seen);
        (void)sd_bus_call_method_async(
            b, nullptr, kName, mapA.c_str(), "org.mpathd.Multipath1.Map", "SetPathSelector",
            [](sd_bus_message *m, void *u, sd_bus_error *) -> int {
                static_cast<std::vector<std::string> *>(u)->push_back(
                    sd_bus_message_is_method_error(m, nullptr) ? "error" : "reply");
                return 0;
            },
            &seen, "sa{sv}", "round-robin 0", 0);
        // Until the reply, then a little longer for a signal that follows.
        auto until = std::chrono::steady_clock::now() + 20s;
        bool replied = false;
        while (std::chrono::steady_clock::now() < until) {
            while (sd_bus_process(b, nullptr) > 0) {
            }
            if (!replied && std::find(seen.begin(), seen.end(), "reply") != seen.end()) {
                replied = true;
                until = std::chrono::steady_clock::now() + 500ms;
            }
            (void)sd_bus_wait(b, 20000);
        }
        return seen;
    });
    EXPECT_EQ(order, (std::vector<std::string>{"signal", "reply"}));
}
