#include "config/tokenizer.h"

namespace mpath::config::detail {

namespace {

bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

} // namespace

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

} // namespace mpath::config::detail
