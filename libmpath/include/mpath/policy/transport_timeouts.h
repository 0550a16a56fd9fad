#pragma once

#include "mpath/config/effective_settings.h"
#include "mpath/model/path.h"

#include <climits>
#include <optional>
#include <string>
#include <vector>

namespace mpath::policy {

/// dev_loss_tmo "infinity", as the FC transport takes it.
inline constexpr unsigned kDevLossInfinity = UINT_MAX;

/// The transport timeouts a map's paths are given (multipath-tools'
/// fast_io_fail_tmo, dev_loss_tmo and eh_deadline), decided once per map.
struct TransportTimeouts {
    /// fast_io_fail_tmo; FC: the remote port's fast_io_fail_tmo, iSCSI: the
    /// session's recovery_tmo, NVMe over fabrics: the controller's
    /// fast_io_fail_tmo. Always set: multipath-tools' default is 5.
    config::OffOrNumber fastIoFail{config::OffOrNumber::number(5)};
    /// dev_loss_tmo in seconds (kDevLossInfinity: infinity); FC: the remote
    /// port's dev_loss_tmo, SAS: the end device's I_T nexus loss timeout,
    /// NVMe over fabrics: the controller's ctrl_loss_tmo. None: the
    /// transport's own stays.
    std::optional<unsigned> devLoss;
    /// eh_deadline of the SCSI host; none: the host's own stays.
    std::optional<config::OffOrNumber> ehDeadline;
    bool queueForever{false}; ///< no_path_retry queue: FC may keep a dev_loss above 600
    /// A configuration file (not the built-in defaults) asked for them: a
    /// path they cannot be given to is said, not passed over in silence.
    bool configured{false};
    bool devLossConfigured{false}; ///< dev_loss_tmo itself came from a file
    /// What the decision changed (dev_loss_tmo raised, fast_io_fail_tmo
    /// turned off), one line each, for the log; the planner fills it for a
    /// map of FC, iSCSI or SAS paths only.
    std::vector<std::string> notes;

    bool operator==(const TransportTimeouts &) const = default;
};

/// The timeouts \a settings give a map, as multipath-tools decides them:
/// dev_loss_tmo is raised to cover no_path_retry (no_path_retry x
/// \a pollingInterval, plus 1 s a minute and one 5 s check, or infinity when
/// it queues), and fast_io_fail_tmo is turned off when it is not below
/// dev_loss_tmo. What was changed so is added to \a notes.
TransportTimeouts transportTimeouts(const config::EffectiveSettings &settings,
                                    unsigned pollingInterval,
                                    std::vector<std::string> *notes = nullptr);

/// One sysfs attribute to write, relative to the sysfs root.
struct SysfsWrite {
    std::string attribute; ///< "class/iscsi_session/session2/recovery_tmo"
    std::string value;     ///< "5", "off"
    std::string keyword;   ///< the keyword it comes from, "fast_io_fail_tmo"
    /// The path's later writes need this one: when it is refused, they
    /// are not made (the FC port's temporary dev_loss_tmo).
    bool prerequisite{false};
    /// How the attribute reads once \a value is written, when that differs
    /// (an NVMe controller takes "-1" and shows "off"); "": \a value.
    std::string shown{};

    bool operator==(const SysfsWrite &) const = default;
};

/// What gives \a path \a timeouts, in the order the kernel needs:
/// - every SCSI path: its host's eh_deadline;
/// - FC: the remote port's fast_io_fail_tmo and dev_loss_tmo. The
///   transport refuses a fast_io_fail_tmo not below the current dev_loss_tmo
///   (\a portDevLoss, read just before) and a dev_loss_tmo above 600 while
///   fast_io_fail_tmo is off, so dev_loss_tmo may first be raised to
///   fast_io_fail_tmo + 1, or limited to 600;
/// - iSCSI: the session's recovery_tmo, from fast_io_fail_tmo (dev_loss_tmo
///   has no iSCSI counterpart; off and 0 are not set, as multipath-tools
///   does not);
/// - SAS: nothing: the end device's I_T nexus loss timeout, dev_loss_tmo's
///   counterpart, is read-only in sysfs;
/// - NVMe over fabrics (multipath-tools sets nothing there): the
///   controller's fast_io_fail_tmo, and its ctrl_loss_tmo (\a portDevLoss
///   is the current one), after which the kernel deletes the controller as
///   FC deletes a port after dev_loss_tmo. A configured dev_loss_tmo is
///   written as it is; one that only no_path_retry asks for never shortens
///   the controller's own (600 s by default), it only raises it.
/// Paths of other transports get nothing. What cannot be applied is added
/// to \a notes when the timeouts were configured.
std::vector<SysfsWrite> timeoutWrites(const TransportTimeouts &timeouts, const model::Path &path,
                                      std::optional<unsigned> portDevLoss,
                                      std::vector<std::string> *notes = nullptr);

/// The sysfs attribute that holds \a path's current dev_loss_tmo
/// counterpart, the \a portDevLoss timeoutWrites() needs (FC: the remote
/// port's dev_loss_tmo, NVMe over fabrics: the controller's ctrl_loss_tmo),
/// relative to the sysfs root; "" when none is needed.
std::string portDevLossAttribute(const model::Path &path);

/// \a text as read from a portDevLossAttribute(): seconds, or "off"
/// (kDevLossInfinity); none when it is neither.
std::optional<unsigned> parsePortDevLoss(const std::string &text);

} // namespace mpath::policy
