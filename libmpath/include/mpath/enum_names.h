#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mpath {

/// One row of an enum's name table: a value and a name it is written as.
/// A value may have several rows (aliases); its first row gives the name
/// it is printed with.
template <typename E>
struct EnumName {
    E value;
    std::string_view name;
};

/// The name \a value is printed with: its first row in \a table, "unknown"
/// when it has none.
template <typename E, std::size_t N>
constexpr std::string_view nameOf(const std::array<EnumName<E>, N> &table, E value) {
    for (const auto &row : table)
        if (row.value == value)
            return row.name;
    return "unknown";
}

/// The value named \a name in \a table, nullopt when no row has that name.
template <typename E, std::size_t N>
constexpr std::optional<E> valueOf(const std::array<EnumName<E>, N> &table, std::string_view name) {
    for (const auto &row : table)
        if (row.name == name)
            return row.value;
    return std::nullopt;
}

/// Every name of \a table joined with ", ", for "accepted: ..." messages.
template <typename E, std::size_t N>
std::string namesOf(const std::array<EnumName<E>, N> &table) {
    std::string out;
    for (const auto &row : table) {
        if (!out.empty())
            out += ", ";
        out += row.name;
    }
    return out;
}

} // namespace mpath
