#pragma once

#include "mpath/config_regex.h"
#include "mpath/prioritizer.h"

#include <utility>
#include <vector>

namespace mpath {

/// "weightedpath": priorities given by regular expressions over one
/// property of the path.
class WeightedPathPrioritizer : public Prioritizer {
public:
    enum class Key { Hbtl, Devname, Serial, Wwn };

    /// Parses "hbtl|devname|serial|wwn REGEX PRIO [REGEX PRIO]...".
    /// \return the prioritizer, or null with \a error set
    static std::unique_ptr<WeightedPathPrioritizer> fromArgs(std::string_view args,
                                                             std::string *error);

    std::string name() const override { return "weightedpath"; }
    [[nodiscard]] int priority(const Path &path) const override;

private:
    Key key_{Key::Devname};
    std::vector<std::pair<ConfigRegex, int>> rules_;
};

} // namespace mpath
