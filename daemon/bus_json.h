#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mpathd {

/// JSON text written straight from values, laid out as mpathctl prints
/// its documents (two spaces a level, `"key": value`, `[]` and `{}` when
/// empty), so that mpathctl can print a document the daemon made as it
/// is. Keys are written in the order given: callers give them sorted, as
/// mpathctl's own documents have them. Strings that are not UTF-8 get
/// U+FFFD for each bad byte.
class BusJson {
public:
    void beginObject();
    void endObject();
    void beginArray();
    void endArray();
    /// The key of the next value, in an object.
    void key(std::string_view name);

    void value(std::string_view s);
    void value(const char *s) { value(std::string_view(s)); }
    void value(bool b);
    void value(uint64_t n);
    void value(int64_t n);
    void null();

    /// The document; the writer is empty again.
    std::string take();

private:
    /// Separates the value about to be written from the one before, in
    /// an array.
    void next();
    void end(char closing);
    void newline(size_t depth);
    void string(std::string_view s);

    struct Level {
        bool array;
        bool empty;
    };
    std::string out_;
    std::vector<Level> levels_;
};

} // namespace mpathd
