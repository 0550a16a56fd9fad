#include "mpath/config/parser.h"

#include "config/keyword_table.h"
#include "config/tokenizer.h"
#include "config/value_text.h"

#include <algorithm>
#include <optional>
#include <type_traits>

namespace mpath::config {

namespace {

using detail::Token;

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

inline constexpr std::array<EnumName<Ctx>, 11> kCtxNames{{
    {Ctx::Top, "top level"},
    {Ctx::Defaults, "defaults"},
    {Ctx::Blacklist, "blacklist"},
    {Ctx::BlacklistExceptions, "blacklist_exceptions"},
    {Ctx::BlacklistDevice, "device"},
    {Ctx::Devices, "devices"},
    {Ctx::Device, "device"},
    {Ctx::Multipaths, "multipaths"},
    {Ctx::Multipath, "multipath"},
    {Ctx::Overrides, "overrides"},
    {Ctx::Skip, "unknown"},
}};

std::string_view sectionName(Ctx c) {
    return nameOf(kCtxNames, c);
}

/// The section bit of the keyword table for a section that holds settings.
unsigned sectionBit(Ctx c) {
    switch (c) {
    case Ctx::Defaults:
        return detail::InDefaults;
    case Ctx::Device:
        return detail::InDevice;
    case Ctx::Multipath:
        return detail::InMultipath;
    case Ctx::Overrides:
        return detail::InOverrides;
    default:
        return 0;
    }
}

bool hasWord(const std::vector<std::string> &words, std::string_view w) {
    return std::find(words.begin(), words.end(), w) != words.end();
}

/// Reads multipath.conf syntax into a Config, line by line, reporting
/// what it cannot use as diagnostics and going on.
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
    // Only for what makes multipath-tools refuse the whole file.
    void error(unsigned line, std::string msg) {
        diags_.push_back({file_, line, Diagnostic::Severity::Error, std::move(msg)});
    }
    void note(unsigned line, std::string msg) {
        diags_.push_back({file_, line, Diagnostic::Severity::Info, std::move(msg)});
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
                 Settings &target);
    bool global(unsigned no, const std::string &kw, const std::vector<Token> &tokens);
    bool other(unsigned no, const std::string &kw);
    void unknown(unsigned no, const std::string &kw);
    std::optional<std::string> value(unsigned no, const std::string &kw,
                                     const std::vector<Token> &tokens, bool restOfLine);
    /// The value of keyword \a k on line \a no, parsed by its rule; nullopt
    /// (and a warning when it is invalid) when there is none to apply.
    template <typename K>
    std::optional<typename K::Value> parsedValue(unsigned no, const std::string &kw, const K &k,
                                                 const std::vector<Token> &tokens,
                                                 bool restOfLine) {
        auto text = value(no, kw, tokens, restOfLine);
        if (!text)
            return std::nullopt;
        typename K::Value v{};
        if (std::string err = detail::parseValue(kw, *text, k.rule, v); !err.empty()) {
            warn(no, err);
            return std::nullopt;
        }
        return v;
    }
    /// A keyword mpathd reads but does not act on: unless \a v asks for what
    /// mpathd does anyway, a warning naming it and why. \return true when
    /// the value is refused (the caller keeps the previous one).
    template <typename K>
    bool refused(unsigned no, const std::string &kw, const K &k, const typename K::Value &v) {
        if (detail::inForce(k, v))
            return false;
        warn(no, "keyword '" + kw + "' is refused: " + std::string(k.refusedWhy) + "; ignored");
        return true;
    }
    bool regexInto(unsigned no, const std::string &kw, const std::string &text, Regex &out);
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
        if (!detail::tokenize(l, tokens)) {
            warn(no, "unterminated quoted string; line ignored");
            continue;
        }
        if (!tokens.empty())
            line(no, tokens);
        if (end == text.size())
            break;
    }
    if (pendingOpen_) {
        warn(pendingOpen_->line, "expected '{' after '" + pendingOpen_->name + "'");
        pendingOpen_.reset();
    }
    // multipath-tools applies what an unclosed section holds; so do we.
    while (!stack_.empty()) {
        warn(stack_.back().line, "section '" + stack_.back().name + "' is not closed");
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
        warn(f.line, "expected '{' after '" + f.name + "'");
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
            warn(no, "unmatched '}'");
        else
            close();
        return i + 1;
    }
    if (tokens[i].is("{")) {
        warn(no, "unexpected '{'");
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
            warn(no, "expected '{' after '" + kw + "'");
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
            warn(no, "unknown section '" + kw + "' in " + std::string(sectionName(ctx())) +
                         "; ignored");
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
        // multipath-tools drops such entries too (factorize_hwtable).
        if (!deviceOk_)
            warn(f.line, "device entry with an invalid vendor, product or revision; ignored");
        else if (device_.vendor.empty() || device_.product.empty())
            warn(f.line, "device entry missing vendor or product parameter; ignored");
        else
            config_.devices.push_back(device_);
        break;
    case Ctx::Multipath:
        if (multipath_.wwid.empty())
            warn(f.line, "multipath entry without wwid; ignored");
        else if (multipathOk_)
            config_.multipaths.push_back(multipath_);
        break;
    case Ctx::BlacklistDevice:
        if (!blacklistDeviceOk_)
            break; // the pattern's error said it
        if (blacklistDevice_.vendor.empty() && blacklistDevice_.product.empty())
            warn(f.line, "blacklist device entry without vendor or product; ignored");
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
        warn(no, "missing value for " + kw);
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
                     Settings &target) {
    const std::string_view name = detail::canonicalKeyword(kw);
    bool found = false;
    detail::forEachSetting([&](const auto &k) {
        if (found || k.name != name)
            return;
        found = true;
        if (!(k.sections & sectionBit(ctx()))) {
            warn(no, "keyword '" + kw + "' is not valid in section " +
                         std::string(sectionName(ctx())) + "; ignored");
            return;
        }
        auto v = parsedValue(no, kw, k, tokens, k.rule.syntax == detail::Syntax::RestOfLine);
        if (!v)
            return;
        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(*v)>, std::vector<std::string>>) {
            if (k.name == "features" && hasWord(*v, "queue_if_no_path"))
                warn(no, "option 'features \"1 queue_if_no_path\"' is deprecated, please use "
                         "'no_path_retry queue' instead");
        }
        if (refused(no, kw, k, *v))
            return;
        target.*k.field = std::move(*v);
        target.where[std::string(k.name)] = {file_, no};
    });
    return found;
}

