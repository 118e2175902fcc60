#pragma once
// Sorting and growing the columns of a large table while a cancel may come (no Qt).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace npuscope {

// How many rows a long pass handles between looks at a cancel flag: a few milliseconds.
inline constexpr std::size_t kRowsBetweenCancelChecks = std::size_t{1} << 16;

// True when a cancel flag is given and set.
inline bool isCancelled(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

// Sorts the row numbers [first, last) stably, as std::stable_sort does, calling `cancelled()`
// between steps: blocks of rows sorted on their own, then merged pairwise (ten million rows out
// of order take a second to sort in one go). False when cancelled, the rows then half sorted.
template <typename Less, typename Cancelled>
bool stableSortRows(std::uint32_t* first, std::uint32_t* last, Less less, Cancelled cancelled)
{
    const std::size_t n = static_cast<std::size_t>(last - first);
    const std::size_t block = kRowsBetweenCancelChecks;
    for (std::size_t from = 0; from < n; from += block) {
        if (cancelled())
            return false;
        std::stable_sort(first + from, first + std::min(n, from + block), less);
    }
    for (std::size_t width = block; width < n; width *= 2)
        for (std::size_t from = 0; from + width < n; from += 2 * width) {
            if (cancelled())
                return false;
            std::uint32_t* mid = first + from + width;
            if (less(*mid, *(mid - 1))) // rows mostly arrive in order: most neighbours need no merge
                std::inplace_merge(first + from, mid, first + std::min(n, from + 2 * width), less);
        }
    return true;
}

// As v.reserve(n), but the rows are moved over in steps, with `cancelled()` called between
// them: growing a column of a gigabyte copies it, longer than a cancel may take. False when
// cancelled, v then as it was.
template <typename T, typename Cancelled>
bool reserveRows(std::vector<T>& v, std::size_t n, Cancelled cancelled)
{
    if (n <= v.capacity())
        return true;
    std::vector<T> grown;
    grown.reserve(n);
    for (std::size_t from = 0; from < v.size(); from += kRowsBetweenCancelChecks) {
        if (cancelled())
            return false;
        const auto first = v.begin() + static_cast<std::ptrdiff_t>(from);
        const auto last = v.begin() + static_cast<std::ptrdiff_t>(std::min(v.size(), from + kRowsBetweenCancelChecks));
        grown.insert(grown.end(), std::make_move_iterator(first), std::make_move_iterator(last));
    }
    v.swap(grown);
    return true;
}

} // namespace npuscope
