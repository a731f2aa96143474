// The headers of a captured frame as text, one line per header, for `srv6ctl trace`:
// Ethernet, IPv4/IPv6, the SRH's segments, the inner packet of an encapsulation, ICMP/UDP/TCP.
// Reads only the bytes given (a capture keeps the first 256): a cut header says so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mgmt {

std::vector<std::string> describe_frame(const uint8_t* p, size_t len);

}  // namespace mgmt
