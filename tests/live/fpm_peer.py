#!/usr/bin/env python3
"""Hostile FPM peers for tests/live/fpm_admission_test.sh.

  fpm_peer.py HOST PORT silent          connect, send nothing, hold the connection
  fpm_peer.py HOST PORT dribble         one valid frame (a netlink NLMSG_NOOP), then one byte
                                        a second of a frame that never completes
  fpm_peer.py HOST PORT junk            one well-framed FPM frame of junk (issue 36's reproducer),
                                        then wait for the server to close; prints "closed" or "open"
  fpm_peer.py HOST PORT probe N         connect and close N times (a port scan, a health check)
  fpm_peer.py HOST PORT replay < FILE   send FILE (an FPM capture, on stdin: the peer's user
                                        need not be able to open it), then wait for the server
                                        to close; prints "closed" or "open" after 10 s

silent and dribble run until killed (or until the server closes: exit 0, "closed" on stdout).
"""
import select
import socket
import struct
import sys
import time


def closed(s, timeout):
    """True once the server closed the connection within timeout seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select([s], [], [], max(0.0, end - time.monotonic()))
        if r:
            try:
                if not s.recv(4096):
                    return True
            except OSError:
                return True
    return False


def main():
    host, port, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if mode == "probe":
        for _ in range(int(sys.argv[4])):
            socket.create_connection((host, port), timeout=5).close()
        print("done", flush=True)
        return 0
    s = socket.create_connection((host, port), timeout=5)
    s.settimeout(None)
    if mode == "replay":
        data = sys.stdin.buffer.read()
        try:
            s.sendall(data)
        except OSError:
            pass  # closed under our feet: that is the answer too
        print("closed" if closed(s, 10) else "open", flush=True)
        return 0
    if mode == "junk":
        s.sendall(b"\x01\x01\x00\x14" + bytes(range(0x40, 0x50)))
        print("closed" if closed(s, 10) else "open", flush=True)
        return 0
    if mode == "dribble":
        noop = struct.pack("=IHHII", 16, 1, 0, 0, 0)  # nlmsghdr: NLMSG_NOOP
        s.sendall(struct.pack("!BBH", 1, 1, 4 + len(noop)) + noop)
        s.sendall(struct.pack("!BBH", 1, 1, 4096))  # a 4 KiB frame, a byte a second
        while True:
            try:
                s.sendall(b"\xab")
            except OSError:
                break
            if closed(s, 1.0):
                break
    else:
        closed(s, 1e9)
    print("closed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
