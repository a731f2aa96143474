// Published-block allocation (fib/datapath/mem.hh): blocks are cache-line aligned, counted per
// kind, poisoned when freed, and (outside sanitizer builds) a freed block is what the next
// allocation of its size class (or of one of the three classes below it) gets, from the same
// 2 MiB slab as its neighbours.
#include <gtest/gtest.h>

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <vector>

#include "fib/datapath/mem.hh"

namespace fib {
namespace SRV6D_UNITY_ID {

TEST(mem, blocks_are_aligned_counted_and_reused_by_size_class) {
    const int64_t bytes0 = memory().bytes[static_cast<size_t>(mem_kind::lpm4)].load();
    std::vector<void*> blocks;
    for (size_t size : {1u, 64u, 65u, 700u, 4096u, 65536u, 65537u}) {
        void* p = alloc_block(mem_kind::lpm4, size);
        ASSERT_NE(p, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << size;
        std::memset(p, 0x11, size);  // the whole block is writable
        blocks.push_back(p);
    }
    EXPECT_EQ(memory().bytes[static_cast<size_t>(mem_kind::lpm4)].load() - bytes0,
              int64_t{1 + 64 + 65 + 700 + 4096 + 65536 + 65537});
    free_block(mem_kind::lpm4, blocks[3], 700);
    void* again = alloc_block(mem_kind::lpm4, 690);  // same 64-byte class as 700
    if (block_pool_enabled) {
        EXPECT_EQ(again, blocks[3]) << "a freed block is the next one of its class";
    }
    blocks[3] = again;
    const size_t sizes[] = {1, 64, 65, 690, 4096, 65536, 65537};
    for (size_t i = 0; i < blocks.size(); ++i)
        free_block(mem_kind::lpm4, blocks[i], sizes[i]);
    EXPECT_EQ(memory().bytes[static_cast<size_t>(mem_kind::lpm4)].load(), bytes0);
}

TEST(mem, many_blocks_span_several_slabs_and_come_back) {
    // 3 000 blocks of 1 KiB: more than one 2 MiB slab; each one distinct and writable.
    std::vector<char*> blocks;
    for (int i = 0; i < 3000; ++i) {
        auto* p = static_cast<char*>(alloc_block(mem_kind::lpm6, 1024));
        std::memset(p, i & 0xff, 1024);
        blocks.push_back(p);
    }
    for (int i = 0; i < 3000; ++i)
        ASSERT_EQ(static_cast<unsigned char>(blocks[static_cast<size_t>(i)][1023]), static_cast<unsigned>(i & 0xff));
    const int64_t pooled0 = memory().pooled_bytes.load();
    for (char* p : blocks)
        free_block(mem_kind::lpm6, p, 1024);
    if (block_pool_enabled) {
        EXPECT_EQ(memory().pooled_bytes.load() - pooled0, int64_t{3000 * 1024});
    }
    // Allocated again, they are the same blocks (no new slab).
    std::vector<char*> back;
    for (int i = 0; i < 3000; ++i)
        back.push_back(static_cast<char*>(alloc_block(mem_kind::lpm6, 1024)));
    if (block_pool_enabled) {
        std::sort(blocks.begin(), blocks.end());
        std::sort(back.begin(), back.end());
        EXPECT_EQ(back, blocks);
    }
    for (char* p : back)
        free_block(mem_kind::lpm6, p, 1024);
}

TEST(mem, an_empty_class_takes_a_free_block_at_most_three_classes_larger) {
    // Sizes no other test uses (their classes start empty): 40 000 bytes is class 624.
    void* big = alloc_block(mem_kind::lpm6, 40000 + 2 * 64);  // class 626
    std::memset(big, 1, 40000 + 2 * 64);
    free_block(mem_kind::lpm6, big, 40000 + 2 * 64);
    void* got = alloc_block(mem_kind::lpm6, 40000);  // classes 624 and 625 empty: 626 serves it
    if (block_pool_enabled) {
        EXPECT_EQ(got, big) << "a republished chunk a few intervals smaller reuses the old block";
    }
    std::memset(got, 2, 40000);
    free_block(mem_kind::lpm6, got, 40000);  // back as class 624, the size it was asked for
    void* far = alloc_block(mem_kind::lpm6, 40000 - 4 * 64);  // class 620: 624 is too far above
    if (block_pool_enabled) {
        EXPECT_NE(far, got) << "a block four classes larger is not cut down";
    }
    void* again = alloc_block(mem_kind::lpm6, 40000);
    if (block_pool_enabled) {
        EXPECT_EQ(again, got);
    }
    free_block(mem_kind::lpm6, far, 40000 - 4 * 64);
    free_block(mem_kind::lpm6, again, 40000);
}

}  // namespace
}  // namespace fib
