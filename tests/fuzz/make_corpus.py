#!/usr/bin/env python3
"""Cut the FPM capture streams into single-frame seeds for fpm_frame_fuzz.

Run once from anywhere; it rewrites tests/fuzz/corpus/fpm_frame/ from the fixture captures
(tests/fixtures/frr8, tests/fixtures/frr10). Frames of the same shape (message types, route
family/type, attribute types, nested encap attribute types) keep only the first one seen, so the
corpus stays small while covering every form zebra sent. No capture holds the SONiC dialect or
the legacy protobuf encoding, so a few frames of those are built here from fpm-protocol.md §3/§4.
Seed names are the SHA-1 of the bytes.
"""
import hashlib
import pathlib
import struct
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "tests/fixtures/frr8", ROOT / "tests/fixtures/frr10"]
OUT = ROOT / "tests/fuzz/corpus/fpm_frame"


def frames(stream):
    off = 0
    while off + 4 <= len(stream):
        version, ftype, length = struct.unpack_from("!BBH", stream, off)
        if version != 1 or ftype not in (1, 2) or length < 4 or off + length > len(stream):
            raise ValueError(f"bad FPM header at byte {off}")
        yield stream[off:off + length]
        off += length
    if off != len(stream):
        raise ValueError("stream ends inside a frame")


def attr_types(buf, depth=0):
    """Attribute types of a netlink attribute area, nests (NLA_F_NESTED) opened once."""
    out = []
    off = 0
    while off + 4 <= len(buf):
        alen, atype = struct.unpack_from("<HH", buf, off)
        if alen < 4 or off + alen > len(buf):
            break
        out.append(atype & 0x3FFF)
        if atype & 0x8000 and depth < 2:
            out.append(tuple(attr_types(buf[off + 4:off + alen], depth + 1)))
        off += (alen + 3) & ~3
    return out


def shape(frame):
    sig = [frame[1]]
    payload = frame[4:]
    off = 0
    while off + 16 <= len(payload):
        nlen, ntype = struct.unpack_from("<IH", payload, off)
        if nlen < 16 or off + nlen > len(payload):
            break
        body = payload[off + 16:off + nlen]
        if ntype in (24, 25):
            fixed = 12
            head = (body[0], body[7], body[4] == 0) if len(body) >= 12 else ()
        elif ntype in (104, 105):
            fixed = 8
            head = (body[0],) if len(body) >= 8 else ()
        else:
            fixed, head = 0, ()
        sig.append((ntype, head, tuple(attr_types(body[fixed:]))))
        off += (nlen + 3) & ~3
    return repr(sig)


def attr(atype, payload):
    a = struct.pack("<HH", 4 + len(payload), atype) + payload
    return a + b"\0" * (-len(a) % 4)


def nlmsg(ntype, body, flags=0x401):
    m = struct.pack("<IHHII", 16 + len(body), ntype, flags, 0, 0) + body
    return m + b"\0" * (-len(m) % 4)


def fpm(payload, ftype=1):
    return struct.pack("!BBH", 1, ftype, 4 + len(payload)) + payload


def rtmsg(family, dst_len, table, protocol, rtype):
    return struct.pack("<BBBBBBBBI", family, dst_len, 0, 0, table, protocol, 0, rtype, 0)


def pb_varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def pb(field, value):
    """One protobuf field: int -> varint, bytes -> length-delimited."""
    if isinstance(value, int):
        return pb_varint(field << 3) + pb_varint(value)
    return pb_varint(field << 3 | 2) + pb_varint(len(value)) + value


SID = bytes.fromhex("fcbbbbbb000100000000000000000000")