bool Parser::global(unsigned no, const std::string &kw, const std::vector<Token> &tokens) {
    if (kw == "dm_target" && !ownFile_)
        return false; // only our own file knows it; an unknown keyword elsewhere
    bool found = false;
    detail::forEachGlobal([&](const auto &k) {
        if (found || k.name != kw)
            return;
        found = true;
        auto v = parsedValue(no, kw, k, tokens, false);
        if (!v)
            return;
        if (refused(no, kw, k, *v))
            return;
        config_.globals.*k.field = std::move(*v);
        config_.globals.where[std::string(k.name)] = {file_, no};
        if (k.deprecated)
            warn(no, "\"" + kw + "\" is deprecated and will be disabled in a future release");
    });
    return found;
}

// Keywords of the table that set no field. \return false when \a kw is not
// one of them or its section does not take it.
bool Parser::other(unsigned no, const std::string &kw) {
    const detail::OtherKeyword *k = detail::findOtherKeyword(kw);
    if (!k)
        return false;
    if (k->disposition != detail::Disposition::Unsupported && !(k->sections & sectionBit(ctx())))
        return false;
    switch (k->disposition) {
    case detail::Disposition::NoEffect:
        note(no, "keyword '" + kw + "' is accepted; it has no effect here");
        break;
    case detail::Disposition::Deprecated:
        warn(no, "ignoring deprecated option \"" + kw + "\"");
        break;
    case detail::Disposition::Unsupported:
        warn(no, "keyword '" + kw + "' is not supported; ignored");
        break;
    }
    return true;
}

