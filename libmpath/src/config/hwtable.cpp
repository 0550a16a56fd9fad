#include "mpath/config/hwtable.h"

#include "config/keyword_table.h"

#include <algorithm>

namespace mpath::config {

void mergeSettings(Settings &base, const Settings &over) {
    detail::forEachSetting([&](const auto &k) {
        if (!(over.*k.field))
            return;
        base.*k.field = over.*k.field;
        auto line = over.where.find(k.name);
        if (line != over.where.end())
            base.where[std::string(k.name)] = line->second;
        else if (auto old = base.where.find(k.name); old != base.where.end())
            base.where.erase(old);
    });
}

std::vector<DeviceEntry> Hwtable::mergedWith(const std::vector<DeviceEntry> &entries) const {
    std::vector<DeviceEntry> out = entries_;
    for (const DeviceEntry &e : entries) {
        DeviceEntry merged = e;
        auto same = std::find_if(out.begin(), out.end(),
                                 [&](const DeviceEntry &o) { return o.sameDevice(e); });
        if (same != out.end()) {
            Settings settings = same->settings;
            mergeSettings(settings, e.settings);
            for (const auto &[keyword, line] : e.settings.where)
                settings.where.insert_or_assign(keyword, line);
            merged.settings = std::move(settings);
            if (merged.productBlacklist.empty())
                merged.productBlacklist = same->productBlacklist;
            out.erase(same);
        }
        out.push_back(std::move(merged));
    }
    return out;
}

std::vector<const DeviceEntry *> Hwtable::matching(std::string_view vendor,
                                                   std::string_view product,
                                                   std::string_view revision) const {
    std::vector<const DeviceEntry *> out;
    for (const auto &e : entries_)
        if (e.matches(vendor, product, revision))
            out.push_back(&e);
    return out;
}

Settings Hwtable::merged(std::string_view vendor, std::string_view product,
                         std::string_view revision) const {
    Settings s;
    for (const DeviceEntry *e : matching(vendor, product, revision))
        mergeSettings(s, e->settings);
    return s;
}

namespace {

DeviceEntry device(const char *vendor, const char *product) {
    DeviceEntry e;
    e.vendor = Regex::builtin(vendor);
    e.product = Regex::builtin(product);
    return e;
}

HardwareHandler handler(const char *name) {
    return HardwareHandler{name, {}};
}

std::vector<std::string> pgInitRetries50() {
    return {"pg_init_retries", "50"};
}

// Arrays driven through the rdac handler (LSI/Engenio heritage) share
// these settings.
Settings rdacSettings(unsigned noPathRetry) {
    Settings s;
    s.pathGroupingPolicy = GroupingPolicy::GroupByPrio;
    s.pathChecker = "rdac";
    s.features = pgInitRetries50();
    s.hardwareHandler = handler("rdac");
    s.prio = "rdac";
    s.failback = Failback::immediate();
    s.noPathRetry = NoPathRetry::times(noPathRetry);
    return s;
}

// ALUA arrays that want their optimized group used and returned to.
Settings aluaSettings(std::optional<NoPathRetry> noPathRetry) {
    Settings s;
    s.pathGroupingPolicy = GroupingPolicy::GroupByPrio;
    s.prio = "alua";
    s.failback = Failback::immediate();
    s.noPathRetry = noPathRetry;
    return s;
}

// multipath-tools expresses many retry counts as "300 seconds at the
// default checker interval of 5 seconds".
constexpr unsigned kFiveMinutesOfRetries = 300 / 5;

// GCC 12's optimizer takes an optional string of a Settings just made, with
// nothing set, for possibly set, and warns that assigning it reads an
// uninitialized string: a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
std::vector<DeviceEntry> buildTable() {
    std::vector<DeviceEntry> t;
    auto add = [&](DeviceEntry e, Settings s) {
        e.settings = std::move(s);
        t.push_back(std::move(e));
    };
    auto multibus = [](std::optional<NoPathRetry> npr = std::nullopt) {
        Settings s;
        s.pathGroupingPolicy = GroupingPolicy::Multibus;
        s.noPathRetry = npr;
        return s;
    };

    // --- NVMe. The generic entry comes first so that vendor NVMe entries,
    // which match too, refine it.
    {
        Settings s;
        s.uidAttribute = "ID_WWN";
        s.pathChecker = "none";
        s.pathGroupingPolicy = GroupingPolicy::GroupByPrio;
        s.failback = Failback::immediate();
        add(device("NVM[eE]", ".*"), s);
    }
    {
        Settings s;
        s.noPathRetry = NoPathRetry::queue();
        add(device("NVME", "^NetApp ONTAP Controller"), s);
    }
    {
        Settings s;
        s.noPathRetry = NoPathRetry::times(10);
        add(device("NVME", "Pure Storage FlashArray"), s);
    }

    // --- NetApp.
    // ONTAP (FAS/AFF): ontap prioritizer, or ALUA when detect_prio finds it.
    {
        Settings s;
        s.features = pgInitRetries50();
        s.noPathRetry = NoPathRetry::queue();
        s.pathGroupingPolicy = GroupingPolicy::GroupByPrio;
        s.failback = Failback::immediate();
        s.flushOnLastDel = true;
        s.devLossTmo = DevLossTmo::infinite();
        s.prio = "ontap";
        s.userFriendlyNames = false;
        add(device("NETAPP", "LUN"), s);
    }
    // E/EF-Series (SANtricity, rdac), also sold as LSI and Engenio.
    {
        DeviceEntry e = device("(NETAPP|LSI|ENGENIO)", "INF-01-00");
        e.productBlacklist = Regex::builtin("Universal Xport");
        add(e, rdacSettings(30));
    }
    add(device("SolidFir", "SSD SAN"), multibus(NoPathRetry::times(24)));

    // --- Pure Storage FlashArray (SCSI): ALUA, and detect_prio off.
    {
        Settings s = aluaSettings(std::nullopt);
        s.hardwareHandler = handler("alua");
        s.detectPrio = false;
        s.fastIoFailTmo = OffOrNumber::number(10);
        s.maxSectorsKb = OffOrNumber::number(4096);
        add(device("PURE", "FlashArray"), s);
    }

    // --- IBM.
    // SVC / Storwize / FlashSystem (2145).
    add(device("IBM", "^2145"), aluaSettings(NoPathRetry::queue()));
    // DS8000 family.
    {
        Settings s;
        s.noPathRetry = NoPathRetry::queue();
        s.pathGroupingPolicy = GroupingPolicy::GroupByPrio;
        s.failback = Failback::immediate();
        add(device("IBM", "^2107900"), s);
    }
    // XIV / FlashSystem A9000.
    {
        Settings s;
        s.noPathRetry = NoPathRetry::queue();
        s.pathGroupingPolicy = GroupingPolicy::GroupByPrio;
        s.failback = Failback::after(15);
        add(device("(XIV|IBM)", "(NEXTRA|2810XIV)"), s);
    }
    // DS3000/DS4000/DS5000 (rdac).
    {
        DeviceEntry e = device("IBM", "^(1722-600|1724|1726|1742|1746|1813|1814|1815|1818)");
        e.productBlacklist = Regex::builtin("Universal Xport");
        add(e, rdacSettings(30));
    }

    // --- Dell EMC.
    // CLARiiON / VNX / Unity; "LUNZ" is the gatekeeper LUN, not storage.
    {
        DeviceEntry e = device("^DGC", "^(RAID|DISK|VRAID)");
        e.productBlacklist = Regex::builtin("LUNZ");
        Settings s;
        s.hardwareHandler = handler("emc");
        s.pathGroupingPolicy = GroupingPolicy::GroupByPrio;
        s.failback = Failback::immediate();
        s.noPathRetry = NoPathRetry::times(kFiveMinutesOfRetries);
        s.pathChecker = "emc_clariion";
        s.prio = "emc";
        s.detectChecker = false;
        add(e, s);
    }
    // Symmetrix / VMAX / PowerMax.
    add(device("EMC", "SYMMETRIX"), multibus(NoPathRetry::times(6)));
    // Invista / VPLEX; "LUNZ" is the gatekeeper LUN, not storage.
    {
        DeviceEntry e = device("EMC", "Invista");
        e.productBlacklist = Regex::builtin("LUNZ");
        add(e, multibus(NoPathRetry::times(5)));
    }
    // XtremIO.
    add(device("XtremIO", "XtremApp"), multibus());
    // PowerStore.
    {
        Settings s = aluaSettings(NoPathRetry::times(3));
        s.hardwareHandler = handler("alua");
        s.fastIoFailTmo = OffOrNumber::number(15);
        add(device("DellEMC", "PowerStore"), s);
    }
    // SC Series (Compellent).
    add(device("COMPELNT", "Compellent Vol"), [] {
        Settings s;
        s.pathGroupingPolicy = GroupingPolicy::GroupByPrio;
        s.failback = Failback::immediate();
        s.noPathRetry = NoPathRetry::queue();
        return s;
    }());
    // PowerVault MD3xxx (rdac); the access LUN is "Universal Xport".
    {
        DeviceEntry e = device("DELL", "^MD3");
        e.productBlacklist = Regex::builtin("Universal Xport");
        add(e, rdacSettings(30));
    }

    // --- Hitachi Vantara (also sold by HP/HPE as XP).
    {
        Settings s;
        s.pathGroupingPolicy = GroupingPolicy::GroupByPrio;
        s.failback = Failback::immediate();
        s.noPathRetry = NoPathRetry::times(10);
        add(device("(HITACHI|HP|HPE)", "^OPEN-"), s);
    }
    // AMS, except AMS 2000 / HUS 100 below.
    {
        Settings s;
        s.noPathRetry = NoPathRetry::queue();
        s.pathGroupingPolicy = GroupingPolicy::GroupByPrio;
        s.failback = Failback::immediate();
        s.prio = "hds";
        add(device("HITACHI", "^DF"), s);
    }
    add(device("HITACHI", "^DF600F"), multibus());

    // --- HPE.
    // 3PAR / Primera / Alletra 9000.
    {
        Settings s = aluaSettings(NoPathRetry::times(18));
        s.hardwareHandler = handler("alua");
        s.fastIoFailTmo = OffOrNumber::number(10);
        s.devLossTmo = DevLossTmo::infinite();
        add(device("3PARdata", "VV"), s);
    }
    // Nimble / Alletra 5000/6000.
    {
        Settings s = aluaSettings(NoPathRetry::queue());
        s.hardwareHandler = handler("alua");
        add(device("Nimble", "Server"), s);
    }
    // MSA 1040/1050/1060/2040/2050/2060/2070.
    add(device("(HP|HPE)", "MSA [12]0[4567]0 (SAN|SAS|FC|iSCSI)"),
        aluaSettings(NoPathRetry::times(18)));
    // EVA (HSV controllers) with current firmware.
    add(device("(COMPAQ|HP)", "(HSV1[01]1|HSV2[01]0|HSV3[046]0|HSV4[05]0)"),
        aluaSettings(NoPathRetry::times(12)));

    // --- Linux-IO target (targetcli), used by the lab and by many
    // software arrays. directio is the checker, as in multipath-tools'
    // entry; where scsi_dh_alua refuses its reads (a standby port), the
    // checker asks with a TUR (DirectioChecker).
    {
        Settings s = aluaSettings(NoPathRetry::times(12));
        s.hardwareHandler = handler("alua");
        s.pathChecker = "directio";
        s.detectChecker = false;
        add(device("(LIO-ORG|SUSE)", ".*"), s);
    }

    // --- Others.
    // Huawei OceanStor V3-V6 and OEM versions.
    {
        Settings s;
        s.pathGroupingPolicy = GroupingPolicy::GroupByPrio;
        s.failback = Failback::immediate();
        s.noPathRetry = NoPathRetry::times(15);
        add(device("^(HUAWEI|AnyStor|Marstor|NETPOSA|SanM|SUGON|UDsafe)", "XSG1"), s);
    }
    // Fujitsu ETERNUS DX.
    add(device("FUJITSU", "ETERNUS_DX(H|L|M|400|8000)"), aluaSettings(NoPathRetry::times(10)));
    // DataCore SANsymphony.
    add(device("DataCore", "Virtual Disk"), aluaSettings(NoPathRetry::queue()));
    // Infinidat InfiniBox.
    {
        Settings s = aluaSettings(NoPathRetry::fail());
        s.failback = Failback::after(30);
        s.pathSelector = PathSelector{"round-robin", {}};
        s.rrWeight = RrWeight::Priorities;
        s.rrMinIo = 1;
        s.rrMinIoRq = 1;
        s.fastIoFailTmo = OffOrNumber::number(15);
        add(device("NFINIDAT", "InfiniBox"), s);
    }
    // Kaminario K2 / Silk.
    add(device("KMNRIO", "K2"), multibus());
    return t;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

} // namespace

const Hwtable &Hwtable::builtin() {
    static const Hwtable table(buildTable());
    return table;
}

} // namespace mpath::config
