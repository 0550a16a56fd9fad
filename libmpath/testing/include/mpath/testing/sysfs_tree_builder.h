#pragma once

#include "mpath/discovery/udev_properties.h"
#include "mpath/error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mpath::testing {

/// Writes a small sysfs tree with the layout the kernel uses (block/<name>
/// links into devices/, device links, class/ entries) plus udev property
/// files, for tests, integration tests and benchmarks. Layout below the
/// directory given: sys/ (the sysfs root) and udev/<name> (properties in
/// `udevadm info --query=property` form).
class SysfsTreeBuilder {
public:
    /// How a SCSI host reaches its targets.
    enum class HostKind { Plain, FibreChannel, Iscsi, Sas };

    struct ScsiDisk {
        std::string name; ///< "sdb"
        unsigned major{8};
        unsigned minor{0};
        unsigned host{0}, channel{0}, target{0}, lun{0};
        uint64_t sizeSectors{2048};
        std::string vendor{"LIO-ORG"}; ///< written padded to 8 characters
        std::string model{"disk"};     ///< written padded to 16 characters
        std::string revision{"4.0"};
        std::string state{"running"};
        std::vector<uint8_t> vpdPage83; ///< not written when empty
        std::vector<uint8_t> vpdPage80; ///< not written when empty
        std::string accessState;        ///< ALUA access_state, not written when empty
        std::string dhState;            ///< dh_state ("alua", "detached"), not written when empty
        int preferredPath{-1};          ///< preferred_path, not written when < 0
        /// TPGS of the standard INQUIRY data written as inquiry (0 no ALUA,
        /// 1 implicit, 2 explicit, 3 both); not written when < 0.
        int tpgs{-1};
        HostKind hostKind{HostKind::Plain};
        std::string hostWwnn, hostWwpn, targetWwnn, targetWwpn; ///< FC
        unsigned iscsiSession{1};
        std::string iscsiTarget;         ///< iSCSI target IQN
        std::string sasAddress;          ///< SAS end device address
        discovery::UdevPropertyMap udev; ///< no udev file when empty
    };

    struct NvmeNamespace {
        std::string name; ///< "nvme0n1"
        unsigned major{259};
        unsigned minor{0};
        unsigned controller{0}; ///< nvme<controller>
        unsigned nsid{1};
        uint64_t sizeSectors{2048};
        std::string model{"QEMU NVMe Ctrl"};
        std::string serial{"deadbeef"};
        std::string firmwareRevision{"8.0.0"};
        std::string transport{"pcie"};
        std::string state{"live"};
        unsigned kato{0}; ///< keep-alive timeout (s), not written when 0
        std::string subsysnqn{"nqn.2019-08.org.qemu:subsys0"};
        std::string wwid;                ///< not written when empty
        std::string uuid;                ///< not written when empty
        std::string nguid;               ///< not written when empty
        std::string eui;                 ///< not written when empty
        std::string anaState;            ///< not written when empty
        unsigned anaGroupId{0};          ///< ana_grpid, not written when 0
        discovery::UdevPropertyMap udev; ///< no udev file when empty
    };

    explicit SysfsTreeBuilder(std::string directory);

    const std::string &sysfsRoot() const { return sysRoot_; }
    const std::string &udevDirectory() const { return udevDir_; }

    Result<void> addScsiDisk(const ScsiDisk &disk);
    Result<void> addNvmeNamespace(const NvmeNamespace &ns);
    /// A block device without a device link (dm-0, loop0, nullb0).
    Result<void> addVirtualDisk(const std::string &name, unsigned major, unsigned minor);
    Result<void> writeUdevProperties(const std::string &name,
                                     const discovery::UdevPropertyMap &props);

    /// VPD page 0x83 with one logical unit NAA designator of \a hex
    /// (16 or 32 hex digits), optionally followed by a target port group
    /// designator.
    static std::vector<uint8_t> naaPage83(const std::string &hex, int targetPortGroup = -1);
    /// VPD page 0x80 holding \a serial.
    static std::vector<uint8_t> page80(const std::string &serial);
    /// Standard INQUIRY data of a disk, 36 bytes, with \a tpgs in byte 5.
    static std::vector<uint8_t> inquiry(const std::string &vendor, const std::string &model,
                                        const std::string &revision, unsigned tpgs);

private:
    // These return 0 or -errno; the public calls turn that into an Error.
    int writeFile(const std::string &relative, const std::string &content);
    int writeBinary(const std::string &relative, const std::vector<uint8_t> &data);
    int symlink(const std::string &target, const std::string &relative);
    int makeDirectories(const std::string &relative);

    std::string sysRoot_;
    std::string udevDir_;
};

} // namespace mpath::testing
