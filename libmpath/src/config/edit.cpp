#include "mpath/config/edit.h"

#include "config/tokenizer.h"
#include "mpath/config/writer.h"

#include <optional>
#include <vector>

namespace mpath::config {

namespace {

/// One line of the text and where it stands.
struct Line {
    std::string text;    ///< without its newline
    int depth{0};        ///< brace depth at its start
    std::string section; ///< the top-level section it is in ("" outside)
    bool opens{false};   ///< it opens a top-level section
    bool closes{false};  ///< its '}' closes a top-level section
    std::vector<detail::Token> words;
};

std::vector<Line> lines(std::string_view text) {
    std::vector<Line> out;
    int depth = 0;
    std::string section;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find('\n', at);
        if (end == std::string_view::npos)
            end = text.size();
        Line l;
        l.text = std::string(text.substr(at, end - at));
        l.depth = depth;
        detail::tokenize(l.text, l.words);
        l.section = depth > 0 ? section : "";
        for (size_t i = 0; i < l.words.size(); ++i) {
            if (l.words[i].is("{")) {
                if (depth == 0 && i > 0) {
                    section = l.words[i - 1].text;
                    l.section = section;
                    l.opens = true;
                }
                ++depth;
            } else if (l.words[i].is("}") && depth > 0) {
                --depth;
                if (depth == 0)
                    l.closes = true;
            }
        }
        out.push_back(std::move(l));
        at = end + 1;
    }
    return out;
}

std::string join(const std::vector<Line> &ls, bool finalNewline) {
    std::string out;
    for (size_t i = 0; i < ls.size(); ++i) {
        out += ls[i].text;
        if (i + 1 < ls.size() || finalNewline)
            out += '\n';
    }
    return out;
}

/// A line of the section's body, indented as the section's other lines.
std::string bodyLine(const std::vector<Line> &ls, const std::string &section,
                     const std::string &content) {
    for (const Line &l : ls)
        if (l.section == section && l.depth == 1 && !l.words.empty() && !l.closes) {
            const size_t indent = l.text.find_first_not_of(" \t");
            return l.text.substr(0, indent) + content;
        }
    return "\t" + content;
}

/// Whether a body line of a top-level section is at depth 1 and sets
/// \a keyword.
bool sets(const Line &l, const std::string &section, std::string_view keyword) {
    return l.section == section && l.depth == 1 && !l.opens && l.words.size() >= 1 &&
           !l.words[0].quoted && l.words[0].text == keyword;
}

bool namesEveryDevice(const Line &l) {
    if (l.section != "blacklist" || l.depth != 1 || l.words.size() != 2)
        return false;
    const std::string &k = l.words[0].text;
    const std::string &v = l.words[1].text;
    return (k == "devnode" || k == "wwid") && (v == ".*" || v == "*");
}

/// \a ls with \a content added as a body line of the last top-level
/// \a section, or in a new section at the end.
void addToSection(std::vector<Line> &ls, const std::string &section, const std::string &content) {
    std::optional<size_t> close;
    for (size_t i = 0; i < ls.size(); ++i)
        if (ls[i].closes && ls[i].section == section)
            close = i;
    if (close) {
        Line l;
        l.text = bodyLine(ls, section, content);
        const Line &c = ls[*close];
        const size_t brace = c.text.find('}');
        if (c.text.find_first_not_of(" \t") != brace) {
            // "defaults { a b }" or "a b }": the brace goes on a line of its own.
            Line rest = c;
            rest.text = c.text.substr(0, c.text.find_last_not_of(" \t", brace - 1) + 1);
            Line closing;
            closing.text = c.text.substr(brace);
            ls[*close] = rest;
            ls.insert(ls.begin() + static_cast<long>(*close) + 1, closing);
            close = *close + 1;
        }
        ls.insert(ls.begin() + static_cast<long>(*close), l);
        return;
    }
    if (!ls.empty() && !ls.back().text.empty()) {
        ls.push_back(Line{});
    }
    Line open, body, closing;
    open.text = section + " {";
    body.text = "\t" + content;
    closing.text = "}";
    ls.push_back(open);
    ls.push_back(body);
    ls.push_back(closing);
}

bool endsWithNewline(std::string_view text) {
    return text.empty() || text.back() == '\n';
}

} // namespace

std::string setDefault(std::string_view text, std::string_view keyword, std::string_view value) {
    std::vector<Line> ls = lines(text);
    const std::string content = std::string(keyword) + " " + quote(std::string(value));
    std::optional<size_t> last;
    for (size_t i = 0; i < ls.size(); ++i)
        if (sets(ls[i], "defaults", keyword))
            last = i;
    if (last) {
        const std::string &t = ls[*last].text;
        ls[*last].text = t.substr(0, t.find_first_not_of(" \t")) + content;
    } else {
        addToSection(ls, "defaults", content);
    }
    return join(ls, endsWithNewline(text) || !last);
}

std::string allowAllDevices(std::string_view text, bool &removed) {
    std::vector<Line> ls = lines(text);
    std::vector<Line> kept;
    removed = false;
    for (Line &l : ls) {
        if (namesEveryDevice(l)) {
            removed = true;
            continue;
        }
        kept.push_back(std::move(l));
    }
    return join(kept, endsWithNewline(text));
}

std::string blacklistAllDevices(std::string_view text) {
    std::vector<Line> ls = lines(text);
    for (const Line &l : ls)
        if (namesEveryDevice(l))
            return std::string(text);
    addToSection(ls, "blacklist", std::string(kBlacklistAll));
    return join(ls, true);
}

} // namespace mpath::config
