// The QSBR domain: retired objects are freed only after every online reader reported a
// quiescent state following the retirement; offline readers do not hold anything up.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "fib/datapath/rcu.hh"

namespace fib {
namespace SRV6D_UNITY_ID {

struct tracked {
    static inline int freed = 0;
    static void destroy(const tracked* t) noexcept {
        ++freed;
        delete t;
    }
};

TEST(qsbr, reclaim_waits_for_online_readers) {
    tracked::freed = 0;
    qsbr_domain d(2);
    qsbr_reader r0(d, 0);
    qsbr_reader r1(d, 1);
    retire_batch b;
    b.add(new tracked);
    b.add(new tracked);
    d.retire(std::move(b));
    EXPECT_EQ(d.reclaim(), 0u) << "both readers may still hold the objects";
    r0.quiescent();
    EXPECT_EQ(d.reclaim(), 0u) << "r1 has not passed a quiescent state";
    r1.offline();
    EXPECT_EQ(d.reclaim(), 2u) << "an offline reader holds nothing";
    EXPECT_EQ(tracked::freed, 2);
    EXPECT_EQ(d.pending_objects(), 0u);

    // A batch retired after r0's last quiescent state waits for its next one.
    r1.online();
    retire_batch c;
    c.add(new tracked);
    d.retire(std::move(c));
    r1.quiescent();
    EXPECT_EQ(d.reclaim(), 0u);
    r0.quiescent();
    EXPECT_EQ(d.reclaim(), 1u);
    EXPECT_EQ(d.freed_objects(), 3u);
}

TEST(qsbr, batches_are_freed_in_order_and_synchronize_waits) {
    tracked::freed = 0;
    qsbr_domain d(1);
    std::atomic<bool> stop{false};
    std::thread reader([&] {
        qsbr_reader r(d, 0);
        while (!stop.load(std::memory_order_relaxed))
            r.quiescent();
    });
    for (int i = 0; i < 100; ++i) {
        retire_batch b;
        b.add(new tracked);
        d.retire(std::move(b));
        d.reclaim();
    }
    d.synchronize();
    EXPECT_EQ(tracked::freed, 100);
    EXPECT_EQ(d.pending_batches(), 0u);
    stop = true;
    reader.join();
}

TEST(qsbr, reader_ids_are_bounded) {
    qsbr_domain d(2);
    EXPECT_THROW(qsbr_reader(d, 2), std::invalid_argument);
}

}  // namespace
}  // namespace fib
