#pragma once

// The one table of keywords. For every keyword it says in which sections
// it is accepted, which field of the sections it sets and which field of
// the effective settings it decides, its built-in default, how its value
// is read and checked (range, validator, words), and whether it has an
// effect here. The parser, the resolver, the writer and the listings all
// walk it, so a keyword added here is read, checked, resolved, written
// and listed; docs/configuration.md describes the same table for people.

#include "mpath/config/config.h"
#include "mpath/enum_names.h"

#include <array>
#include <climits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>

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

/// Whether a keyword changes what this project does today.
enum class Effect {
    Applied, ///< read by discovery, planning or the tables
    Refused, ///< only the value mpathd follows anyway is taken; any other is refused
};

/// How a value is written in a file.
enum class Syntax {
    Word,       ///< one token
    RestOfLine, ///< every token up to the end of the statement; written quoted
};

/// Inclusive limits of a number.
struct Range {
    long long min{0};
    long long max{UINT_MAX};
};

/// Checks the text of a value: "" when it is accepted, else what is
/// accepted ("an absolute path"), for the diagnostic.
using Validator = std::string (*)(const std::string &text);

/// How a keyword's value is read and checked.
struct Rule {
    Syntax syntax{Syntax::Word};
    Range range;                           ///< numbers
    Validator validate{nullptr};           ///< strings; null accepts any text
    std::span<const EnumName<bool>> words; ///< yes/no keywords; empty: yes, no
};

// Validators of string values.
std::string anyText(const std::string &text);
std::string word(const std::string &text);
std::string wordWithoutSlash(const std::string &text);
std::string absolutePath(const std::string &text);
std::string checkerName(const std::string &text);
std::string prioName(const std::string &text);

/// flush_on_last_del also takes multipath-tools 0.10's words: "always"
/// flushes, the others do not force it.
inline constexpr std::array<EnumName<bool>, 5> kFlushOnLastDelWords{{
    {true, "yes"},
    {false, "no"},
    {true, "always"},
    {false, "never"},
    {false, "unused"},
}};

/// One row of the table: a keyword whose value lands in a field of
/// \a Section (Settings or GlobalSettings) and is decided into a field of
/// \a Effective (EffectiveSettings or EffectiveGlobals).
template <typename Section, typename Effective, typename T>
struct Keyword {
    using Value = T;

    std::string_view name;
    unsigned sections;
    std::optional<T> Section::*field;
    Resolved<T> Effective::*effective;
    T builtin;   ///< the value when no section sets it
    Rule rule{}; ///< how the value is read
    Effect effect{Effect::Applied};
    std::string_view refusedWhy{}; ///< Refused: why, in the warning a refused value draws
    std::optional<T> accepted{};   ///< Refused: the value that asks for what mpathd does
                                   ///< anyway (taken); none: every value is refused
    bool extension{false};         ///< ours: multipath-tools 0.9.4 has no such keyword
    bool unsetByDefault{false};    ///< multipath-tools has no default: builtin means "unset"
    bool deprecated{false};        ///< applied, with multipath-tools' deprecation notice

    Keyword range(long long min, long long max = UINT_MAX) const {
        Keyword k = *this;
        k.rule.range = {min, max};
        return k;
    }
    Keyword validate(Validator v) const {
        Keyword k = *this;
        k.rule.validate = v;
        return k;
    }
    Keyword words(std::span<const EnumName<bool>> w) const {
        Keyword k = *this;
        k.rule.words = w;
        return k;
    }
    Keyword restOfLine() const {
        Keyword k = *this;
        k.rule.syntax = Syntax::RestOfLine;
        return k;
    }
    /// Read and checked, but not acted on: a value other than \a acceptedValue
    /// is refused (not stored) with a warning saying \a why, so that no file
    /// asks for a behaviour mpathd does not give it.
    Keyword refused(std::string_view why, std::optional<T> acceptedValue = std::nullopt) const {
        Keyword k = *this;
        k.effect = Effect::Refused;
        k.refusedWhy = why;
        k.accepted = std::move(acceptedValue);
        return k;
    }
    Keyword ours() const {
        Keyword k = *this;
        k.extension = true;
        return k;
    }
    Keyword unsetUnlessSet() const {
        Keyword k = *this;
        k.unsetByDefault = true;
        return k;
    }
    Keyword deprecatedNotice() const {
        Keyword k = *this;
        k.deprecated = true;
        return k;
    }
};

