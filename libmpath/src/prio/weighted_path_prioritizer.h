#pragma once

#include "mpath/config/regex.h"
#include "mpath/prio/prioritizer.h"

#include <utility>
#include <vector>

namespace mpath::prio {

/// "weightedpath": priorities given by regular expressions over one
/// property of the path. No I/O.
class WeightedPathPrioritizer final : public Prioritizer {
public:
    enum class Key { Hbtl, Devname, Serial, Wwn };

    /// Parses "hbtl|devname|serial|wwn REGEX PRIO [REGEX PRIO]...".
    static Result<std::unique_ptr<WeightedPathPrioritizer>> fromArgs(std::string_view args);

    std::string_view name() const override { return "weightedpath"; }
    bool needsIo() const override { return false; }
    std::function<Result<int>()> job(const model::Path &path) const override;

private:
    int priority(const model::Path &path) const;

    Key key_{Key::Devname};
    std::vector<std::pair<config::Regex, int>> rules_;
};

} // namespace mpath::prio
