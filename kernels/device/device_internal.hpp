// Inside kernels/device only: the formatting device_query.cpp and device_properties.cpp share.
#pragma once

#include <string>

namespace cudalab::device {

// "80.0 GiB", "50 MiB", "768 bytes"
std::string formatBytes(double bytes);
// `v` in hexadecimal, `digits` wide with leading zeros.
std::string hex(unsigned v, int digits);

}  // namespace cudalab::device