/// Whether \a v, a value of keyword \a k, is one mpathd follows: any value of
/// an applied keyword, only the accepted one of a refused keyword (the
/// built-in device table may hold others, which are not in force).
template <typename K>
bool inForce(const K &k, const typename K::Value &v) {
    return k.effect == Effect::Applied || (k.accepted && v == *k.accepted);
}

/// A per-map/per-path keyword.
template <typename T>
Keyword<Settings, EffectiveSettings, T>
setting(std::string_view name, unsigned sections, std::optional<T> Settings::*field,
        Resolved<T> EffectiveSettings::*effective, std::type_identity_t<T> builtin) {
    return {name, sections, field, effective, std::move(builtin)};
}

/// A daemon-wide keyword: defaults {} only.
template <typename T>
Keyword<GlobalSettings, EffectiveGlobals, T>
global(std::string_view name, std::optional<T> GlobalSettings::*field,
       Resolved<T> EffectiveGlobals::*effective, std::type_identity_t<T> builtin) {
    return {name, InDefaults, field, effective, std::move(builtin)};
}

/// The per-map/per-path keywords, in the order multipath-tools lists them.
/// Sections and defaults are those of multipath-tools 0.9.4.
inline const auto &settingKeywords() {
    using S = Settings;
    using E = EffectiveSettings;
    static const auto table = std::make_tuple(
        setting("path_grouping_policy", InAll, &S::pathGroupingPolicy, &E::pathGroupingPolicy,
                GroupingPolicy::Failover),
        setting("path_selector", InAll, &S::pathSelector, &E::pathSelector,
                PathSelector{"service-time", {}})
            .restOfLine(),
        setting("path_checker", NotInMultipath, &S::pathChecker, &E::pathChecker, "tur")
            .validate(checkerName),
        setting("prio", InAll, &S::prio, &E::prio, "const").validate(prioName),
        setting("prio_args", InAll, &S::prioArgs, &E::prioArgs, "").restOfLine().validate(anyText),
        setting("failback", InAll, &S::failback, &E::failback, Failback::manual()),
        setting("no_path_retry", InAll, &S::noPathRetry, &E::noPathRetry, NoPathRetry::fail())
            .unsetUnlessSet(),
        setting("features", InAll, &S::features, &E::features, std::vector<std::string>{})
            .restOfLine(),
        setting("hardware_handler", InDevice, &S::hardwareHandler, &E::hardwareHandler,
                HardwareHandler{})
            .restOfLine(),
        setting("rr_weight", InAll, &S::rrWeight, &E::rrWeight, RrWeight::Uniform),
        setting("rr_min_io", InAll, &S::rrMinIo, &E::rrMinIo, 1000u).range(1),
        setting("rr_min_io_rq", InAll, &S::rrMinIoRq, &E::rrMinIoRq, 1u).range(1),
        setting("user_friendly_names", InAll, &S::userFriendlyNames, &E::userFriendlyNames, false),
        setting("alias_prefix", NotInMultipath, &S::aliasPrefix, &E::aliasPrefix, "mpath")
            .validate(wordWithoutSlash),
        setting("uid_attribute", NotInMultipath, &S::uidAttribute, &E::uidAttribute, "ID_SERIAL")
            .validate(word),
        setting("fast_io_fail_tmo", NotInMultipath, &S::fastIoFailTmo, &E::fastIoFailTmo,
                OffOrNumber::number(5)),
        setting("dev_loss_tmo", NotInMultipath, &S::devLossTmo, &E::devLossTmo,
                DevLossTmo::after(600))
            .unsetUnlessSet(),
        setting("eh_deadline", NotInMultipath, &S::ehDeadline, &E::ehDeadline,
                OffOrNumber::disabled())
            .unsetUnlessSet(),
        setting("retain_attached_hw_handler", NotInMultipath, &S::retainAttachedHwHandler,
                &E::retainAttachedHwHandler, true)
            .refused("the kernel always keeps a hardware handler already attached", true),
        setting("detect_prio", NotInMultipath, &S::detectPrio, &E::detectPrio, true),
        setting("detect_checker", NotInMultipath, &S::detectChecker, &E::detectChecker, true),
        setting("pg_init_retries", InAll, &S::pgInitRetries, &E::pgInitRetries, 0u)
            .range(0, 50)
            .ours(),
        setting("pg_init_delay_msecs", InAll, &S::pgInitDelayMsecs, &E::pgInitDelayMsecs,
                OffOrNumber::disabled())
            .range(0, 60000)
            .ours(),
        setting("queue_mode", InAll, &S::queueMode, &E::queueMode, QueueMode::Rq).ours(),
        setting("flush_on_last_del", InAll, &S::flushOnLastDel, &E::flushOnLastDel, false)
            .words(kFlushOnLastDelWords),
        setting("skip_kpartx", InAll, &S::skipKpartx, &E::skipKpartx, false),
        setting("recheck_wwid", NotInMultipath, &S::recheckWwid, &E::recheckWwid, false),
        setting("deferred_remove", InAll, &S::deferredRemove, &E::deferredRemove, true),
        setting("all_tg_pt", NotInMultipath, &S::allTgPt, &E::allTgPt, false)
            .refused("mpathd registers no persistent reservation keys", false),
        setting("max_sectors_kb", InAll, &S::maxSectorsKb, &E::maxSectorsKb,
                OffOrNumber::disabled())
            .range(1),
        setting("ghost_delay", InAll, &S::ghostDelay, &E::ghostDelay, OffOrNumber::disabled()),
        setting("marginal_path_err_sample_time", InAll, &S::marginalPathErrSampleTime,
                &E::marginalPathErrSampleTime, OffOrNumber::disabled())
            .range(120),
        setting("marginal_path_err_rate_threshold", InAll, &S::marginalPathErrRateThreshold,
                &E::marginalPathErrRateThreshold, OffOrNumber::disabled())
            .range(0, 1000),
        setting("marginal_path_err_recheck_gap_time", InAll, &S::marginalPathErrRecheckGapTime,
                &E::marginalPathErrRecheckGapTime, OffOrNumber::disabled()),
        setting("marginal_path_double_failed_time", InAll, &S::marginalPathDoubleFailedTime,
                &E::marginalPathDoubleFailedTime, OffOrNumber::disabled()),
        setting("san_path_err_threshold", InAll, &S::sanPathErrThreshold, &E::sanPathErrThreshold,
                OffOrNumber::disabled()),
        setting("san_path_err_forget_rate", InAll, &S::sanPathErrForgetRate,
                &E::sanPathErrForgetRate, OffOrNumber::disabled()),
        setting("san_path_err_recovery_time", InAll, &S::sanPathErrRecoveryTime,
                &E::sanPathErrRecoveryTime, OffOrNumber::disabled()),
        setting("delay_watch_checks", InAll, &S::delayWatchChecks, &E::delayWatchChecks,
                OffOrNumber::disabled()),
        setting("delay_wait_checks", InAll, &S::delayWaitChecks, &E::delayWaitChecks,
                OffOrNumber::disabled()));
    return table;
}