bool Parser::regexInto(unsigned no, const std::string &kw, const std::string &text, Regex &out) {
    auto re = Regex::compile(text);
    if (text.empty() || !re) {
        std::string why = text.empty()
                              ? "a non-empty regular expression"
                              : "a POSIX extended regular expression (" + re.error().message + ")";
        std::string msg = "invalid value '" + text + "' for " + kw + "; accepted: " + why;
        // multipath-tools refuses a file whose blacklist it cannot compile;
        // a device entry with a bad pattern it keeps, matching nothing.
        const bool blacklist = ctx() == Ctx::Blacklist || ctx() == Ctx::BlacklistExceptions ||
                               ctx() == Ctx::BlacklistDevice;
        if (blacklist)
            error(no, msg);
        else
            warn(no, msg);
        return false;
    }
    out = std::move(*re);
    return true;
}

void Parser::keyword(unsigned no, const std::vector<Token> &tokens) {
    const std::string &kw = tokens[0].text;
    Ctx c = ctx();

    auto regexValue = [&](Regex &out, bool &ok, KeywordLines *lines) {
        auto text = value(no, kw, tokens, false);
        if (!text || !regexInto(no, kw, *text, out)) {
            ok = false;
            return;
        }
        if (lines)
            (*lines)[kw] = {file_, no};
    };
    auto pattern = [&](std::vector<BlacklistPattern> &list) {
        auto text = value(no, kw, tokens, false);
        if (!text)
            return;
        BlacklistPattern p;
        p.where = {file_, no};
        if (regexInto(no, kw, *text, p.regex))
            list.push_back(std::move(p));
    };

    switch (c) {
    case Ctx::Defaults:
        if (setting(no, kw, tokens, config_.defaults) || global(no, kw, tokens) || other(no, kw))
            return;
        break;
    case Ctx::Overrides:
        if (setting(no, kw, tokens, config_.overrides) || other(no, kw))
            return;
        break;
    case Ctx::Device:
        if (kw == "vendor")
            return regexValue(device_.vendor, deviceOk_, &device_.settings.where);
        if (kw == "product")
            return regexValue(device_.product, deviceOk_, &device_.settings.where);
        if (kw == "revision")
            return regexValue(device_.revision, deviceOk_, &device_.settings.where);
        if (kw == "product_blacklist")
            return regexValue(device_.productBlacklist, deviceOk_, &device_.settings.where);
        if (setting(no, kw, tokens, device_.settings) || other(no, kw))
            return;
        break;
    case Ctx::Multipath:
        if (kw == "wwid" || kw == "alias") {
            auto text = value(no, kw, tokens, false);
            if (!text) {
                multipathOk_ = false;
                return;
            }
            std::string accepted = detail::wordWithoutSlash(*text);
            if (!accepted.empty()) {
                warn(no, detail::invalidValue(kw, *text, accepted));
                multipathOk_ = false;
                return;
            }
            (kw == "wwid" ? multipath_.wwid : multipath_.alias) = *text;
            multipath_.settings.where[kw] = {file_, no};
            return;
        }
        if (setting(no, kw, tokens, multipath_.settings) || other(no, kw))
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
            return regexValue(blacklistDevice_.vendor, blacklistDeviceOk_, nullptr);
        if (kw == "product")
            return regexValue(blacklistDevice_.product, blacklistDeviceOk_, nullptr);
        break;
    case Ctx::Top:
        warn(no, "keyword '" + kw + "' outside any section; ignored");
        return;
    default:
        break;
    }
    unknown(no, kw);
}

