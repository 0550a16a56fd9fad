#include "mpath/config/keyword_info.h"

#include "config/keyword_table.h"
#include "config/value_text.h"

namespace mpath::config {

namespace {

std::vector<std::string> sectionNames(unsigned mask) {
    std::vector<std::string> out;
    if (mask & detail::InDefaults)
        out.emplace_back("defaults");
    if (mask & detail::InDevice)
        out.emplace_back("devices");
    if (mask & detail::InMultipath)
        out.emplace_back("multipaths");
    if (mask & detail::InOverrides)
        out.emplace_back("overrides");
    return out;
}

template <typename K>
KeywordInfo infoOf(const K &k, KeywordInfo::Kind kind) {
    KeywordInfo i;
    i.name = std::string(k.name);
    i.kind = kind;
    i.sections = sectionNames(k.sections);
    if (!k.unsetByDefault)
        i.builtin = detail::formatValue(k.builtin);
    i.hasEffect = k.effect == detail::Effect::Applied;
    i.extension = k.extension;
    return i;
}

} // namespace

std::vector<KeywordInfo> keywords() {
    std::vector<KeywordInfo> out;
    detail::forEachSetting(
        [&](const auto &k) { out.push_back(infoOf(k, KeywordInfo::Kind::Setting)); });
    detail::forEachGlobal(
        [&](const auto &k) { out.push_back(infoOf(k, KeywordInfo::Kind::Global)); });
    for (const auto &k : detail::kOtherKeywords) {
        KeywordInfo i;
        i.name = std::string(k.name);
        switch (k.disposition) {
        case detail::Disposition::NoEffect:
            i.kind = KeywordInfo::Kind::NoEffect;
            break;
        case detail::Disposition::Deprecated:
            i.kind = KeywordInfo::Kind::Deprecated;
            break;
        case detail::Disposition::Unsupported:
            i.kind = KeywordInfo::Kind::Unsupported;
            break;
        }
        i.sections = sectionNames(k.sections);
        out.push_back(std::move(i));
    }
    return out;
}

} // namespace mpath::config
