#include "fib/control/nh_table.hh"


namespace fib {

nh_table::nh_table(const compiled_nh* miss) : _miss(miss) {
    _slots.emplace_back();
    _slots.back().fill(_miss);
    _dirty.push_back(true);
}

nh_table::~nh_table() = default;

uint32_t nh_table::alloc() {
    uint32_t idx;
    if (!_free.empty()) {
        idx = _free.back();
        _free.pop_back();
    } else {
        idx = _next++;
    }
    const uint32_t page = idx >> nh_page_bits;
    while (_slots.size() <= page) {
        _slots.emplace_back();
        _slots.back().fill(_miss);
        _dirty.push_back(true);
    }
    ++_live;
    return idx;
}

void nh_table::set(uint32_t idx, const compiled_nh* obj, retire_batch& retired) {
    auto& slot = _slots[idx >> nh_page_bits][idx & (nh_page_slots - 1)];
    if (slot != _miss)
        retired.add(slot);
    slot = obj;
    _dirty[idx >> nh_page_bits] = true;
}

void nh_table::release(uint32_t idx, retire_batch& retired) {
    set(idx, _miss, retired);
    _free.push_back(idx);
    --_live;
}

const compiled_nh* nh_table::get(uint32_t idx) const {
    const uint32_t page = idx >> nh_page_bits;
    return page < _slots.size() ? _slots[page][idx & (nh_page_slots - 1)] : _miss;
}

const std::vector<const nh_page*>& nh_table::publish(retire_batch& retired) {
    _pages.resize(_slots.size(), nullptr);
    for (size_t i = 0; i < _slots.size(); ++i) {
        if (!_dirty[i] && _pages[i])
            continue;
        retired.add(_pages[i]);
        _pages[i] = nh_page::create(_slots[i]);
        _dirty[i] = false;
    }
    return _pages;
}

void nh_table::retire_all(retire_batch& retired) {
    for (auto& page : _slots)
        for (auto*& slot : page) {
            if (slot != _miss)
                retired.add(slot);
            slot = _miss;
        }
    for (auto*& p : _pages) {
        retired.add(p);
        p = nullptr;
    }
    std::fill(_dirty.begin(), _dirty.end(), true);
}

}  // namespace fib
