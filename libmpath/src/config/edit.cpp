#include "mpath/config/edit.h"

#include "config/tokenizer.h"
#include "mpath/config/writer.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace mpath::config {

namespace {

/// One line of the text and where it stands.
struct Line {
    std::string text;                    ///< without its newline (a CR of CRLF stays)
    int depth{0};                        ///< brace depth at its start
    std::string section;                 ///< the top-level section it is in ("" outside)
    bool opens{false};                   ///< it opens a top-level section
    bool closes{false};                  ///< one of its '}' closes a top-level section
    size_t closeAt{0};                   ///< where that '}' is in text
    size_t commentAt{std::string::npos}; ///< where a comment starts in text
    std::vector<detail::Token> words;

    bool hasBrace() const {
        return std::any_of(words.begin(), words.end(),
                           [](const detail::Token &w) { return w.is("{") || w.is("}"); });
    }
};

/// Where \a l's comment starts and where its brace back to depth 0 is, as
/// the tokenizer reads the line (quotes with "" inside, '#' and '!').
void scan(Line &l) {
    int depth = l.depth;
    bool quoted = false;
    for (size_t i = 0; i < l.text.size(); ++i) {
        const char c = l.text[i];
        if (quoted) {
            if (c == '"' && i + 1 < l.text.size() && l.text[i + 1] == '"')
                ++i;
            else if (c == '"')
                quoted = false;
        } else if (c == '"') {
            quoted = true;
        } else if (c == '#' || c == '!') {
            l.commentAt = i;
            return;
        } else if (c == '{') {
            ++depth;
        } else if (c == '}' && depth > 0 && --depth == 0 && !l.closes) {
            l.closes = true;
            l.closeAt = i;
        }
    }
}

std::vector<Line> lines(std::string_view text) {
    std::vector<Line> out;
    int depth = 0;
    std::string section;
    std::string pending; // a name alone on its line, at depth 0: "defaults" before a "{" line
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
                if (depth == 0) {
                    section = i > 0 ? l.words[i - 1].text : pending;
                    l.section = section;
                    l.opens = true;
                }
                ++depth;
            } else if (l.words[i].is("}") && depth > 0) {
                --depth;
            }
        }
        scan(l);
        if (l.depth == 0 && !l.words.empty())
            pending = l.hasBrace() ? "" : l.words.back().text;
        out.push_back(std::move(l));
        at = end + 1;
    }
    return out;
}

/// The line end the text uses: "\r" when its first line ends in CRLF.
std::string lineEnd(const std::vector<Line> &ls) {
    return !ls.empty() && !ls.front().text.empty() && ls.front().text.back() == '\r' ? "\r" : "";
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
        if (l.section == section && l.depth == 1 && !l.words.empty() && !l.hasBrace()) {
            const size_t indent = l.text.find_first_not_of(" \t");
            return l.text.substr(0, indent) + content;
        }
    return "\t" + content;
}

/// Whether a body line of a top-level section is at depth 1 and sets
/// \a keyword.
bool sets(const Line &l, const std::string &section, std::string_view keyword) {
    // A line with a brace is left alone: rewriting it would lose the brace.
    return l.section == section && l.depth == 1 && !l.hasBrace() && l.words.size() >= 1 &&
           !l.words[0].quoted && l.words[0].text == keyword;
}

bool namesEveryDevice(const Line &l) {
    if (l.section != "blacklist" || l.depth != 1 || l.words.size() != 2)
        return false;
    const std::string &k = l.words[0].text;
    const std::string &v = l.words[1].text;
    return k == "devnode" && (v == ".*" || v == "*");
}

/// \a ls with \a content added as a body line of the last top-level
/// \a section, or in a new section at the end.
void addToSection(std::vector<Line> &ls, const std::string &section, const std::string &content) {
    std::optional<size_t> close;
    for (size_t i = 0; i < ls.size(); ++i)
        if (ls[i].closes && ls[i].section == section)
            close = i;
    const std::string eol = lineEnd(ls);
    if (close) {
        Line l;
        l.text = bodyLine(ls, section, content) + eol;
        const Line &c = ls[*close];
        const size_t brace = c.closeAt;
        if (c.text.find_first_not_of(" \t") != brace) {
            // "defaults { a b }" or "a b }": the brace goes on a line of its own.
            Line rest = c;
            rest.text = c.text.substr(0, c.text.find_last_not_of(" \t", brace - 1) + 1) + eol;
            Line closing;
            closing.text = c.text.substr(brace);
            ls[*close] = rest;
            ls.insert(ls.begin() + static_cast<long>(*close) + 1, closing);
            close = *close + 1;
        }
        ls.insert(ls.begin() + static_cast<long>(*close), l);
        return;
    }
    if (!ls.empty() && !ls.back().text.empty() && ls.back().text != "\r") {
        ls.push_back(Line{});
        ls.back().text = eol;
    }
    Line open, body, closing;
    open.text = section + " {" + eol;
    body.text = "\t" + content + eol;
    closing.text = "}" + eol;
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
        const Line &l = ls[*last];
        const std::string &t = l.text;
        const bool cr = !t.empty() && t.back() == '\r';
        std::string comment = l.commentAt == std::string::npos ? "" : t.substr(l.commentAt);
        if (cr && !comment.empty())
            comment.pop_back();
        ls[*last].text = t.substr(0, t.find_first_not_of(" \t")) + content +
                         (comment.empty() ? "" : " " + comment) + (cr ? "\r" : "");
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
