#include "forward/control/port.hh"

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include <charconv>
#include <cstring>
#include <vector>

namespace fwd {

namespace {

std::vector<std::string_view> words(std::string_view s) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
            ++i;
        size_t j = i;
        while (j < s.size() && s[j] != ' ' && s[j] != '\t')
            ++j;
        if (j > i)
            out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

template <class T>
bool number(std::string_view s, T& out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc{} && p == s.data() + s.size();
}

// The value of `key=` in a devargs string ("net_af_packet0,iface=veth0,qpairs=1").
std::string devarg(std::string_view devargs, std::string_view key) {
    size_t i = devargs.find(',');
    while (i != std::string_view::npos) {
        const size_t start = i + 1;
        const size_t end = devargs.find(',', start);
        std::string_view kv = devargs.substr(start, end == std::string_view::npos ? end : end - start);
        if (kv.size() > key.size() && kv.substr(0, key.size()) == key && kv[key.size()] == '=')
            return std::string(kv.substr(key.size() + 1));
        i = end;
    }
    return {};
}

}  // namespace

std::optional<mac_addr> parse_mac(std::string_view s) {
    mac_addr m;
    if (s.size() != 17)
        return std::nullopt;
    for (size_t i = 0; i < 6; ++i) {
        if (i && s[i * 3 - 1] != ':')
            return std::nullopt;
        uint8_t v = 0;
        auto [p, ec] = std::from_chars(s.data() + i * 3, s.data() + i * 3 + 2, v, 16);
        if (ec != std::errc{} || p != s.data() + i * 3 + 2)
            return std::nullopt;
        m.bytes[i] = v;
    }
    return m;
}

std::string to_string(const mac_addr& m) {
    char b[18];
    std::snprintf(b, sizeof b, "%02x:%02x:%02x:%02x:%02x:%02x", m.bytes[0], m.bytes[1], m.bytes[2], m.bytes[3],
                  m.bytes[4], m.bytes[5]);
    return b;
}

std::optional<port_spec> parse_port(std::string_view line, std::string& err) {
    const auto w = words(line);
    if (w.size() < 2) {
        err = "a port is 'NAME DEVARGS [vrf=VRF] [tap=IF] [ifname=IF] [ifindex=N] [mtu=N]' or 'NAME vlan=VID parent=PORT [...]'";
        return std::nullopt;
    }
    port_spec p;
    p.name = w[0];
    // A sub-port has keys where a port has its devargs (devargs never start with these).
    const bool sub = w[1].starts_with("vlan=") || w[1].starts_with("parent=");
    if (!sub)
        p.devargs = w[1];
    bool mtu_given = false;
    for (size_t i = sub ? 1 : 2; i < w.size(); ++i) {
        const auto eq = w[i].find('=');
        const std::string_view k = w[i].substr(0, eq), v = eq == std::string_view::npos ? "" : w[i].substr(eq + 1);
        if (eq == std::string_view::npos || v.empty()) {
            err = "'" + std::string(w[i]) + "' is not KEY=VALUE";
            return std::nullopt;
        }
        if (k == "vlan") {
            if (!number(v, p.vlan) || p.vlan < 1 || p.vlan > 4094) {
                err = "vlan '" + std::string(v) + "' is not a VLAN id from 1 to 4094";
                return std::nullopt;
            }
        } else if (k == "parent") {
            p.parent = v;
        } else if (k == "vrf") {
            p.vrf = v;
        } else if (k == "tap") {
            if (v.size() > 15) {
                err = "tap '" + std::string(v) + "': interface names have at most 15 characters";
                return std::nullopt;
            }
            p.tap = v;
        } else if (k == "ifname") {
            p.ifname = v;
        } else if (k == "ifindex") {
            if (!number(v, p.ifindex) || p.ifindex == 0) {
                err = "ifindex '" + std::string(v) + "' is not a positive number";
                return std::nullopt;
            }
        } else if (k == "mtu") {
            if (!number(v, p.mtu) || p.mtu < 1280) {
                err = "mtu '" + std::string(v) + "' is not a number from 1280 to 65535";
                return std::nullopt;
            }
            mtu_given = true;
        } else {
            err = "unknown port option '" + std::string(k) + "' (vlan, parent, vrf, tap, ifname, ifindex, mtu)";
            return std::nullopt;
        }
    }
    if (!sub && (p.vlan != 0 || !p.parent.empty())) {
        err = "a sub-port is 'NAME vlan=VID parent=PORT [...]', without devargs";
        return std::nullopt;
    }
    if (sub && (p.vlan == 0 || p.parent.empty())) {
        err = "a sub-port needs both vlan=VID and parent=PORT";
        return std::nullopt;
    }
    if (sub && !mtu_given)
        p.mtu = 0;  // the parent's (check_ports)
    // zebra knows the port by its mirror when it has one (FRR sees the TAP, not the NIC).
    if (p.ifname.empty())
        p.ifname = p.tap.empty() ? devarg(p.devargs, "iface") : p.tap;
    return p;
}

bool check_ports(std::vector<port_spec>& ports, std::string& err) {
    for (size_t i = 0; i < ports.size(); ++i) {
        port_spec& p = ports[i];
        for (size_t j = 0; j < i; ++j)
            if (ports[j].name == p.name) {
                err = "port " + p.name + " is configured twice";
                return false;
            }
        if (p.vlan == 0)
            continue;
        // Before it, as a VLAN device needs its link first.
        const port_spec* parent = nullptr;
        for (size_t j = 0; j < i; ++j)
            if (ports[j].name == p.parent)
                parent = &ports[j];
        if (parent == nullptr) {
            err = "sub-port " + p.name + ": parent '" + p.parent + "' is no port configured before it";
            return false;
        }
        if (parent->vlan != 0) {
            err = "sub-port " + p.name + ": parent " + p.parent + " is a sub-port itself (stacked VLANs are not supported)";
            return false;
        }
        for (size_t j = 0; j < i; ++j)
            if (ports[j].vlan == p.vlan && ports[j].parent == p.parent) {
                err = "sub-port " + p.name + ": VLAN " + std::to_string(p.vlan) + " on " + p.parent + " is " +
                      ports[j].name + " already";
                return false;
            }
        if (p.mtu == 0)
            p.mtu = parent->mtu;
        if (p.mtu > parent->mtu) {
            err = "sub-port " + p.name + ": mtu " + std::to_string(p.mtu) + " larger than its parent's (" +
                  p.parent + ": " + std::to_string(parent->mtu) + ")";
            return false;
        }
    }
    return true;
}

std::optional<neighbor_spec> parse_neighbor(std::string_view line, std::string& err) {
    const auto w = words(line);
    if (w.size() != 3) {
        err = "a neighbor is 'PORT ADDRESS MAC'";
        return std::nullopt;
    }
    neighbor_spec n;
    n.port = w[0];
    const auto a = rib::parse_addr(w[1]);
    if (!a) {
        err = "'" + std::string(w[1]) + "' is not an IPv4 or IPv6 address";
        return std::nullopt;
    }
    n.addr = *a;
    const auto m = parse_mac(w[2]);
    if (!m) {
        err = "'" + std::string(w[2]) + "' is not a MAC address (xx:xx:xx:xx:xx:xx)";
        return std::nullopt;
    }
    n.mac = *m;
    return n;
}

bool port_open(const port_spec& spec, uint16_t n_queues, rte_mempool* pool, uint16_t rx_desc, uint16_t tx_desc,
               port_handle& out, std::string& err, bool vlan_offloads) {
    const std::string dev = spec.devargs.substr(0, spec.devargs.find(','));
    uint16_t id = 0;
    if (rte_eth_dev_get_port_by_name(dev.c_str(), &id) != 0) {
        if (rte_dev_probe(spec.devargs.c_str()) != 0 || rte_eth_dev_get_port_by_name(dev.c_str(), &id) != 0) {
            err = "port " + spec.name + ": cannot create device '" + spec.devargs + "'";
            return false;
        }
    }
    if (id >= max_ports) {
        err = "port " + spec.name + ": DPDK port id " + std::to_string(id) + " beyond srv6d's " +
              std::to_string(max_ports);
        return false;
    }
    rte_eth_dev_info info{};
    if (rte_eth_dev_info_get(id, &info) != 0) {
        err = "port " + spec.name + ": no device info";
        return false;
    }
    if (n_queues > info.max_rx_queues || n_queues > info.max_tx_queues) {
        err = "port " + spec.name + ": " + std::to_string(n_queues) + " workers but the device has " +
              std::to_string(info.max_rx_queues) + " rx / " + std::to_string(info.max_tx_queues) + " tx queues";
        return false;
    }
    rte_eth_conf conf{};
    // One queue per worker: RSS on IP/UDP/TCP spreads flows over them (a flow stays on one queue,
    // so on one worker: per-flow order is kept), masked by what the device can hash on.
    const uint64_t rss = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP;
    if (n_queues > 1 && (info.flow_type_rss_offloads & rss) != 0) {
        conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
        conf.rx_adv_conf.rss_conf.rss_hf = rss & info.flow_type_rss_offloads;
    }
    // The headend chains a header mbuf in front of the payload when headroom is short.
    if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
        conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
    // Lets the NIC mark IPv4 header checksums good or bad (classify skips its own check).
    if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM)
        conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
    // Sub-ports' tags: the NIC's work where it offers it (net_af_packet and net_tap do not; the
    // worker does it in software then).
    if (vlan_offloads && (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_VLAN_STRIP))
        conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_VLAN_STRIP;
    if (vlan_offloads && (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_VLAN_INSERT))
        conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_VLAN_INSERT;
    int rc = rte_eth_dev_configure(id, n_queues, n_queues, &conf);
    uint16_t nrx = rx_desc, ntx = tx_desc;
    if (rc == 0)
        rc = rte_eth_dev_adjust_nb_rx_tx_desc(id, &nrx, &ntx);
    const int socket = rte_eth_dev_socket_id(id);
    const unsigned sock = socket < 0 ? 0u : static_cast<unsigned>(socket);
    for (uint16_t q = 0; rc == 0 && q < n_queues; ++q) {
        rc = rte_eth_rx_queue_setup(id, q, nrx, sock, nullptr, pool);
        if (rc == 0)
            rc = rte_eth_tx_queue_setup(id, q, ntx, sock, nullptr);
    }
    if (rc == 0)
        rc = rte_eth_dev_start(id);
    if (rc != 0) {
        err = "port " + spec.name + ": setup failed: " + std::string(rte_strerror(-rc));
        return false;
    }
    rte_eth_promiscuous_enable(id);  // not every PMD has it; the MAC check is ours anyway
    rte_ether_addr mac{};
    rte_eth_macaddr_get(id, &mac);
    out.port_id = id;
    out.rx_vlan_hw = (conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_VLAN_STRIP) != 0;
    out.tx_vlan_hw = (conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_VLAN_INSERT) != 0;
    std::memcpy(out.mac.bytes, mac.addr_bytes, 6);
    out.ifindex = spec.ifindex;
    if (out.ifindex == 0 && !spec.ifname.empty())
        out.ifindex = if_nametoindex(spec.ifname.c_str());
    return true;
}

std::optional<bool> kernel_carrier(const port_spec& spec) {
    const std::string_view dev = std::string_view(spec.devargs).substr(0, spec.devargs.find(','));
    if (!dev.starts_with("net_af_packet") && !dev.starts_with("net_af_xdp") && !dev.starts_with("eth_af_packet"))
        return std::nullopt;
    const std::string iface = devarg(spec.devargs, "iface");
    if (iface.empty() || iface.size() >= IFNAMSIZ)
        return std::nullopt;
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return std::nullopt;
    ifreq ifr{};
    std::memcpy(ifr.ifr_name, iface.data(), iface.size());
    const int rc = ::ioctl(fd, SIOCGIFFLAGS, &ifr);
    ::close(fd);
    if (rc != 0)
        return std::nullopt;
    return (ifr.ifr_flags & IFF_UP) != 0 && (ifr.ifr_flags & IFF_RUNNING) != 0;
}

void port_close(uint16_t port_id) {
    rte_eth_dev_stop(port_id);
    rte_eth_dev_close(port_id);
}

}  // namespace fwd
