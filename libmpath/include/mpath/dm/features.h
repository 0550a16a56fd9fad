#pragma once

#include <array>
#include <cstdint>
#include <mpath/error.h>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mpath::dm {

/// Whether the target's constructor reads \a word back as this one word.
/// Device-mapper splits a table with dm_split_args(): at every byte the
/// kernel's isspace() takes for a blank (tab, newline, vertical tab, form
/// feed, carriage return, space, and 0xa0, Latin-1's no-break space), and
/// it takes a backslash as the escape of the byte after it. A word with
/// any of those, or a NUL, or none at all, would reach the kernel as
/// something else.
bool isTableWord(std::string_view word);

/// One feature of the multipath target's table (the stock target's and
/// dm-lmpath's parse_features()): its name and its argument, if any.
struct FeatureFacts {
    std::string_view name;
    unsigned args; ///< 0 or 1
    /// The argument's range when it is a number ...
    uint32_t min;
    uint32_t max;
    /// ... or the words it may be.
    std::span<const std::string_view> words;
};

inline constexpr std::string_view kQueueModes[] = {"bio", "rq", "mq"};

inline constexpr std::array<FeatureFacts, 5> kFeatures{{
    {"queue_if_no_path", 0, 0, 0, {}},
    {"retain_attached_hw_handler", 0, 0, 0, {}},
    {"pg_init_retries", 1, 1, 50, {}},
    {"pg_init_delay_msecs", 1, 0, 60000, {}},
    {"queue_mode", 1, 0, 0, kQueueModes},
}};

/// The most feature words a table may have.
inline constexpr size_t kMaxFeatureWords = 8;

/// Checks \a words as a table's feature words (those after the count):
/// known features, each followed by its argument in its range, at most
/// kMaxFeatureWords words.
/// \return nothing, or EINVAL with a sentence that names the word and what
///         the target takes instead
Result<void> checkFeatures(const std::vector<std::string> &words);

/// The names of kFeatures with their arguments, for messages:
/// "queue_if_no_path, retain_attached_hw_handler, pg_init_retries <1..50>, ...".
std::string featureNames();

} // namespace mpath::dm
