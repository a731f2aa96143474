// udp_flood: sends small IPv6 packets as fast as one thread can for a given time (sendmmsg,
// 64 per call) and prints "packets cpu_ns tsc_hz": the sender's own CPU time (user + system, which
// includes the softirq work the kernel does in its context: veth hands packets over on the
// sending CPU), and the TSC rate measured over the run. Used by bench/kernel_bench.sh to measure the kernel's cost per packet.
//   udp_flood udp DST SECONDS      UDP datagrams (10-byte payload: 72-byte frames) to DST:9
//   udp_flood ip6ip6 SID DST SECONDS  raw IPv6 packets with next header 41 (an IPv6 packet,
//                                     UDP to DST, inside) to SID: the input of End.DT6
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
    int raw = argc == 5 && strcmp(argv[1], "ip6ip6") == 0;
    if (!raw && !(argc == 4 && strcmp(argv[1], "udp") == 0)) {
        fprintf(stderr, "usage: udp_flood udp DST SECONDS | ip6ip6 SID DST SECONDS\n");
        return 2;
    }
    struct sockaddr_in6 to = {.sin6_family = AF_INET6, .sin6_port = raw ? 0 : htons(9)};
    if (inet_pton(AF_INET6, argv[2], &to.sin6_addr) != 1)
        return 2;
    unsigned char pkt[64] = {0};
    size_t len = 10;
    int fd;
    if (raw) {
        fd = socket(AF_INET6, SOCK_RAW, IPPROTO_IPV6);
        struct in6_addr dst;
        if (inet_pton(AF_INET6, argv[3], &dst) != 1)
            return 2;
        // inner IPv6 header + UDP header + 10 bytes (checksum 0 is not checked on forwarding)
        pkt[0] = 0x60;
        pkt[5] = 18;
        pkt[6] = 17;
        pkt[7] = 64;
        pkt[8] = 0x20; pkt[9] = 0x01; pkt[10] = 0x0d; pkt[11] = 0xb8; pkt[23] = 1;
        memcpy(pkt + 24, &dst, 16);
        pkt[40] = 0x30; pkt[41] = 0x39; pkt[43] = 9; pkt[45] = 18;
        len = 58;
    } else {
        fd = socket(AF_INET6, SOCK_DGRAM, 0);
    }
    if (fd < 0 || connect(fd, (struct sockaddr*)&to, sizeof to) != 0) {
        perror("socket");
        return 1;
    }
    enum { batch = 64 };
    struct mmsghdr msgs[batch];
    struct iovec iov[batch];
    memset(msgs, 0, sizeof msgs);
    for (int i = 0; i < batch; ++i) {
        iov[i].iov_base = pkt;
        iov[i].iov_len = len;
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }
    const double secs = atof(argv[raw ? 4 : 3]);
    unsigned long long sent = 0;
    const double t0 = now(), end = t0 + secs;
    const unsigned long long c0 = __rdtsc();
    while (now() < end) {
        for (int k = 0; k < 64; ++k) {
            int n = sendmmsg(fd, msgs, batch, 0);
            if (n > 0)
                sent += (unsigned)n;
        }
    }
    const double t1 = now();
    const unsigned long long c1 = __rdtsc();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const unsigned long long ns = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
                                  (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
    printf("%llu %llu %.0f\n", sent, ns, (c1 - c0) / (t1 - t0));  // TSC Hz
    return 0;
}