def synthetic():
    fmt = attr(0x8002, attr(1, b"\x20") + attr(2, b"\x10") + attr(3, b"\x10") + attr(4, b"\x00"))
    yield fpm(nlmsg(1000, rtmsg(10, 64, 0, 186, 1) + attr(1, SID) + fmt + attr(3, struct.pack("<I", 9))
                    + attr(4, b"Vrf1\0")))                                   # SONiC uDT46-style local SID
    yield fpm(nlmsg(1000, rtmsg(10, 64, 0, 186, 1) + attr(1, SID) + fmt + attr(3, struct.pack("<I", 15))
                    + attr(5, bytes.fromhex("fc000001000000000000000000000002")) + attr(12, b"Ethernet0\0")))
    yield fpm(nlmsg(1001, rtmsg(10, 64, 0, 186, 0) + attr(1, SID) + fmt))
    vpn = attr(0x8016, attr(1, bytes.fromhex("fc000002000000000000000000000100"))
               + attr(2, bytes.fromhex("fc000001000000000000000000000001")))
    yield fpm(nlmsg(24, rtmsg(2, 24, 5, 186, 1) + attr(1, bytes([10, 2, 2, 0])) + attr(21, struct.pack("<H", 101))
                    + vpn))                                                  # SONiC SRv6 VPN route (no NHG)
    yield fpm(nlmsg(3000, rtmsg(2, 24, 5, 186, 1) + attr(1, bytes([10, 2, 2, 0])) + attr(21, struct.pack("<H", 101))
                    + attr(0x8016, attr(3, struct.pack("<I", 7)) + attr(4, struct.pack("<I", 0)))))
    yield fpm(nlmsg(2000, struct.pack("<BBBBI", 10, 0, 11, 0, 0) + attr(1, struct.pack("<I", 7))
                    + attr(6, bytes.fromhex("fc000001000000000000000000000002")) + attr(5, struct.pack("<I", 3))))
    # protobuf: fpm.Message{type ADD_ROUTE, add_route{vrf 0, IPV4, UNICAST, 192.0.2.0/24, STATIC,
    # metric 0, nexthop{if_id 3, v4 10.0.1.2}}}, then DELETE_ROUTE of the same key.
    key = pb(1, pb(1, 24) + pb(2, bytes([192, 0, 2])))
    nh = pb(2, pb(1, 3)) + pb(3, pb(1, b"\x0d" + struct.pack("<I", 0x0A000102)))
    add = pb(1, 0) + pb(2, 1) + pb(3, 1) + pb(4, key) + pb(5, 1) + pb(6, 4) + pb(8, 0) + pb(9, nh)
    yield fpm(pb(1, 1) + pb(2, add), ftype=2)
    yield fpm(pb(1, 2) + pb(3, pb(1, 0) + pb(2, 1) + pb(3, 1) + pb(4, key)), ftype=2)
    # IPv6 SRv6 VPN route with its SID and encap source; SRv6LocalSID uDT46 / uA / delete.
    v6 = lambda a: pb(1, bytes.fromhex(a))
    key6 = pb(1, pb(1, 48) + pb(2, bytes.fromhex("20010db80100")))
    nh6 = pb(2, pb(1, 3)) + pb(3, pb(2, v6("fc000001000000000000000000000002")))
    add6 = (pb(1, 5) + pb(2, 2) + pb(3, 1) + pb(4, key6) + pb(6, 9) + pb(8, 20) + pb(9, nh6)
            + pb(10, v6("fc000001000000000000000000000001")) + pb(11, v6("fc000002000000000000000000000100")))
    yield fpm(pb(1, 1) + pb(2, add6), ftype=2)
    sid_fmt = pb(2, pb(1, 32) + pb(2, 16) + pb(3, 16) + pb(4, 0))
    yield fpm(pb(1, 3) + pb(4, pb(1, v6(SID.hex())) + sid_fmt + pb(16, pb(1, 5))), ftype=2)
    yield fpm(pb(1, 3) + pb(4, pb(1, v6(SID.hex())) + sid_fmt + pb(13, pb(1, nh6))), ftype=2)
    yield fpm(pb(1, 4) + pb(4, pb(1, v6(SID.hex()))), ftype=2)
    # SONiC SID list: RTA_TABLE = segment count, RTA_ENCAP (101) {NAME, LEN, [{index, type, addr}]}.
    segs = b"".join(struct.pack("<II", i, 10) + bytes.fromhex(a) for i, a in
                    enumerate(["fc000002000000000000000000000001", "fc000003000000000000000000000001"]))
    lst = attr(5, b"sl1\0") + attr(6, struct.pack("<I", 2)) + attr(7, segs)
    yield fpm(nlmsg(4000, rtmsg(10, 0, 0, 186, 1) + attr(15, struct.pack("<I", 2))
                    + attr(21, struct.pack("<H", 101)) + attr(0x8016, lst)))
    yield fpm(nlmsg(4001, rtmsg(10, 0, 0, 186, 0) + attr(21, struct.pack("<H", 101))
                    + attr(0x8016, attr(5, b"sl1\0"))))


def main():
    seen = set()
    seeds = {hashlib.sha1(f).hexdigest(): f for f in synthetic()}
    for src in SOURCES:
        for path in sorted(src.rglob("*.bin")):
            for f in frames(path.read_bytes()):
                key = shape(f)
                if key in seen:
                    continue
                seen.add(key)
                seeds[hashlib.sha1(f).hexdigest()] = f
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.iterdir():
        old.unlink()
    for name, data in sorted(seeds.items()):
        (OUT / name).write_bytes(data)
    print(f"{len(seeds)} seeds in {OUT.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
