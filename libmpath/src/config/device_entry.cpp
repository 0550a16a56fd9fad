#include "mpath/config/device_entry.h"

namespace mpath::config {

bool DeviceEntry::matches(std::string_view vendorText, std::string_view productText,
                          std::string_view revisionText) const {
    return vendor.matches(vendorText) && product.matches(productText) &&
           revision.matches(revisionText);
}

bool DeviceEntry::sameDevice(const DeviceEntry &other) const {
    return vendor.pattern() == other.vendor.pattern() &&
           product.pattern() == other.product.pattern() &&
           revision.pattern() == other.revision.pattern();
}

} // namespace mpath::config
