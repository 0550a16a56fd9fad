#include "mpath/config/device_entry.h"

namespace mpath::config {

bool DeviceEntry::matches(std::string_view vendorText, std::string_view productText,
                          std::string_view revisionText) const {
    return vendor.matches(vendorText) && product.matches(productText) &&
           revision.matches(revisionText);
}

} // namespace mpath::config
