#include "mpath/config/writer.h"

#include "config/keyword_table.h"
#include "config/value_text.h"

namespace mpath::config {

namespace {

bool needsQuotes(const std::string &v) {
    if (v.empty())
        return true;
    for (char c : v) {
        if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '"' || c == '#' ||
            c == '!' || c == '{' || c == '}')
            return true;
    }
    return false;
}

class Writer {
public:
    std::string text;

    void open(std::string_view name) {
        indent();
        text += name;
        text += " {\n";
        ++depth_;
    }
    void close() {
        --depth_;
        indent();
        text += "}\n";
    }
    void line(std::string_view kw, const std::string &value, bool forceQuotes = false) {
        indent();
        text += kw;
        text += ' ';
        text += forceQuotes ? "\"" + escape(value) + "\"" : quote(value);
        text += '\n';
    }
    void regex(std::string_view kw, const Regex &re) {
        if (!re.empty())
            line(kw, re.pattern(), true);
    }
    void settings(const Settings &s) {
        // Values that are several words are always quoted so that they
        // read back exactly.
        detail::forEachSetting([&](const auto &k) {
            const auto &v = s.*k.field;
            if (v && detail::inForce(k, *v))
                line(k.name, detail::formatValue(*v), k.rule.syntax == detail::Syntax::RestOfLine);
        });
    }
    void blacklist(std::string_view name, const Blacklist &b) {
        if (b.empty())
            return;
        open(name);
        for (const auto &p : b.devnodes)
            regex("devnode", p.regex);
        for (const auto &p : b.wwids)
            regex("wwid", p.regex);
        for (const auto &p : b.properties)
            regex("property", p.regex);
        for (const auto &p : b.protocols)
            regex("protocol", p.regex);
        for (const auto &d : b.devices) {
            open("device");
            regex("vendor", d.vendor);
            regex("product", d.product);
            close();
        }
        close();
    }

    static std::string escape(const std::string &v) {
        std::string out;
        for (char c : v) {
            if (c == '"')
                out += '"';
            out += c;
        }
        return out;
    }

private:
    void indent() { text.append(static_cast<size_t>(depth_) * 4, ' '); }
    int depth_{0};
};

} // namespace

std::vector<std::pair<std::string, std::string>> settingValues(const Settings &settings) {
    std::vector<std::pair<std::string, std::string>> out;
    detail::forEachSetting([&](const auto &k) {
        if (const auto &v = settings.*k.field; v && detail::inForce(k, *v))
            out.emplace_back(std::string(k.name), detail::formatValue(*v));
    });
    return out;
}

std::vector<std::pair<std::string, std::string>> globalValues(const GlobalSettings &globals) {
    std::vector<std::pair<std::string, std::string>> out;
    detail::forEachGlobal([&](const auto &k) {
        if (const auto &v = globals.*k.field; v && detail::inForce(k, *v))
            out.emplace_back(std::string(k.name), detail::formatValue(*v));
    });
    return out;
}

std::string quote(const std::string &value) {
    if (!needsQuotes(value))
        return value;
    return "\"" + Writer::escape(value) + "\"";
}

std::string write(const Config &config) {
    Writer w;
    if (config.globals != GlobalSettings{} || config.defaults != Settings{}) {
        w.open("defaults");
        detail::forEachGlobal([&](const auto &k) {
            const auto &v = config.globals.*k.field;
            if (v && detail::inForce(k, *v))
                w.line(k.name, detail::formatValue(*v));
        });
        w.settings(config.defaults);
        w.close();
    }
    w.blacklist("blacklist", config.blacklist);
    w.blacklist("blacklist_exceptions", config.blacklistExceptions);
    if (!config.devices.empty()) {
        w.open("devices");
        for (const auto &d : config.devices) {
            w.open("device");
            w.regex("vendor", d.vendor);
            w.regex("product", d.product);
            w.regex("revision", d.revision);
            w.regex("product_blacklist", d.productBlacklist);
            w.settings(d.settings);
            w.close();
        }
        w.close();
    }
    if (!config.multipaths.empty()) {
        w.open("multipaths");
        for (const auto &m : config.multipaths) {
            w.open("multipath");
            w.line("wwid", m.wwid);
            if (!m.alias.empty())
                w.line("alias", m.alias);
            w.settings(m.settings);
            w.close();
        }
        w.close();
    }
    if (config.overrides != Settings{}) {
        w.open("overrides");
        w.settings(config.overrides);
        w.close();
    }
    return w.text;
}

} // namespace mpath::config