// Says why \a kw, which no rule of its section took, is ignored.
void Parser::unknown(unsigned no, const std::string &kw) {
    const std::string_view name = detail::canonicalKeyword(kw);
    bool known = false;
    bool global = false;
    detail::forEachSetting([&](const auto &k) { known |= k.name == name; });
    detail::forEachGlobal([&](const auto &k) { global |= k.name == name; });
    const detail::OtherKeyword *other = detail::findOtherKeyword(kw);
    if (kw == "dm_target" && !ownFile_)
        warn(no, "unknown keyword 'dm_target' (only mpathd.conf accepts it); ignored");
    else if (global)
        warn(no, "keyword '" + kw + "' is only valid in section defaults; ignored");
    else if (known || (other && other->disposition != detail::Disposition::Unsupported))
        warn(no, "keyword '" + kw + "' is not valid in section " + std::string(sectionName(ctx())) +
                     "; ignored");
    else if (other)
        warn(no, "keyword '" + kw + "' is not supported; ignored");
    else
        warn(no, "unknown keyword '" + kw + "' in section " + std::string(sectionName(ctx())) +
                     "; ignored");
}

// features "queue_if_no_path" next to a no_path_retry that is not queue in
// the same section: multipath-tools drops the word and says so.
void checkQueueIfNoPath(const Settings &s, std::vector<Diagnostic> &diagnostics) {
    if (!s.features || !hasWord(*s.features, "queue_if_no_path") || !s.noPathRetry ||
        s.noPathRetry->kind == NoPathRetry::Kind::Queue)
        return;
    auto where = s.where.find("features");
    SourceLocation at = where == s.where.end() ? SourceLocation{} : where->second;
    diagnostics.push_back({at.file, at.line, Diagnostic::Severity::Warning,
                           "ignoring feature 'queue_if_no_path' because no_path_retry is set "
                           "to '" +
                               toString(*s.noPathRetry) + "'"});
}

// rr_weight priorities weights paths through service-time's per-path
// relative throughput; the other selectors keep no weight. \p selector: the
// one in force for the section's maps (unless an entry above it differs).
void checkRrWeight(const Settings &s, const std::optional<PathSelector> &selector,
                   std::vector<Diagnostic> &diagnostics) {
    if (s.rrWeight != RrWeight::Priorities)
        return;
    const PathSelector inForce = selector.value_or(PathSelector{});
    if (inForce.name == "service-time")
        return;
    auto where = s.where.find("rr_weight");
    SourceLocation at = where == s.where.end() ? SourceLocation{} : where->second;
    diagnostics.push_back({at.file, at.line, Diagnostic::Severity::Warning,
                           "rr_weight priorities has no effect with path_selector '" +
                               toString(inForce) +
                               "': the kernel keeps a per-path weight only for service-time"});
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
    checkQueueIfNoPath(config.defaults, diagnostics);
    checkQueueIfNoPath(config.overrides, diagnostics);
    for (const auto &d : config.devices)
        checkQueueIfNoPath(d.settings, diagnostics);
    for (const auto &m : config.multipaths)
        checkQueueIfNoPath(m.settings, diagnostics);

    // Which selector a section's maps get: multipaths over overrides over
    // devices over defaults.
    using Selector = std::optional<PathSelector>;
    auto selectorOf = [](std::initializer_list<const Selector *> layers) {
        for (const Selector *l : layers)
            if (*l)
                return *l;
        return Selector{};
    };
    const Settings &d = config.defaults, &o = config.overrides;
    checkRrWeight(d, selectorOf({&o.pathSelector, &d.pathSelector}), diagnostics);
    checkRrWeight(o, selectorOf({&o.pathSelector, &d.pathSelector}), diagnostics);
    for (const auto &dev : config.devices)
        checkRrWeight(dev.settings,
                      selectorOf({&o.pathSelector, &dev.settings.pathSelector, &d.pathSelector}),
                      diagnostics);
    for (const auto &m : config.multipaths)
        checkRrWeight(m.settings,
                      selectorOf({&m.settings.pathSelector, &o.pathSelector, &d.pathSelector}),
                      diagnostics);

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
                    {later.where.file, later.where.line, Diagnostic::Severity::Warning,
                     "alias '" + later.alias + "' is already used for wwid " + first.wwid + " at " +
                         first.where.file + ":" + std::to_string(first.where.line)});
                break;
            }
        }
    }
}

} // namespace mpath::config
