#include "fpm/admission.hh"

#include <fmt/format.h>
#include <pwd.h>

#include <algorithm>
#include <array>
#include <charconv>

namespace fpm {

std::string to_string(const peer_identity& p) {
    if (p.local)
        return fmt::format("uid {} ({})", p.uid, user_name(p.uid));
    return fmt::format("remote {}", rib::to_string(p.addr));
}

bool is_loopback(const rib::ip_addr& a) {
    if (a.is_v4())
        return a.bytes[0] == 127;
    static constexpr std::array<uint8_t, 16> one = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    return a.bytes == one;
}

admission_policy resolve_users(const std::vector<std::string>& words, std::vector<std::string>& missing) {
    admission_policy p;
    for (const auto& w : words) {
        uint32_t uid = 0;
        const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), uid);
        if (w == "any") {
            p.any_user = true;
            continue;
        }
        if (ec == std::errc{} && end == w.data() + w.size()) {
            p.uids.push_back(uid);
            continue;
        }
        passwd pw{};
        passwd* found = nullptr;
        std::array<char, 1024> buf{};
        if (::getpwnam_r(w.c_str(), &pw, buf.data(), buf.size(), &found) == 0 && found)
            p.uids.push_back(found->pw_uid);
        else
            missing.push_back(w);
    }
    return p;
}

bool still_admitted(const admission_policy& p, const peer_identity& who) {
    if (who.local)
        return p.any_user || std::find(p.uids.begin(), p.uids.end(), who.uid) != p.uids.end();
    return std::any_of(p.remotes.begin(), p.remotes.end(), [&](const rib::prefix& r) { return r.contains(who.addr); });
}

admission admit(const admission_policy& p, const tcp_end& peer, const peer_socket& found) {
    admission out;
    out.who.addr = peer.addr;
    switch (found.what) {
    case peer_socket::state::owned:
        out.who.local = true;
        out.who.uid = found.uid;
        if (!p.any_user && std::find(p.uids.begin(), p.uids.end(), found.uid) == p.uids.end()) {
            out.what = verdict::user_refused;
            out.why = fmt::format("{} is not in fpm.allow-user", to_string(out.who));
        }
        return out;
    case peer_socket::state::orphaned:
        out.what = verdict::owner_unknown;
        out.why = "its socket was closed before srv6d could see who owned it";
        return out;
    case peer_socket::state::error:
        // Local or remote cannot be told apart without the lookup.
        out.what = verdict::owner_unknown;
        out.why = fmt::format("its owner cannot be looked up ({})", found.error);
        return out;
    case peer_socket::state::absent:
        break;
    }
    if (is_loopback(peer.addr)) {
        out.what = verdict::owner_unknown;
        out.why = "a loopback peer whose socket is not in this network namespace";
        return out;
    }
    if (std::none_of(p.remotes.begin(), p.remotes.end(), [&](const rib::prefix& r) { return r.contains(peer.addr); })) {
        out.what = verdict::address_refused;
        out.why = fmt::format("{} is not in fpm.allow-address", to_string(out.who));
    }
    return out;
}

}  // namespace fpm
