#include "model/store/string_pool.h"

#include <algorithm>
#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace npuscope {

namespace {
constexpr std::size_t kBlockBytes = 256 * 1024;
constexpr std::size_t kOwnBlockBytes = 16 * 1024; // longer strings get a block of their own

// A big pool's index and views are read at random, one cache miss each; on 4 KB pages each miss
// also walks the page tables (a TLB miss). Asks for 2 MB pages over the part of [p, p + bytes)
// they can cover; call before the memory is first written. A hint: ignored where unsupported.
void adviseHugePages(const void* p, std::size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
    if (bytes < 2 * kHuge)
        return;
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t begin = (at + kHuge - 1) & ~(kHuge - 1), end = (at + bytes) & ~(kHuge - 1);
    if (end > begin)
        ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}
} // namespace

StringPool::StringPool()
{
    m_slots.resize(1024);
    m_recent.resize(std::size_t(1) << kRecentBits);
    intern(std::string_view());
}

StringPool::StringPool(const StringPool& other) : StringPool()
{
    *this = other;
}

StringPool& StringPool::operator=(const StringPool& other)
{
    if (this == &other)
        return *this;
    StringPool copy;
    copy.m_views.reserve(other.m_views.size());
    for (std::size_t i = 1; i < other.m_views.size(); ++i) {
        // Ids are kept: the other pool holds each string once, in id order.
        const std::string_view s = other.m_views[i];
        copy.m_views.emplace_back(copy.store(s), s.size());
        copy.insertSlot(tagOf(s), static_cast<std::uint32_t>(i));
        if (copy.m_views.size() * 2 > copy.m_slots.size())
            copy.grow();
    }
    copy.m_cutStrings = other.m_cutStrings;
    *this = std::move(copy);
    return *this;
}

const char* StringPool::store(std::string_view s)
{
    m_textBytes += s.size();
    if (s.empty())
        return "";
    if (s.size() >= kOwnBlockBytes) {
        // The current block (m_cursor) stays where it is: blocks never move.
        auto& block = m_blocks.emplace_back(new char[s.size()]);
        std::memcpy(block.get(), s.data(), s.size());
        return block.get();
    }
    if (m_left < s.size()) {
        m_blocks.emplace_back(new char[kBlockBytes]);
        m_cursor = m_blocks.back().get();
        m_left = kBlockBytes;
    }
    char* at = m_cursor;
    std::memcpy(at, s.data(), s.size());
    m_cursor += s.size();
    m_left -= s.size();
    return at;
}

void StringPool::insertSlot(std::uint32_t tag, std::uint32_t id)
{
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t i = tag & mask;; i = (i + 1) & mask) {
        if (m_slots[i].id == 0) {
            m_slots[i] = Slot{tag, id + 1};
            return;
        }
    }
}

void StringPool::grow()
{
    const std::size_t slots = m_slots.size() * 2;
    std::vector<Slot> old;
    old.reserve(slots);
    adviseHugePages(old.data(), slots * sizeof(Slot));
    old.resize(slots);
    old.swap(m_slots);
    // Room for the views until the next growth (at half the slots), on 2 MB pages as well.
    if (m_views.capacity() < slots / 2) {
        std::vector<std::string_view> views;
        views.reserve(slots / 2);
        adviseHugePages(views.data(), slots / 2 * sizeof(std::string_view));
        views.assign(m_views.begin(), m_views.end());
        m_views.swap(views);
    }
    // The slot's position comes from its tag: growing reads no string.
    for (const Slot& s : old)
        if (s.id != 0)
            insertSlot(s.tag, s.id - 1);
}

std::string_view StringPool::clip(std::string_view s)
{
    if (s.size() <= kMaxTextBytes)
        return s;
    std::size_t n = kMaxTextBytes;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) // not inside a character
        --n;
    return s.substr(0, n);
}

NameId StringPool::intern(std::string_view s)
{
    if (m_slots.empty()) // a moved-from pool starts over
        *this = StringPool();
    if (s.size() > kMaxTextBytes) {
        s = clip(s);
        ++m_cutStrings;
    }
    const std::uint32_t tag = tagOf(s);
    Recent& recent = m_recent[tag >> (32 - kRecentBits)];
    if (recent.text && recent.size == s.size() && (s.empty() || std::memcmp(recent.text, s.data(), s.size()) == 0))
        return NameId(recent.id);
    const std::size_t mask = m_slots.size() - 1;
    std::size_t i = tag & mask;
    for (;; i = (i + 1) & mask) {
        const Slot slot = m_slots[i];
        if (slot.id == 0)
            break;
        if (slot.tag == tag) {
            const std::string_view v = m_views[slot.id - 1];
            if (v.size() == s.size() && (s.empty() || std::memcmp(v.data(), s.data(), s.size()) == 0)) {
                recent = Recent{v.data(), static_cast<std::uint32_t>(v.size()), slot.id - 1};
                return NameId(slot.id - 1);
            }
        }
    }
    const auto id = static_cast<std::uint32_t>(m_views.size());
    m_views.emplace_back(store(s), s.size());
    recent = Recent{m_views.back().data(), static_cast<std::uint32_t>(s.size()), id};
    m_slots[i] = Slot{tag, id + 1};
    if (m_views.size() * 2 > m_slots.size())
        grow();
    return NameId(id);
}

NameId StringPool::find(std::string_view s) const
{
    if (m_slots.empty())
        return NameId();
    const std::uint32_t tag = tagOf(s);
    const std::size_t mask = m_slots.size() - 1;
    for (std::size_t i = tag & mask;; i = (i + 1) & mask) {
        const Slot slot = m_slots[i];
        if (slot.id == 0)
            return NameId();
        if (slot.tag == tag) {
            const std::string_view v = m_views[slot.id - 1];
            if (v.size() == s.size() && (s.empty() || std::memcmp(v.data(), s.data(), s.size()) == 0))
                return NameId(slot.id - 1);
        }
    }
}

void StringPool::truncate(std::size_t count)
{
    count = std::max<std::size_t>(count, 1);
    if (count >= m_views.size())
        return;
    m_views.resize(count);
    std::fill(m_slots.begin(), m_slots.end(), Slot{});
    for (std::size_t id = 0; id < m_views.size(); ++id)
        insertSlot(tagOf(m_views[id]), static_cast<std::uint32_t>(id));
    std::fill(m_recent.begin(), m_recent.end(), Recent{});
}

std::size_t StringPool::bytes() const
{
    return m_textBytes + m_views.capacity() * sizeof(std::string_view) + m_slots.size() * sizeof(Slot);
}

} // namespace npuscope
