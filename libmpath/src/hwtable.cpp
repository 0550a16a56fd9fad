#include "mpath/hwtable.h"

#include "config_keywords.h"

namespace mpath {

void mergeSettings(Settings &base, const Settings &over) {
    detail::forEachSetting([&](const char *, unsigned, auto field, auto) {
        if (over.*field)
            base.*field = over.*field;
    });
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
    e.vendor = ConfigRegex::compile(vendor);
    e.product = ConfigRegex::compile(product);
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
Settings aluaSettings(NoPathRetry noPathRetry) {
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

std::vector<DeviceEntry> buildTable() {
    std::vector<DeviceEntry> t;
    auto add = [&](DeviceEntry e, Settings s) {
        e.settings = std::move(s);
        t.push_back(std::move(e));
    };

    // --- NVMe: native multipathing off, namespaces driven by us. The
    // generic entry comes first so vendor NVMe entries refine it.
    {
        Settings s;
        s.uidAttribute = "ID_WWN";
        s.pathChecker = "none";
        s.retainAttachedHwHandler = false;
        add(device("NVME", ".*"), s);
    }
    {
        Settings s;
        s.pathGroupingPolicy = GroupingPolicy::Multibus;
        s.noPathRetry = NoPathRetry::queue();
        add(device("NVME", "^NetApp ONTAP Controller"), s);
    }
    {
        Settings s;
        s.pathGroupingPolicy = GroupingPolicy::GroupByPrio;
        s.prio = "ana";
        s.failback = Failback::immediate();
        s.fastIoFailTmo = OffOrNumber::number(10);
        s.noPathRetry = NoPathRetry::fail();
        add(device("NVME", "^Pure Storage FlashArray"), s);
    }

    // --- NetApp ONTAP (SCSI): ontap prioritizer, or ALUA when detected.
    {
        Settings s;
        s.features = pgInitRetries50();
        s.noPathRetry = NoPathRetry::queue();
        s.pathGroupingPolicy = GroupingPolicy::GroupByPrio;
        s.failback = Failback::immediate();
        s.flushOnLastDel = true;
        s.devLossTmo = DevLossTmo::infinite();
        s.userFriendlyNames = false;
        s.prio = "ontap";
        add(device("NETAPP", "LUN"), s);
    }
    // NetApp E-Series / LSI / Engenio.
    add(device("(NETAPP|LSI|ENGENIO)", "INF-01-00"), rdacSettings(30));

    // --- Pure Storage FlashArray (SCSI).
    {
        Settings s = aluaSettings(NoPathRetry::fail());
        s.hardwareHandler = handler("alua");
        s.fastIoFailTmo = OffOrNumber::number(10);
        s.maxSectorsKb = OffOrNumber::number(4096);
        add(device("PURE", "FlashArray"), s);
    }

    // --- IBM.
    // SAN Volume Controller / Storwize / FlashSystem (2145).
    add(device("IBM", "^2145"), aluaSettings(NoPathRetry::times(kFiveMinutesOfRetries)));
    // DS8000 family.
    {
        Settings s;
        s.pathGroupingPolicy = GroupingPolicy::Multibus;
        add(device("IBM", "^2107900"), s);
    }
    // XIV.
    {
        Settings s;
        s.pathGroupingPolicy = GroupingPolicy::Multibus;
        s.noPathRetry = NoPathRetry::queue();
        add(device("(XIV|IBM)", "(NEXTRA|2810XIV)"), s);
    }
    // DS3000/DS4000/DS5000 (rdac).
    {
        DeviceEntry e = device("IBM", "^1(722|724|726|742|745|746|814|815|818)");
        e.productBlacklist = ConfigRegex::compile("Universal Xport");
        add(e, rdacSettings(30));
    }

    // --- Dell EMC.
    // CLARiiON / VNX / Unity in PNR mode; "LUNZ" is the gatekeeper LUN.
    {
        DeviceEntry e = device("DGC", ".*");
        e.productBlacklist = ConfigRegex::compile("LUNZ");
        Settings s;
        s.hardwareHandler = handler("emc");
        s.pathGroupingPolicy = GroupingPolicy::GroupByPrio;
        s.failback = Failback::immediate();
        s.noPathRetry = NoPathRetry::times(kFiveMinutesOfRetries);
        s.pathChecker = "emc_clariion";
        s.prio = "emc";
        add(e, s);
    }
    // Symmetrix / VMAX / PowerMax.
    {
        Settings s;
        s.pathGroupingPolicy = GroupingPolicy::Multibus;
        s.noPathRetry = NoPathRetry::times(6);
        add(device("EMC", "SYMMETRIX"), s);
    }
    // XtremIO.
    {
        Settings s;
        s.pathGroupingPolicy = GroupingPolicy::Multibus;
        add(device("XtremIO", "XtremApp"), s);
    }
    // PowerStore.
    {
        Settings s = aluaSettings(NoPathRetry::times(3));
        s.fastIoFailTmo = OffOrNumber::number(15);
        add(device("DellEMC", "PowerStore"), s);
    }
    // SC Series (Compellent).
    {
        Settings s;
        s.pathGroupingPolicy = GroupingPolicy::Multibus;
        s.noPathRetry = NoPathRetry::queue();
        add(device("COMPELNT", "Compellent Vol"), s);
    }
    // PowerVault MD3xxx (rdac); the access LUN is "Universal Xport".
    {
        DeviceEntry e = device("DELL", "^MD3");
        e.productBlacklist = ConfigRegex::compile("Universal Xport");
        add(e, rdacSettings(30));
    }

    // --- Hitachi (and HP-branded Hitachi).
    {
        Settings s;
        s.pathGroupingPolicy = GroupingPolicy::Multibus;
        add(device("(HITACHI|HP)", "^OPEN-"), s);
    }
    {
        Settings s;
        s.noPathRetry = NoPathRetry::queue();
        s.pathGroupingPolicy = GroupingPolicy::GroupByPrio;
        s.failback = Failback::immediate();
        s.prio = "hds";
        add(device("HITACHI", "^DF"), s);
    }

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
    // MSA 1040/2040/1050/2050/1060/2060.
    add(device("(HP|HPE)", "MSA [12]0[4-6]0 SA[NS]"), aluaSettings(NoPathRetry::times(18)));
    // EVA (HSV controllers).
    add(device("(COMPAQ|HP)", "(HSV1[01]1|HSV2[01]0|HSV3[046]0|HSV4[05]0)"),
        aluaSettings(NoPathRetry::times(12)));

    // --- Linux targets.
    // LIO (targetcli), used by the lab and by many software arrays.
    {
        Settings s = aluaSettings(NoPathRetry::times(12));
        s.hardwareHandler = handler("alua");
        add(device("LIO-ORG", ".*"), s);
    }

    // --- Others.
    // Huawei OceanStor.
    add(device("HUAWEI", "XSG1"), aluaSettings(NoPathRetry::times(15)));
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
        s.flushOnLastDel = true;
        s.devLossTmo = DevLossTmo::after(30);
        add(device("NFINIDAT", "InfiniBox"), s);
    }
    // Kaminario K2 / Silk.
    {
        Settings s;
        s.pathGroupingPolicy = GroupingPolicy::Multibus;
        add(device("KMNRIO", "K2"), s);
    }
    // NetApp SolidFire.
    {
        Settings s;
        s.pathGroupingPolicy = GroupingPolicy::Multibus;
        s.noPathRetry = NoPathRetry::times(24);
        add(device("SolidFir", "SSD SAN"), s);
    }
    return t;
}

} // namespace

const Hwtable &Hwtable::builtin() {
    static const Hwtable table(buildTable());
    return table;
}

} // namespace mpath
