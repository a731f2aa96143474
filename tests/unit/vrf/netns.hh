// Runs a check in a forked child inside a fresh network namespace, so tests can change kernel
// state (tunsrc, links) without touching the host. Needs root (unshare(CLONE_NEWNET)).
#pragma once

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>

namespace vrf::test {

inline bool is_root() { return geteuid() == 0; }

inline constexpr const char* needs_root =
    "skipped: this test needs root: it creates a network namespace (unshare(CLONE_NEWNET)) and changes kernel "
    "state there; run it as root, as CI does";

// `check` returns "" on success or what went wrong; the child sends it back through a pipe.
inline std::string in_fresh_netns(const std::function<std::string()>& check) {
    int fds[2];
    if (pipe(fds) != 0)
        return std::string("pipe: ") + std::strerror(errno);
    const pid_t pid = fork();
    if (pid < 0)
        return std::string("fork: ") + std::strerror(errno);
    if (pid == 0) {
        close(fds[0]);
        std::string r = unshare(CLONE_NEWNET) == 0 ? check() : std::string("unshare(CLONE_NEWNET): ") + std::strerror(errno);
        size_t off = 0;
        while (off < r.size()) {
            const ssize_t n = write(fds[1], r.data() + off, r.size() - off);
            if (n <= 0)
                break;
            off += static_cast<size_t>(n);
        }
        _exit(0);  // no gtest teardown in the child
    }
    close(fds[1]);
    std::string out;
    char buf[512];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0)
        out.append(buf, static_cast<size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        out += " [child died: status " + std::to_string(status) + "]";
    return out;
}

// Collects failures inside the child: CHECK-style, without gtest.
struct failures {
    std::string text;
    void expect(bool ok, const std::string& what) {
        if (!ok)
            text += (text.empty() ? "" : "; ") + what;
    }
};

inline int sh(const std::string& cmd) {
    const int rc = std::system((cmd + " >/dev/null 2>&1").c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace vrf::test
