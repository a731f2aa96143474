// What one publication makes unreachable: the objects the new snapshot no longer points to.
// They are freed together, after the grace period that starts when the new snapshot is stored.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace fib {

class retire_batch {
public:
    using free_fn = void (*)(void*);

    retire_batch() = default;
    retire_batch(retire_batch&&) noexcept = default;
    retire_batch& operator=(retire_batch&&) noexcept = default;
    retire_batch(const retire_batch&) = delete;
    retire_batch& operator=(const retire_batch&) = delete;
    ~retire_batch() { run(); }

    // T provides `static void destroy(const T*) noexcept`. Null is ignored.
    template <class T>
    void add(const T* p) {
        if (p)
            _items.emplace_back(const_cast<void*>(static_cast<const void*>(p)),
                                [](void* q) { T::destroy(static_cast<const T*>(q)); });
    }
    void append(retire_batch&& other) {
        _items.insert(_items.end(), other._items.begin(), other._items.end());
        other._items.clear();
    }
    // Frees everything now. Only the RCU domain calls this, after the grace period.
    void run() noexcept {
        for (auto& [p, fn] : _items)
            fn(p);
        _items.clear();
    }
    bool empty() const { return _items.empty(); }
    size_t size() const { return _items.size(); }

private:
    std::vector<std::pair<void*, free_fn>> _items;
};

}  // namespace fib
