#pragma once

// The one list of per-map/per-path and daemon-wide keywords: the parser,
// the resolver and the "show config" listing all walk it, so a keyword
// added here is parsed, resolved and listed.

#include "mpath/config/config.h"

namespace mpath::config::detail {

/// Sections that accept a keyword.
enum SectionMask : unsigned {
    InDefaults = 1u << 0,
    InDevice = 1u << 1,
    InMultipath = 1u << 2,
    InOverrides = 1u << 3,
    InAll = InDefaults | InDevice | InMultipath | InOverrides,
    NotInMultipath = InDefaults | InDevice | InOverrides,
};

/// Calls fn(keyword, sections, &Settings::field, &EffectiveSettings::field)
/// for every per-map/per-path keyword.
template <typename Fn>
void forEachSetting(Fn &&fn) {
    using S = Settings;
    using E = EffectiveSettings;
    fn("path_grouping_policy", InAll, &S::pathGroupingPolicy, &E::pathGroupingPolicy);
    fn("path_selector", InAll, &S::pathSelector, &E::pathSelector);
    fn("path_checker", NotInMultipath, &S::pathChecker, &E::pathChecker);
    fn("prio", InAll, &S::prio, &E::prio);
    fn("prio_args", InAll, &S::prioArgs, &E::prioArgs);
    fn("failback", InAll, &S::failback, &E::failback);
    fn("no_path_retry", InAll, &S::noPathRetry, &E::noPathRetry);
    fn("features", InAll, &S::features, &E::features);
    fn("hardware_handler", NotInMultipath, &S::hardwareHandler, &E::hardwareHandler);
    fn("rr_weight", InAll, &S::rrWeight, &E::rrWeight);
    fn("rr_min_io", InAll, &S::rrMinIo, &E::rrMinIo);
    fn("rr_min_io_rq", InAll, &S::rrMinIoRq, &E::rrMinIoRq);
    fn("user_friendly_names", InAll, &S::userFriendlyNames, &E::userFriendlyNames);
    fn("alias_prefix", NotInMultipath, &S::aliasPrefix, &E::aliasPrefix);
    fn("uid_attribute", InDefaults | InDevice, &S::uidAttribute, &E::uidAttribute);
    fn("getuid_callout", InDefaults | InDevice, &S::getuid, &E::getuid);
    fn("fast_io_fail_tmo", NotInMultipath, &S::fastIoFailTmo, &E::fastIoFailTmo);
    fn("dev_loss_tmo", NotInMultipath, &S::devLossTmo, &E::devLossTmo);
    fn("retain_attached_hw_handler", NotInMultipath, &S::retainAttachedHwHandler,
       &E::retainAttachedHwHandler);
    fn("detect_prio", NotInMultipath, &S::detectPrio, &E::detectPrio);
    fn("detect_checker", NotInMultipath, &S::detectChecker, &E::detectChecker);
    fn("pg_init_retries", InAll, &S::pgInitRetries, &E::pgInitRetries);
    fn("pg_init_delay_msecs", InAll, &S::pgInitDelayMsecs, &E::pgInitDelayMsecs);
    fn("queue_mode", InAll, &S::queueMode, &E::queueMode);
    fn("flush_on_last_del", InAll, &S::flushOnLastDel, &E::flushOnLastDel);
    fn("skip_kpartx", InAll, &S::skipKpartx, &E::skipKpartx);
    fn("deferred_remove", InAll, &S::deferredRemove, &E::deferredRemove);
    fn("all_tg_pt", NotInMultipath, &S::allTgPt, &E::allTgPt);
    fn("max_sectors_kb", InAll, &S::maxSectorsKb, &E::maxSectorsKb);
    fn("ghost_delay", InAll, &S::ghostDelay, &E::ghostDelay);
    fn("marginal_path_err_sample_time", InAll, &S::marginalPathErrSampleTime,
       &E::marginalPathErrSampleTime);
    fn("marginal_path_err_rate_threshold", InAll, &S::marginalPathErrRateThreshold,
       &E::marginalPathErrRateThreshold);
    fn("marginal_path_err_recheck_gap_time", InAll, &S::marginalPathErrRecheckGapTime,
       &E::marginalPathErrRecheckGapTime);
    fn("marginal_path_double_failed_time", InAll, &S::marginalPathDoubleFailedTime,
       &E::marginalPathDoubleFailedTime);
}

/// Calls fn(keyword, &GlobalSettings::field, &EffectiveGlobals::field) for
/// every keyword only defaults {} accepts.
template <typename Fn>
void forEachGlobal(Fn &&fn) {
    using G = GlobalSettings;
    using E = EffectiveGlobals;
    fn("verbosity", &G::verbosity, &E::verbosity);
    fn("find_multipaths", &G::findMultipaths, &E::findMultipaths);
    fn("find_multipaths_timeout", &G::findMultipathsTimeout, &E::findMultipathsTimeout);
    fn("polling_interval", &G::pollingInterval, &E::pollingInterval);
    fn("max_polling_interval", &G::maxPollingInterval, &E::maxPollingInterval);
    fn("checker_timeout", &G::checkerTimeout, &E::checkerTimeout);
    fn("bindings_file", &G::bindingsFile, &E::bindingsFile);
    fn("wwids_file", &G::wwidsFile, &E::wwidsFile);
    fn("config_dir", &G::configDir, &E::configDir);
    fn("queue_without_daemon", &G::queueWithoutDaemon, &E::queueWithoutDaemon);
    fn("marginal_pathgroups", &G::marginalPathgroups, &E::marginalPathgroups);
    fn("dm_target", &G::dmTarget, &E::dmTarget);
}

/// The compiled-in defaults, each with Origin::Builtin.
EffectiveSettings builtinSettings();
EffectiveGlobals builtinGlobals();

/// A value as it would be written in a configuration file.
std::string formatValue(const std::string &v);
std::string formatValue(bool v);
std::string formatValue(unsigned v);
std::string formatValue(int v);
std::string formatValue(GroupingPolicy v);
std::string formatValue(FindMultipaths v);
std::string formatValue(RrWeight v);
std::string formatValue(QueueMode v);
std::string formatValue(MarginalPathgroups v);
std::string formatValue(DmTarget v);
std::string formatValue(const Failback &v);
std::string formatValue(const NoPathRetry &v);
std::string formatValue(const OffOrNumber &v);
std::string formatValue(const DevLossTmo &v);
std::string formatValue(const PathSelector &v);
std::string formatValue(const HardwareHandler &v);
std::string formatValue(const std::vector<std::string> &features);

} // namespace mpath::config::detail
