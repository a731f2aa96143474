// libFuzzer target: an arbitrary byte stream from "zebra", cut into reads of varying size, through
// the framer and decode_frame, as the listener does it. Sanitizers catch out-of-bounds reads and
// UB; the checks below turn broken invariants of the decoded updates into crashes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <variant>
#include <vector>

#include "fpm/decoder.hh"
#include "fpm/framer.hh"
#include "fpm/protobuf_log.hh"
#include "util/log.hh"

namespace {

void check(bool ok) {
    if (!ok)
        __builtin_trap();
}

void check_path(const rib::nexthop& nh) {
    check(nh.weight >= 1);
    if (nh.seg6)
        check(!nh.seg6->segments.empty() || !nh.seg6->sidlist_name.empty());
}

void check_route(const rib::route& r) {
    check(r.key.dst.len <= rib::prefix::max_len(r.key.dst.af));
    check(r.key.src.len <= rib::prefix::max_len(r.key.src.af));
    for (const auto& nh : r.nexthops)
        check_path(nh);
}

void check_nexthop(const rib::nexthop_object& nh) {
    check(nh.id != 0);
    for (const auto& m : nh.group) {
        check(m.id != 0 && m.id != nh.id);
        check(m.weight >= 1);
    }
    if (nh.path)
        check_path(*nh.path);
}

void check_update(const fpm::update& u) {
    std::visit(
        [](const auto& b) {
            using T = std::decay_t<decltype(b)>;
            if constexpr (std::is_same_v<T, fpm::route_upsert>)
                check_route(b.route);
            else if constexpr (std::is_same_v<T, fpm::route_delete>)
                check(b.key.dst.len <= rib::prefix::max_len(b.key.dst.af));
            else if constexpr (std::is_same_v<T, fpm::nexthop_upsert> || std::is_same_v<T, fpm::pic_context_upsert>)
                check_nexthop(b.nh);
        },
        u.body);
}

// Read sizes come from a hash of the input, not from its bytes, so a seed (one captured frame)
// stays exactly the frame it is, and mutating any byte also reshuffles the reads.
struct chunker {
    uint64_t s;
    explicit chunker(std::span<const uint8_t> in) : s(1469598103934665603ull) {
        for (uint8_t b : in)
            s = (s ^ b) * 1099511628211ull;
        s |= 1;
    }
    size_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        switch (s % 4) {
        case 0: return 1;                     // byte by byte
        case 1: return 1 + (s >> 8) % 7;      // inside a header
        case 2: return 1 + (s >> 8) % 256;    // inside a frame
        default: return 1 + (s >> 8) % 70000; // several frames at once
        }
    }
};

}  // namespace

// Every bad input is reported at warn level; the fuzzer feeds nothing else. libprotobuf's own
// complaints go through the same log, as in srv6d.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
    util::set_level(util::level::error);
    fpm::route_protobuf_log();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::span<const uint8_t> in(data, size);
    fpm::framer framer;
    fpm::ingest_stats stats;
    fpm::decode_ctx ctx(stats);
    std::vector<fpm::update> out;
    chunker chunks(in);
    size_t off = 0;
    while (off < in.size()) {
        const size_t n = std::min(chunks.next(), in.size() - off);
        framer.feed(in.subspan(off, n));
        off += n;
        while (auto frame = framer.next()) {
            check(frame->size() >= fpm::fpm_header_size && frame->size() <= fpm::fpm_max_frame);
            check(frame->size() == (size_t{(*frame)[2]} << 8 | (*frame)[3]));
            out.clear();
            const uint64_t before = stats.updates;
            fpm::decode_frame(*frame, ctx, out);
            check(stats.updates - before == out.size());
            for (const auto& u : out)
                check_update(u);
        }
        if (framer.lost()) {
            // The listener would drop the connection; zebra reconnects and carries on.
            check(!framer.next());
            framer.reset();
        }
    }
    return 0;
}
