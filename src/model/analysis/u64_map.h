#pragma once
// A flat hash map from 64-bit keys to 32-bit values.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace npuscope {

// A map from 64-bit keys to 32-bit values: open addressing with linear probing over one flat
// array, for the rules that look up millions of keys (task signatures, window hashes).
class U64Map {
public:
    explicit U64Map(std::size_t expected = 16) { rehash(capacityFor(expected)); }
    // The value of `key`, inserting `init` when absent; `inserted` says which.
    std::uint32_t& tryEmplace(std::uint64_t key, std::uint32_t init, bool* inserted = nullptr)
    {
        if ((m_size + 1) * 4 > m_slots.size() * 3)
            rehash(m_slots.size() * 2);
        Slot* s = probe(key);
        const bool fresh = !s->used;
        if (fresh) {
            *s = Slot{key, init, 1};
            ++m_size;
        }
        if (inserted)
            *inserted = fresh;
        return s->value;
    }
    // The value of `key`, computed by make() the first time it is asked for (make() may use
    // this map: nothing of it is held across the call).
    template <typename Make>
    std::uint32_t memo(std::uint64_t key, Make&& make)
    {
        if (const std::uint32_t* v = find(key))
            return *v;
        const auto v = static_cast<std::uint32_t>(make());
        tryEmplace(key, v);
        return v;
    }
    const std::uint32_t* find(std::uint64_t key) const
    {
        const Slot* s = const_cast<U64Map*>(this)->probe(key);
        return s->used ? &s->value : nullptr;
    }
    std::size_t size() const { return m_size; }

private:
    struct Slot {
        std::uint64_t key = 0;
        std::uint32_t value = 0, used = 0;
    };
    static std::size_t capacityFor(std::size_t n)
    {
        std::size_t c = 16;
        while (c * 3 < n * 4)
            c *= 2;
        return c;
    }
    static std::uint64_t mix(std::uint64_t x)
    {
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        return x;
    }
    Slot* probe(std::uint64_t key)
    {
        const std::size_t mask = m_slots.size() - 1;
        for (std::size_t i = mix(key) & mask;; i = (i + 1) & mask)
            if (!m_slots[i].used || m_slots[i].key == key)
                return &m_slots[i];
    }
    void rehash(std::size_t capacity)
    {
        std::vector<Slot> old(capacity);
        old.swap(m_slots);
        for (const Slot& s : old)
            if (s.used)
                *probe(s.key) = s;
    }
    std::vector<Slot> m_slots;
    std::size_t m_size = 0;
};

} // namespace npuscope