/// The keywords only defaults {} accepts.
inline const auto &globalKeywords() {
    using G = GlobalSettings;
    using E = EffectiveGlobals;
    static const auto table = std::make_tuple(
        global("verbosity", &G::verbosity, &E::verbosity, 2u).range(0, 6),
        global("find_multipaths", &G::findMultipaths, &E::findMultipaths, FindMultipaths::Strict),
        global("find_multipaths_timeout", &G::findMultipathsTimeout, &E::findMultipathsTimeout,
               -10),
        global("polling_interval", &G::pollingInterval, &E::pollingInterval, 5u).range(1),
        global("max_polling_interval", &G::maxPollingInterval, &E::maxPollingInterval, 20u)
            .range(1),
        global("checker_timeout", &G::checkerTimeout, &E::checkerTimeout, 0u),
        global("bindings_file", &G::bindingsFile, &E::bindingsFile, "/etc/multipath/bindings")
            .validate(absolutePath)
            .deprecatedNotice(),
        global("wwids_file", &G::wwidsFile, &E::wwidsFile, "/etc/multipath/wwids")
            .validate(absolutePath)
            .deprecatedNotice(),
        global("config_dir", &G::configDir, &E::configDir, "/etc/multipath/conf.d")
            .validate(absolutePath),
        global("queue_without_daemon", &G::queueWithoutDaemon, &E::queueWithoutDaemon, false),
        global("marginal_pathgroups", &G::marginalPathgroups, &E::marginalPathgroups,
               MarginalPathgroups::Off),
        global("max_fds", &G::maxFds, &E::maxFds, MaxFds::systemLimit()).range(1),
        global("dm_target", &G::dmTarget, &E::dmTarget, DmTarget::Lmpath).ours());
    return table;
}

