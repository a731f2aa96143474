// The flat LPM's life on the datapath side: freed after its grace period, checked. Built by
// fib/control/lpm_flat_build.cc.
#include "fib/datapath/lpm_flat.hh"

#include "fib/datapath/lpm_table.hh"
#include "fib/datapath/mem.hh"

namespace fib {

template <class K>
void lpm_flat<K>::destroy(const lpm_flat* f) noexcept {
    if (f)
        free_block(detail::lpm_mem_kind<K>(), const_cast<lpm_flat*>(f), f->bytes());
}

template <class K>
bool lpm_flat<K>::intact() const {
    return _magic == detail::lpm_flat_magic;
}

template class lpm_flat<uint32_t>;
template class lpm_flat<u128>;

}  // namespace fib
