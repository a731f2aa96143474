#include "mgmt/packet_text.hh"

#include <arpa/inet.h>

#include <fmt/format.h>

namespace mgmt {
namespace {

uint16_t be16(const uint8_t* p) { return static_cast<uint16_t>(p[0] << 8 | p[1]); }

std::string addr(int af, const uint8_t* p) {
    char buf[INET6_ADDRSTRLEN];
    return inet_ntop(af, p, buf, sizeof buf) ? std::string(buf) : std::string("?");
}

std::string mac(const uint8_t* p) {
    return fmt::format("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", p[0], p[1], p[2], p[3], p[4], p[5]);
}

constexpr uint8_t ipproto_icmp = 1, ipproto_ipip = 4, ipproto_tcp = 6, ipproto_udp = 17, ipproto_ipv6 = 41,
                  ipproto_routing = 43, ipproto_icmpv6 = 58, ipproto_ethernet = 143;

void l3(uint16_t type, const uint8_t* p, size_t len, std::vector<std::string>& out, int depth);

void ethernet(const uint8_t* p, size_t len, std::vector<std::string>& out, int depth) {
    if (len < 14) {
        out.push_back("Ethernet (truncated)");
        return;
    }
    const uint16_t type = be16(p + 12);
    out.push_back(fmt::format("Ethernet {} > {} type 0x{:04x}", mac(p + 6), mac(p), type));
    l3(type, p + 14, len - 14, out, depth);
}

// What follows an IP header: another header we decode, or a last line.
void upper(uint8_t proto, const uint8_t* p, size_t len, std::vector<std::string>& out, int depth) {
    if (depth > 4)
        return;
    switch (proto) {
    case ipproto_ipip: return l3(0x0800, p, len, out, depth + 1);
    case ipproto_ipv6: return l3(0x86dd, p, len, out, depth + 1);
    case ipproto_ethernet: return ethernet(p, len, out, depth + 1);
    case ipproto_routing: {
        if (len < 8) {
            out.push_back("Routing header (truncated)");
            return;
        }
        const size_t hlen = (size_t{p[1]} + 1) * 8;
        if (p[2] != 4) {
            out.push_back(fmt::format("Routing header type {} segments-left {}", p[2], p[3]));
        } else {
            std::string segs;
            for (size_t i = 0; i <= p[4] && 8 + (i + 1) * 16 <= len && 8 + (i + 1) * 16 <= hlen; ++i)
                segs += (i ? ", " : "") + addr(AF_INET6, p + 8 + i * 16);
            out.push_back(fmt::format("SRH segments-left {} last-entry {} segments [{}]", p[3], p[4], segs));
        }
        if (hlen <= len)
            upper(p[0], p + hlen, len - hlen, out, depth);
        return;
    }
    case ipproto_icmp:
    case ipproto_icmpv6:
        if (len >= 4)
            out.push_back(fmt::format("{} type {} code {}", proto == ipproto_icmp ? "ICMP" : "ICMPv6", p[0], p[1]));
        return;
    case ipproto_udp:
    case ipproto_tcp:
        if (len >= 4)
            out.push_back(fmt::format("{} {} > {}", proto == ipproto_udp ? "UDP" : "TCP", be16(p), be16(p + 2)));
        return;
    default: return;
    }
}

void l3(uint16_t type, const uint8_t* p, size_t len, std::vector<std::string>& out, int depth) {
    if (type == 0x0800) {
        if (len < 20) {
            out.push_back("IPv4 (truncated)");
            return;
        }
        const size_t ihl = size_t{p[0] & 0x0fu} * 4;
        out.push_back(fmt::format("IPv4 {} > {} ttl {} proto {} len {}", addr(AF_INET, p + 12), addr(AF_INET, p + 16),
                                  p[8], p[9], be16(p + 2)));
        if (ihl >= 20 && ihl <= len)
            upper(p[9], p + ihl, len - ihl, out, depth);
    } else if (type == 0x86dd) {
        if (len < 40) {
            out.push_back("IPv6 (truncated)");
            return;
        }
        const uint32_t flow = (uint32_t{p[1] & 0x0fu} << 16) | uint32_t{be16(p + 2)};
        out.push_back(fmt::format("IPv6 {} > {} hlim {} next {} len {} flow 0x{:05x}", addr(AF_INET6, p + 8),
                                  addr(AF_INET6, p + 24), p[7], p[6], be16(p + 4), flow));
        upper(p[6], p + 40, len - 40, out, depth);
    } else if (type == 0x0806) {
        out.push_back("ARP");
    }
}

}  // namespace

std::vector<std::string> describe_frame(const uint8_t* p, size_t len) {
    std::vector<std::string> out;
    ethernet(p, len, out, 0);
    return out;
}

}  // namespace mgmt
