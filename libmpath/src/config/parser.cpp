#include "mpath/config/parser.h"

#include "config/keywords.h"
#include "mpath/dm/selectors.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <type_traits>

namespace mpath::config {

namespace {

// ---------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------

struct Token {
    std::string text;
    bool quoted{false};

    bool is(std::string_view s) const { return !quoted && text == s; }
};

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// Splits one line like multipath-tools does: words, double-quoted strings
// (with "" as an escaped quote), and '{' / '}' as words of their own.
// '#' and '!' outside quotes end the line.
// \return false when a quoted string is not terminated
bool tokenize(std::string_view line, std::vector<Token> &out) {
    out.clear();
    size_t i = 0;
    while (i < line.size()) {
        char c = line[i];
        if (isSpace(c)) {
            ++i;
            continue;
        }
        if (c == '#' || c == '!')
            break;
        if (c == '{' || c == '}') {
            out.push_back({std::string(1, c), false});
            ++i;
            continue;
        }
        if (c == '"') {
            std::string s;
            ++i;
            bool closed = false;
            while (i < line.size()) {
                if (line[i] == '"') {
                    if (i + 1 < line.size() && line[i + 1] == '"') {
                        s += '"';
                        i += 2;
                        continue;
                    }
                    closed = true;
                    ++i;
                    break;
                }
                s += line[i++];
            }
            if (!closed)
                return false;
            out.push_back({std::move(s), true});
            continue;
        }
        size_t start = i;
        while (i < line.size() && !isSpace(line[i]) && line[i] != '#' && line[i] != '!' &&
               line[i] != '{' && line[i] != '}' && line[i] != '"')
            ++i;
        out.push_back({std::string(line.substr(start, i - start)), false});
    }
    return true;
}

// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------

std::string invalid(std::string_view kw, std::string_view text, std::string_view accepted) {
    return "invalid value '" + std::string(text) + "' for " + std::string(kw) +
           "; accepted: " + std::string(accepted);
}

bool parseUnsigned(std::string_view s, unsigned &out) {
    if (s.empty() || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

bool parseInt(std::string_view s, int &out) {
    if (s.empty())
        return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

std::vector<std::string> splitWords(std::string_view s) {
    std::vector<std::string> words;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && isSpace(s[i]))
            ++i;
        size_t start = i;
        while (i < s.size() && !isSpace(s[i]))
            ++i;
        if (i > start)
            words.emplace_back(s.substr(start, i - start));
    }
    return words;
}

std::string joinNames(const std::vector<std::string_view> &names) {
    std::string s;
    for (auto n : names) {
        if (!s.empty())
            s += ", ";
        s += n;
    }
    return s;
}

template <typename E>
struct Choice {
    std::string_view word;
    E value;
};

template <typename E, size_t N>
std::string parseChoice(std::string_view kw, const std::string &text,
                        const std::array<Choice<E>, N> &choices, E &out) {
    for (const auto &c : choices) {
        if (text == c.word) {
            out = c.value;
            return {};
        }
    }
    std::vector<std::string_view> names;
    for (const auto &c : choices)
        names.push_back(c.word);
    return invalid(kw, text, joinNames(names));
}

struct Range {
    std::string_view keyword;
    unsigned min;
    unsigned max;
};

// Numeric limits per keyword; keywords not listed take any unsigned value.
constexpr std::array<Range, 12> kRanges{{
    {"verbosity", 0, 6},
    {"polling_interval", 1, UINT_MAX},
    {"max_polling_interval", 1, UINT_MAX},
    {"rr_min_io", 1, UINT_MAX},
    {"rr_min_io_rq", 1, UINT_MAX},
    {"pg_init_retries", 0, 50},
    {"pg_init_delay_msecs", 0, 60000},
    {"marginal_path_err_rate_threshold", 0, 1000},
    {"marginal_path_err_sample_time", 120, UINT_MAX},
    {"marginal_path_err_recheck_gap_time", 0, UINT_MAX},
    {"marginal_path_double_failed_time", 0, UINT_MAX},
    {"max_sectors_kb", 1, UINT_MAX},
}};

std::string numberRule(std::string_view kw, unsigned &min, unsigned &max) {
    min = 0;
    max = UINT_MAX;
    for (const auto &r : kRanges) {
        if (r.keyword == kw) {
            min = r.min;
            max = r.max;
        }
    }
    if (max == UINT_MAX)
        return min == 0 ? "a number" : "a number >= " + std::to_string(min);
    return "a number from " + std::to_string(min) + " to " + std::to_string(max);
}

std::string parseValue(std::string_view kw, const std::string &text, unsigned &out) {
    unsigned min, max;
    std::string rule = numberRule(kw, min, max);
    unsigned v;
    if (!parseUnsigned(text, v) || v < min || v > max)
        return invalid(kw, text, rule);
    out = v;
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, int &out) {
    if (!parseInt(text, out))
        return invalid(kw, text, "a whole number (negative values allowed)");
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, bool &out) {
    if (kw == "flush_on_last_del") {
        // multipath-tools 0.10 words: "always" flushes, the others do not
        // force it.
        static constexpr std::array<Choice<bool>, 5> choices{
            {{"yes", true}, {"no", false}, {"always", true}, {"never", false}, {"unused", false}}};
        return parseChoice(kw, text, choices, out);
    }
    static constexpr std::array<Choice<bool>, 2> choices{{{"yes", true}, {"no", false}}};
    return parseChoice(kw, text, choices, out);
}

std::string parseValue(std::string_view kw, const std::string &text, std::string &out) {
    static const std::vector<std::string_view> checkers{
        "tur", "directio", "readsector0", "none", "emc_clariion", "hp_sw", "rdac", "cciss_tur"};
    static const std::vector<std::string_view> prios{
        "const",  "alua",         "ontap",        "rdac", "emc",      "hp_sw", "hds",
        "random", "weightedpath", "path_latency", "ana",  "datacore", "iet",   "sysfs"};
    auto oneOf = [&](const std::vector<std::string_view> &names) -> std::string {
        if (std::find(names.begin(), names.end(), text) == names.end())
            return invalid(kw, text, joinNames(names));
        out = text;
        return {};
    };
    if (kw == "path_checker")
        return oneOf(checkers);
    if (kw == "prio")
        return oneOf(prios);
    if (kw == "bindings_file" || kw == "wwids_file" || kw == "config_dir") {
        if (text.empty() || text[0] != '/')
            return invalid(kw, text, "an absolute path");
        out = text;
        return {};
    }
    if (kw == "prio_args") {
        out = text;
        return {};
    }
    if (kw == "alias_prefix" && (text.empty() || text.find('/') != std::string::npos ||
                                 std::any_of(text.begin(), text.end(), isSpace)))
        return invalid(kw, text, "a non-empty word without '/'");
    if (text.empty() || std::any_of(text.begin(), text.end(), isSpace)) {
        if (kw == "getuid_callout" && !text.empty()) {
            out = text;
            return {};
        }
        return invalid(kw, text, "a non-empty word");
    }
    out = text;
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, GroupingPolicy &out) {
    static constexpr std::array<Choice<GroupingPolicy>, 6> choices{{
        {"failover", GroupingPolicy::Failover},
        {"multibus", GroupingPolicy::Multibus},
        {"group_by_serial", GroupingPolicy::GroupBySerial},
        {"group_by_prio", GroupingPolicy::GroupByPrio},
        {"group_by_node_name", GroupingPolicy::GroupByNodeName},
        {"group_by_tpg", GroupingPolicy::GroupByTpg},
    }};
    return parseChoice(kw, text, choices, out);
}

std::string parseValue(std::string_view kw, const std::string &text, FindMultipaths &out) {
    static constexpr std::array<Choice<FindMultipaths>, 7> choices{{
        {"strict", FindMultipaths::Strict},
        {"off", FindMultipaths::Off},
        {"on", FindMultipaths::On},
        {"greedy", FindMultipaths::Greedy},
        {"smart", FindMultipaths::Smart},
        {"yes", FindMultipaths::On},
        {"no", FindMultipaths::Off},
    }};
    return parseChoice(kw, text, choices, out);
}

std::string parseValue(std::string_view kw, const std::string &text, RrWeight &out) {
    static constexpr std::array<Choice<RrWeight>, 2> choices{
        {{"uniform", RrWeight::Uniform}, {"priorities", RrWeight::Priorities}}};
    return parseChoice(kw, text, choices, out);
}

std::string parseValue(std::string_view kw, const std::string &text, QueueMode &out) {
    static constexpr std::array<Choice<QueueMode>, 3> choices{
        {{"bio", QueueMode::Bio}, {"rq", QueueMode::Rq}, {"mq", QueueMode::Mq}}};
    return parseChoice(kw, text, choices, out);
}

std::string parseValue(std::string_view kw, const std::string &text, MarginalPathgroups &out) {
    static constexpr std::array<Choice<MarginalPathgroups>, 5> choices{{
        {"off", MarginalPathgroups::Off},
        {"on", MarginalPathgroups::On},
        {"fpin", MarginalPathgroups::Fpin},
        {"no", MarginalPathgroups::Off},
        {"yes", MarginalPathgroups::On},
    }};
    return parseChoice(kw, text, choices, out);
}

std::string parseValue(std::string_view kw, const std::string &text, DmTarget &out) {
    static constexpr std::array<Choice<DmTarget>, 2> choices{
        {{"lmpath", DmTarget::Lmpath}, {"multipath", DmTarget::Multipath}}};
    return parseChoice(kw, text, choices, out);
}

std::string parseValue(std::string_view kw, const std::string &text, Failback &out) {
    if (text == "immediate")
        out = Failback::immediate();
    else if (text == "manual")
        out = Failback::manual();
    else if (text == "followover")
        out = Failback::followover();
    else if (unsigned n; parseUnsigned(text, n) && n > 0)
        out = Failback::after(n);
    else
        return invalid(kw, text, "immediate, manual, followover, or a number of seconds > 0");
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, NoPathRetry &out) {
    if (text == "fail")
        out = NoPathRetry::fail();
    else if (text == "queue")
        out = NoPathRetry::queue();
    else if (unsigned n; parseUnsigned(text, n))
        out = n == 0 ? NoPathRetry::fail() : NoPathRetry::times(n);
    else
        return invalid(kw, text, "fail, queue, or a number of retries");
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, OffOrNumber &out) {
    if (text == "off" || text == "no") {
        out = OffOrNumber::disabled();
        return {};
    }
    unsigned min, max;
    std::string rule = numberRule(kw, min, max);
    unsigned n;
    if (!parseUnsigned(text, n) || n < min || n > max)
        return invalid(kw, text, "off, no, or " + rule);
    out = OffOrNumber::number(n);
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, DevLossTmo &out) {
    if (text == "infinity") {
        out = DevLossTmo::infinite();
        return {};
    }
    unsigned n;
    if (!parseUnsigned(text, n))
        return invalid(kw, text, "infinity, or a number of seconds");
    out = DevLossTmo::after(n);
    return {};
}

// "<count> word..." as features and hardware_handler write it.
std::string parseCounted(std::string_view kw, const std::string &text,
                         std::vector<std::string> &words) {
    words = splitWords(text);
    unsigned count;
    if (words.empty() || !parseUnsigned(words[0], count))
        return invalid(kw, text, "a word count followed by that many words, e.g. \"0\"");
    words.erase(words.begin());
    if (count != words.size())
        return "invalid value '" + text + "' for " + std::string(kw) + ": it announces " +
               std::to_string(count) + " word(s) but has " + std::to_string(words.size()) +
               "; accepted: a word count followed by that many words";
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text,
                       std::vector<std::string> &out) {
    std::vector<std::string> words;
    std::string err = parseCounted(kw, text, words);
    if (!err.empty())
        return err;
    out = std::move(words);
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, HardwareHandler &out) {
    static const std::vector<std::string_view> handlers{"alua", "rdac", "emc", "hp_sw"};
    std::vector<std::string> words = splitWords(text);
    if (!words.empty() && !words[0].empty() && words[0][0] >= '0' && words[0][0] <= '9') {
        std::string err = parseCounted(kw, text, words);
        if (!err.empty())
            return err;
    }
    if (words.empty() || (words.size() == 1 && words[0] == "none")) {
        out = HardwareHandler{};
        return {};
    }
    if (std::find(handlers.begin(), handlers.end(), words[0]) == handlers.end())
        return invalid(kw, text,
                       "0 (none), or a handler: \"1 alua\", \"1 rdac\", \"1 emc\", "
                       "\"1 hp_sw\"");
    out.name = words[0];
    out.args.assign(words.begin() + 1, words.end());
    return {};
}

std::string parseValue(std::string_view kw, const std::string &text, PathSelector &out) {
    std::vector<std::string> words = splitWords(text);
    std::string accepted =
        "a selector (" + dm::selectorNames() + ") and its argument count, e.g. \"service-time 0\"";
    const dm::SelectorFacts *facts = words.empty() ? nullptr : dm::findSelector(words[0]);
    if (!facts)
        return invalid(kw, text, accepted);
    PathSelector ps;
    ps.name = words[0];
    if (words.size() > 1) {
        unsigned count;
        if (!parseUnsigned(words[1], count) || count != words.size() - 2)
            return invalid(kw, text, accepted);
        ps.args.assign(words.begin() + 2, words.end());
    }
    out = std::move(ps);
    return {};
}

// Keywords whose value is the rest of the line.
bool takesRestOfLine(std::string_view kw) {
    return kw == "features" || kw == "path_selector" || kw == "prio_args" ||
           kw == "hardware_handler" || kw == "getuid_callout";
}

// multipath-tools keywords we read without acting on them: a warning that
// says so, rather than "unknown", helps an admin switching over.
bool isUnsupportedMultipathToolsKeyword(std::string_view kw) {
    static constexpr std::array<std::string_view, 46> names{
        "reassign_maps",
        "multipath_dir",
        "max_fds",
        "log_checker_err",
        "prkeys_file",
        "reservation_key",
        "uid_attrs",
        "retrigger_tries",
        "retrigger_delay",
        "missing_uev_wait_timeout",
        "strict_timing",
        "delay_watch_checks",
        "delay_wait_checks",
        "san_path_err_threshold",
        "san_path_err_forget_rate",
        "san_path_err_recovery_time",
        "disable_changed_wwids",
        "remove_retries",
        "detect_pgpolicy",
        "detect_pgpolicy_use_tpg",
        "enable_foreign",
        "recheck_wwid",
        "auto_resize",
        "ignore_new_boot_devs",
        "uxsock_timeout",
        "vpd_vendor",
        "partition_delimiter",
        "eh_deadline",
        "force_sync",
        "skip_kpartx_on_reload",
        "unpriv_sgio",
        "find_multipaths_retry",
        "allow_usb_devices",
        "hw_str_match",
        "reload_readwrite",
        "ignore_new_devs",
        "udev_dir",
        "prio_callout",
        "pg_timeout",
        "mode",
        "uid",
        "gid",
        "checker",
        "selector",
        "wwids_dir",
        "mpath_dir",
    };
    return std::find(names.begin(), names.end(), kw) != names.end();
}

// ---------------------------------------------------------------------------
// The parser
// ---------------------------------------------------------------------------

enum class Ctx {
    Top,
    Defaults,
    Blacklist,
    BlacklistExceptions,
    BlacklistDevice,
    Devices,
    Device,
    Multipaths,
    Multipath,
    Overrides,
    Skip, ///< an unknown section: everything up to its '}' is ignored
};

const char *sectionName(Ctx c) {
    switch (c) {
    case Ctx::Top:
        return "top level";
    case Ctx::Defaults:
        return "defaults";
    case Ctx::Blacklist:
        return "blacklist";
    case Ctx::BlacklistExceptions:
        return "blacklist_exceptions";
    case Ctx::BlacklistDevice:
        return "device";
    case Ctx::Devices:
        return "devices";
    case Ctx::Device:
        return "device";
    case Ctx::Multipaths:
        return "multipaths";
    case Ctx::Multipath:
        return "multipath";
    case Ctx::Overrides:
        return "overrides";
    case Ctx::Skip:
        return "unknown";
    }
    return "unknown";
}

class Parser {
public:
    Parser(const std::string &file, Config &config, std::vector<Diagnostic> &diags, bool ownFile)
        : file_(file), config_(config), diags_(diags), ownFile_(ownFile) {}

    void run(std::string_view text);

private:
    struct Frame {
        Ctx ctx;
        unsigned line;
        std::string name;
    };

    void warn(unsigned line, std::string msg) {
        diags_.push_back({file_, line, Diagnostic::Severity::Warning, std::move(msg)});
    }
    void error(unsigned line, std::string msg) {
        diags_.push_back({file_, line, Diagnostic::Severity::Error, std::move(msg)});
    }

    Ctx ctx() const { return stack_.empty() ? Ctx::Top : stack_.back().ctx; }
    void line(unsigned no, std::vector<Token> &tokens);
    size_t statement(unsigned no, const std::vector<Token> &tokens, size_t i);
    void open(Ctx c, unsigned no, const std::string &name);
    /// Finish the innermost section: store the entry it built, if valid.
    void close();
    bool childSection(std::string_view kw, Ctx &child) const;
    void keyword(unsigned no, const std::vector<Token> &tokens);
    bool setting(unsigned no, const std::string &kw, const std::vector<Token> &tokens,
                 Settings &target, unsigned sectionBit);
    bool global(unsigned no, const std::string &kw, const std::vector<Token> &tokens);
    std::optional<std::string> value(unsigned no, const std::string &kw,
                                     const std::vector<Token> &tokens, bool restOfLine);
    void regexInto(unsigned no, const std::string &kw, const std::string &text, Regex &out,
                   bool &ok);
    Blacklist &currentBlacklist();

    const std::string &file_;
    Config &config_;
    std::vector<Diagnostic> &diags_;
    bool ownFile_;

    std::vector<Frame> stack_;
    // A section keyword whose '{' is expected on the next line.
    std::optional<Frame> pendingOpen_;

    DeviceEntry device_;
    bool deviceOk_{true};
    MultipathEntry multipath_;
    bool multipathOk_{true};
    BlacklistDevice blacklistDevice_;
    bool blacklistDeviceOk_{true};
};

void Parser::run(std::string_view text) {
    std::vector<Token> tokens;
    unsigned no = 0;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view l = text.substr(pos, end - pos);
        ++no;
        pos = end + 1;
        if (!tokenize(l, tokens)) {
            error(no, "unterminated quoted string; line ignored");
            continue;
        }
        if (!tokens.empty())
            line(no, tokens);
        if (end == text.size())
            break;
    }
    if (pendingOpen_) {
        error(pendingOpen_->line, "expected '{' after '" + pendingOpen_->name + "'");
        pendingOpen_.reset();
    }
    while (!stack_.empty()) {
        error(stack_.back().line, "section '" + stack_.back().name + "' is not closed");
        close();
    }
}

bool Parser::childSection(std::string_view kw, Ctx &child) const {
    switch (ctx()) {
    case Ctx::Top:
        if (kw == "defaults")
            child = Ctx::Defaults;
        else if (kw == "blacklist")
            child = Ctx::Blacklist;
        else if (kw == "blacklist_exceptions")
            child = Ctx::BlacklistExceptions;
        else if (kw == "devices")
            child = Ctx::Devices;
        else if (kw == "multipaths")
            child = Ctx::Multipaths;
        else if (kw == "overrides")
            child = Ctx::Overrides;
        else
            return false;
        return true;
    case Ctx::Blacklist:
    case Ctx::BlacklistExceptions:
        if (kw != "device")
            return false;
        child = Ctx::BlacklistDevice;
        return true;
    case Ctx::Devices:
        if (kw != "device")
            return false;
        child = Ctx::Device;
        return true;
    case Ctx::Multipaths:
        if (kw != "multipath")
            return false;
        child = Ctx::Multipath;
        return true;
    default:
        return false;
    }
}

void Parser::line(unsigned no, std::vector<Token> &tokens) {
    // A line may hold several statements: "defaults { polling_interval 5 }".
    size_t i = 0;
    while (i < tokens.size())
        i = statement(no, tokens, i);
}

size_t Parser::statement(unsigned no, const std::vector<Token> &tokens, size_t i) {
    const size_t n = tokens.size();
    if (pendingOpen_) {
        Frame f = *pendingOpen_;
        pendingOpen_.reset();
        if (tokens[i].is("{")) {
            open(f.ctx, f.line, f.name);
            return i + 1;
        }
        error(f.line, "expected '{' after '" + f.name + "'");
        // Go on with this line on its own.
    }

    if (ctx() == Ctx::Skip) {
        // Inside an ignored section only the braces count.
        if (tokens[i].is("{"))
            stack_.push_back({Ctx::Skip, no, "{"});
        else if (tokens[i].is("}"))
            close();
        return i + 1;
    }
    if (tokens[i].is("}")) {
        if (stack_.empty())
            error(no, "unmatched '}'");
        else
            close();
        return i + 1;
    }
    if (tokens[i].is("{")) {
        error(no, "unexpected '{'");
        stack_.push_back({Ctx::Skip, no, "{"});
        return i + 1;
    }

    const std::string &kw = tokens[i].text;
    Ctx child;
    if (!tokens[i].quoted && childSection(kw, child)) {
        if (i + 1 == n) {
            pendingOpen_ = Frame{child, no, kw};
            return n;
        }
        if (!tokens[i + 1].is("{")) {
            error(no, "expected '{' after '" + kw + "'");
            return n;
        }
        open(child, no, kw);
        return i + 2;
    }

    // The statement runs up to a closing brace; an opening brace makes it
    // a section we do not know.
    size_t end = i + 1;
    while (end < n && !tokens[end].is("}") && !tokens[end].is("{"))
        ++end;
    if (end < n && tokens[end].is("{")) {
        if (kw == "protocol" && (ctx() == Ctx::Overrides || ctx() == Ctx::Device))
            warn(no, "section 'protocol' is not supported; ignored");
        else
            warn(no, "unknown section '" + kw + "' in " + sectionName(ctx()) + "; ignored");
        stack_.push_back({Ctx::Skip, no, kw});
        return end + 1;
    }
    keyword(no, std::vector<Token>(tokens.begin() + static_cast<std::ptrdiff_t>(i),
                                   tokens.begin() + static_cast<std::ptrdiff_t>(end)));
    return end;
}

void Parser::open(Ctx c, unsigned no, const std::string &name) {
    stack_.push_back({c, no, name});
    SourceLocation where{file_, no};
    switch (c) {
    case Ctx::Device:
        device_ = DeviceEntry{};
        device_.where = where;
        deviceOk_ = true;
        break;
    case Ctx::Multipath:
        multipath_ = MultipathEntry{};
        multipath_.where = where;
        multipathOk_ = true;
        break;
    case Ctx::BlacklistDevice:
        blacklistDevice_ = BlacklistDevice{};
        blacklistDevice_.where = where;
        blacklistDeviceOk_ = true;
        break;
    default:
        break;
    }
}

Blacklist &Parser::currentBlacklist() {
    // The parent of a blacklist device {} entry.
    Ctx parent = stack_.size() >= 2 ? stack_[stack_.size() - 2].ctx : Ctx::Blacklist;
    return parent == Ctx::BlacklistExceptions ? config_.blacklistExceptions : config_.blacklist;
}

void Parser::close() {
    Frame f = stack_.back();
    switch (f.ctx) {
    case Ctx::Device:
        if (!deviceOk_)
            error(f.line, "device entry with an invalid vendor, product or revision; ignored");
        else if (device_.vendor.empty() || device_.product.empty())
            error(f.line, "device entry without vendor and product; ignored");
        else
            config_.devices.push_back(device_);
        break;
    case Ctx::Multipath:
        if (multipath_.wwid.empty())
            error(f.line, "multipath entry without wwid; ignored");
        else if (multipathOk_)
            config_.multipaths.push_back(multipath_);
        break;
    case Ctx::BlacklistDevice:
        if (!blacklistDeviceOk_)
            error(f.line, "blacklist device entry with an invalid vendor or product; ignored");
        else if (blacklistDevice_.vendor.empty() && blacklistDevice_.product.empty())
            error(f.line, "blacklist device entry without vendor or product; ignored");
        else
            currentBlacklist().devices.push_back(blacklistDevice_);
        break;
    default:
        break;
    }
    stack_.pop_back();
}

std::optional<std::string> Parser::value(unsigned no, const std::string &kw,
                                         const std::vector<Token> &tokens, bool restOfLine) {
    if (tokens.size() < 2) {
        error(no, "missing value for " + kw);
        return std::nullopt;
    }
    if (!restOfLine) {
        if (tokens.size() > 2)
            warn(no, "extra text after the value of " + kw + " ignored");
        return tokens[1].text;
    }
    std::string v;
    for (size_t i = 1; i < tokens.size(); ++i) {
        if (i > 1)
            v += ' ';
        v += tokens[i].text;
    }
    return v;
}

bool Parser::setting(unsigned no, const std::string &kw, const std::vector<Token> &tokens,
                     Settings &target, unsigned sectionBit) {
    bool found = false;
    detail::forEachSetting([&](const char *name, unsigned sections, auto field, auto) {
        if (found || kw != name)
            return;
        found = true;
        if (!(sections & sectionBit)) {
            warn(no, "keyword '" + kw + "' is not valid in section " + sectionName(ctx()) +
                         "; ignored");
            return;
        }
        auto text = value(no, kw, tokens, takesRestOfLine(kw));
        if (!text)
            return;
        using T = typename std::remove_reference_t<decltype(target.*field)>::value_type;
        T v{};
        std::string err = parseValue(kw, *text, v);
        if (!err.empty()) {
            error(no, err);
            return;
        }
        target.*field = std::move(v);
    });
    return found;
}

bool Parser::global(unsigned no, const std::string &kw, const std::vector<Token> &tokens) {
    if (kw == "dm_target" && !ownFile_)
        return false; // only our own file knows it; an unknown keyword elsewhere
    bool found = false;
    detail::forEachGlobal([&](const char *name, auto field, auto) {
        if (found || kw != name)
            return;
        found = true;
        auto text = value(no, kw, tokens, false);
        if (!text)
            return;
        using T = typename std::remove_reference_t<decltype(config_.globals.*field)>::value_type;
        T v{};
        std::string err = parseValue(kw, *text, v);
        if (!err.empty()) {
            error(no, err);
            return;
        }
        config_.globals.*field = std::move(v);
    });
    return found;
}

void Parser::regexInto(unsigned no, const std::string &kw, const std::string &text, Regex &out,
                       bool &ok) {
    if (text.empty()) {
        error(no, "invalid value '' for " + kw + "; accepted: a non-empty regular expression");
        ok = false;
        return;
    }
    auto re = Regex::compile(text);
    if (!re) {
        error(no, "invalid value '" + text + "' for " + kw +
                      "; accepted: a POSIX extended regular expression (" + re.error().message +
                      ")");
        ok = false;
        return;
    }
    out = std::move(*re);
}

void Parser::keyword(unsigned no, const std::vector<Token> &tokens) {
    const std::string &kw = tokens[0].text;
    Ctx c = ctx();

    auto regexValue = [&](Regex &out, bool &ok) {
        auto text = value(no, kw, tokens, false);
        if (!text) {
            ok = false;
            return;
        }
        regexInto(no, kw, *text, out, ok);
    };
    auto pattern = [&](std::vector<BlacklistPattern> &list) {
        auto text = value(no, kw, tokens, false);
        if (!text)
            return;
        bool ok = true;
        BlacklistPattern p;
        p.where = {file_, no};
        regexInto(no, kw, *text, p.regex, ok);
        if (ok)
            list.push_back(std::move(p));
    };

    switch (c) {
    case Ctx::Defaults:
        if (setting(no, kw, tokens, config_.defaults, detail::InDefaults) || global(no, kw, tokens))
            return;
        break;
    case Ctx::Overrides:
        if (setting(no, kw, tokens, config_.overrides, detail::InOverrides))
            return;
        break;
    case Ctx::Device:
        if (kw == "vendor")
            return regexValue(device_.vendor, deviceOk_);
        if (kw == "product")
            return regexValue(device_.product, deviceOk_);
        if (kw == "revision")
            return regexValue(device_.revision, deviceOk_);
        if (kw == "product_blacklist")
            return regexValue(device_.productBlacklist, deviceOk_);
        if (setting(no, kw, tokens, device_.settings, detail::InDevice))
            return;
        break;
    case Ctx::Multipath:
        if (kw == "wwid" || kw == "alias") {
            auto text = value(no, kw, tokens, false);
            if (!text) {
                multipathOk_ = false;
                return;
            }
            if (text->empty() || text->find('/') != std::string::npos ||
                std::any_of(text->begin(), text->end(), isSpace)) {
                error(no, invalid(kw, *text, "a non-empty word without '/'"));
                multipathOk_ = false;
                return;
            }
            (kw == "wwid" ? multipath_.wwid : multipath_.alias) = *text;
            return;
        }
        if (setting(no, kw, tokens, multipath_.settings, detail::InMultipath))
            return;
        break;
    case Ctx::Blacklist:
    case Ctx::BlacklistExceptions: {
        Blacklist &bl = c == Ctx::Blacklist ? config_.blacklist : config_.blacklistExceptions;
        if (kw == "devnode")
            return pattern(bl.devnodes);
        if (kw == "wwid")
            return pattern(bl.wwids);
        if (kw == "property")
            return pattern(bl.properties);
        if (kw == "protocol")
            return pattern(bl.protocols);
        break;
    }
    case Ctx::BlacklistDevice:
        if (kw == "vendor")
            return regexValue(blacklistDevice_.vendor, blacklistDeviceOk_);
        if (kw == "product")
            return regexValue(blacklistDevice_.product, blacklistDeviceOk_);
        break;
    case Ctx::Top:
        warn(no, "keyword '" + kw + "' outside any section; ignored");
        return;
    default:
        break;
    }

    bool known = false;
    bool global = false;
    detail::forEachSetting([&](const char *name, unsigned, auto, auto) { known |= kw == name; });
    detail::forEachGlobal([&](const char *name, auto, auto) { global |= kw == name; });
    if (kw == "dm_target" && !ownFile_)
        warn(no, "unknown keyword 'dm_target' (only mpathd.conf accepts it); ignored");
    else if (global)
        warn(no, "keyword '" + kw + "' is only valid in section defaults; ignored");
    else if (known)
        warn(no, "keyword '" + kw + "' is not valid in section " + sectionName(c) + "; ignored");
    else if (isUnsupportedMultipathToolsKeyword(kw))
        warn(no, "keyword '" + kw + "' is not supported; ignored");
    else
        warn(no, "unknown keyword '" + kw + "' in section " + sectionName(c) + "; ignored");
}

} // namespace

void parse(std::string_view text, const std::string &fileName, Config &config,
           std::vector<Diagnostic> &diagnostics, bool ownFile) {
    config.files.push_back(fileName);
    Parser(fileName, config, diagnostics, ownFile).run(text);
}

ConfigResult parseString(std::string_view text, const std::string &fileName, bool ownFile) {
    ConfigResult r;
    r.config.ownFile = ownFile;
    parse(text, fileName, r.config, r.diagnostics, ownFile);
    checkConsistency(r.config, r.diagnostics);
    return r;
}

void checkConsistency(const Config &config, std::vector<Diagnostic> &diagnostics) {
    // Two maps cannot share a name. The first entry keeps it, as the
    // resolver would give it to both otherwise.
    for (size_t i = 0; i < config.multipaths.size(); ++i) {
        const MultipathEntry &later = config.multipaths[i];
        if (later.alias.empty())
            continue;
        for (size_t j = 0; j < i; ++j) {
            const MultipathEntry &first = config.multipaths[j];
            if (first.alias == later.alias && first.wwid != later.wwid) {
                diagnostics.push_back(
                    {later.where.file, later.where.line, Diagnostic::Severity::Error,
                     "alias '" + later.alias + "' is already used for wwid " + first.wwid + " at " +
                         first.where.file + ":" + std::to_string(first.where.line)});
                break;
            }
        }
    }
}

} // namespace mpath::config
