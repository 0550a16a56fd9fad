#pragma once

// Values as text: reading a keyword's value under its rule from the
// keyword table, and writing it back the way the parser reads it.

#include "config/keyword_table.h"

#include <string>
#include <string_view>
#include <vector>

namespace mpath::config::detail {

/// "invalid value '<text>' for <kw>; accepted: <accepted>".
std::string invalidValue(std::string_view kw, std::string_view text, std::string_view accepted);

/// Reads \a text as the value of \a kw under \a rule.
/// \return "" after setting \a out, or the diagnostic that says what is
///         accepted (out is left alone)
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       unsigned &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule, int &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule, bool &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       std::string &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       GroupingPolicy &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       FindMultipaths &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       RrWeight &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       QueueMode &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       MarginalPathgroups &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       DmTarget &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       Failback &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       NoPathRetry &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       OffOrNumber &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       DevLossTmo &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule, MaxFds &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       PathSelector &out);
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       HardwareHandler &out);
/// features: a word count, then that many words.
std::string parseValue(std::string_view kw, const std::string &text, const Rule &rule,
                       std::vector<std::string> &out);

/// A value as it would be written in a configuration file (unquoted).
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
std::string formatValue(const MaxFds &v);
std::string formatValue(const PathSelector &v);
std::string formatValue(const HardwareHandler &v);
std::string formatValue(const std::vector<std::string> &features);

/// The blank-separated words of \a s.
std::vector<std::string> splitWords(std::string_view s);

} // namespace mpath::config::detail