/// Calls fn(keyword) for every per-map/per-path keyword, in table order.
template <typename Fn>
void forEachSetting(Fn &&fn) {
    std::apply([&](const auto &...k) { (fn(k), ...); }, settingKeywords());
}

/// Calls fn(keyword) for every daemon-wide keyword, in table order.
template <typename Fn>
void forEachGlobal(Fn &&fn) {
    std::apply([&](const auto &...k) { (fn(k), ...); }, globalKeywords());
}

/// What the parser does with a keyword that has no field.
enum class Disposition {
    NoEffect,    ///< accepted, nothing to do here: a note at most
    Deprecated,  ///< multipath-tools ignores it with a deprecation notice
    Unsupported, ///< multipath-tools acts on it, we do not: a warning says so
};

/// A multipath-tools keyword that sets no field here.
struct OtherKeyword {
    std::string_view name;
    unsigned sections; ///< where it is accepted; 0 for unsupported ones
    Disposition disposition;
};

/// multipath-tools keywords we read without a field. Deprecated and
/// no-effect ones are checked against their sections; unsupported ones
/// are named as such wherever they appear, so that an admin switching over
/// learns that the setting is not honoured.
inline constexpr auto kOtherKeywords = std::to_array<OtherKeyword>({
    {"disable_changed_wwids", InDefaults, Disposition::NoEffect},
    {"getuid_callout", InDefaults | InDevice | InOverrides, Disposition::Deprecated},
    {"multipath_dir", InDefaults, Disposition::Deprecated},
    {"pg_timeout", InDefaults | InDevice | InMultipath, Disposition::Deprecated},
    {"reassign_maps", 0, Disposition::Unsupported},
    {"log_checker_err", 0, Disposition::Unsupported},
    {"prkeys_file", 0, Disposition::Unsupported},
    {"reservation_key", 0, Disposition::Unsupported},
    {"uid_attrs", 0, Disposition::Unsupported},
    {"retrigger_tries", 0, Disposition::Unsupported},
    {"retrigger_delay", 0, Disposition::Unsupported},
    {"missing_uev_wait_timeout", 0, Disposition::Unsupported},
    {"strict_timing", 0, Disposition::Unsupported},
    {"remove_retries", 0, Disposition::Unsupported},
    {"detect_pgpolicy", 0, Disposition::Unsupported},
    {"detect_pgpolicy_use_tpg", 0, Disposition::Unsupported},
    {"enable_foreign", 0, Disposition::Unsupported},
    {"auto_resize", 0, Disposition::Unsupported},
    {"ignore_new_boot_devs", 0, Disposition::Unsupported},
    {"uxsock_timeout", 0, Disposition::Unsupported},
    {"vpd_vendor", 0, Disposition::Unsupported},
    {"partition_delimiter", 0, Disposition::Unsupported},
    {"force_sync", 0, Disposition::Unsupported},
    {"skip_kpartx_on_reload", 0, Disposition::Unsupported},
    {"unpriv_sgio", 0, Disposition::Unsupported},
    {"find_multipaths_retry", 0, Disposition::Unsupported},
    {"allow_usb_devices", 0, Disposition::Unsupported},
    {"hw_str_match", 0, Disposition::Unsupported},
    {"reload_readwrite", 0, Disposition::Unsupported},
    {"ignore_new_devs", 0, Disposition::Unsupported},
    {"udev_dir", 0, Disposition::Unsupported},
    {"prio_callout", 0, Disposition::Unsupported},
    {"mode", 0, Disposition::Unsupported},
    {"uid", 0, Disposition::Unsupported},
    {"gid", 0, Disposition::Unsupported},
    {"selector", 0, Disposition::Unsupported},
    {"wwids_dir", 0, Disposition::Unsupported},
    {"mpath_dir", 0, Disposition::Unsupported},
});

/// Another name multipath-tools accepts for a keyword of the table.
struct Synonym {
    std::string_view name;
    std::string_view keyword;
};

/// "checker" is path_checker in multipath-tools (never printed back).
inline constexpr auto kSynonyms = std::to_array<Synonym>({{"checker", "path_checker"}});

/// The OtherKeyword named \a name, or null.
const OtherKeyword *findOtherKeyword(std::string_view name);

/// The keyword \a name stands for: itself, or the one it is a synonym of.
std::string_view canonicalKeyword(std::string_view name);

} // namespace mpath::config::detail
