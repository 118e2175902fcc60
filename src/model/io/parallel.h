#pragma once
// Runs independent pieces of work on the machine's cores (no Qt).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace npuscope {

// Calls fn(i) for every i in 0..n-1, each once, on up to `threads` threads (0: one per core),
// this one included; returns when all are done. Indices are handed out in order, one at a time.
// When no more threads can be started, the ones running do the rest.
template <typename Fn>
void parallelFor(std::size_t n, unsigned threads, Fn&& fn)
{
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i = next++; i < n; i = next++)
            fn(i);
    };
    if (threads == 0)
        threads = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t workers = std::min<std::size_t>(n, threads);
    std::vector<std::thread> pool;
    for (std::size_t k = 1; k < workers; ++k) {
        try {
            pool.emplace_back(work);
        } catch (const std::system_error&) {
            break;
        }
    }
    work();
    for (auto& t : pool)
        t.join();
}

} // namespace npuscope
