// Waiting on a condition instead of sleeping a guessed time: a test asserts what it waited for,
// and a slow (loaded, sanitized) run only takes longer, up to the bound.
#pragma once

#include <chrono>
#include <thread>

namespace test_support {

// Polls `cond` every millisecond until it holds (true) or `bound` has passed (false).
template <class Cond>
bool eventually(Cond&& cond, std::chrono::milliseconds bound = std::chrono::seconds(10)) {
    const auto end = std::chrono::steady_clock::now() + bound;
    while (!cond()) {
        if (std::chrono::steady_clock::now() >= end)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

}  // namespace test_support
