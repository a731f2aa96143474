#include "forward/control/tap_carrier.hh"

#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fwd {

namespace {

std::string sys_err(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

bool set_queue(int fd, short flags) {
    ifreq ifr{};
    ifr.ifr_flags = flags;
    return ::ioctl(fd, TUNSETQUEUE, &ifr) == 0;
}

}  // namespace

tap_carrier::~tap_carrier() {
    if (_fd >= 0)
        ::close(_fd);
}

bool tap_carrier::attach(std::string& err) {
    if (_fd >= 0) {
        if (set_queue(_fd, IFF_ATTACH_QUEUE))
            return true;
        err = sys_err("TUNSETQUEUE attach");
        return false;
    }
    if (_name.empty() || _name.size() >= IFNAMSIZ) {
        err = "no interface name";
        return false;
    }
    // TUNSETIFF creates a TAP of that name when there is none: never one nobody asked for.
    if (::if_nametoindex(_name.c_str()) == 0) {
        err = "no interface " + _name;
        return false;
    }
    const int fd = ::open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        err = sys_err("/dev/net/tun");
        return false;
    }
    ifreq ifr{};
    std::memcpy(ifr.ifr_name, _name.data(), _name.size());
    // The flags of the TAP net_tap made: a queue attaches only with the same multi-queue flag;
    // IFF_NO_PI of a queue added to an existing TAP changes nothing of the PMD's.
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE;
    if (::ioctl(fd, TUNSETIFF, &ifr) != 0) {
        err = sys_err("TUNSETIFF (a multi-queue TAP)");
        ::close(fd);
        return false;
    }
    _fd = fd;
    return true;
}

bool tap_carrier::set(bool up, std::string& err) {
    if (!attach(err))
        return false;
    int on = up ? 1 : 0;
    const bool ok = ::ioctl(_fd, TUNSETCARRIER, &on) == 0;
    if (!ok)
        err = sys_err("TUNSETCARRIER");
    if (!set_queue(_fd, IFF_DETACH_QUEUE) && ok) {
        // Attached, unread: it would take a share of the TAP's traffic. Let it go entirely.
        err = sys_err("TUNSETQUEUE detach");
        ::close(_fd);
        _fd = -1;
        return false;
    }
    return ok;
}

}  // namespace fwd
