#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mpathctl {

/// Exit codes of mpathctl.
enum Exit { ExitOk = 0, ExitFailure = 1, ExitUsage = 2 };

/// The words of a command line after the subcommand, split into options
/// ("--name value", "--name=value", "--flag") and positional words.
/// Options not declared are usage errors that name the flag.
class Arguments {
public:
    /// \param valued options that take a value, e.g. {"--config"}
    /// \param flags options without a value, e.g. {"--json"}
    Arguments(std::vector<std::string> words, std::vector<std::string> valued,
              std::vector<std::string> flags);

    /// "" when the words are valid, else a sentence naming the bad one.
    const std::string &error() const { return error_; }

    bool flag(const std::string &name) const;
    std::optional<std::string> value(const std::string &name) const;
    const std::vector<std::string> &positional() const { return positional_; }

private:
    std::vector<std::pair<std::string, std::string>> values_;
    std::vector<std::string> flags_;
    std::vector<std::string> positional_;
    std::string error_;
};

} // namespace mpathctl
