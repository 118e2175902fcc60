#pragma once
// Runs one measurement in a forked child process, so each has a fresh heap and its own peak RSS
// and one cannot warm another's allocator. The child times `fn`, reads its peak RSS and sends the
// result back through a pipe (`fn` may set `seconds` itself, to time only part of its work).
// M is trivially copyable with fields `double seconds`,
// `long peakRssKb` and `char error[256]`.
//
// Before the clock starts, the child gives back the free heap it inherited. Its pages are shared
// with the parent, so reusing them costs a copy-on-write fault per 4 KiB page, and they stay
// 4 KiB pages: a load in the child would be measured slower than the same load in a fresh
// process.
#include "model/io/memory_budget.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <type_traits>

namespace npuscope::bench {

template <typename M, typename Fn>
M runInChild(Fn&& fn)
{
    static_assert(std::is_trivially_copyable_v<M>);
    M m{};
    int fds[2];
    if (pipe(fds) != 0) {
        std::snprintf(m.error, sizeof m.error, "pipe: %s", std::strerror(errno));
        return m;
    }
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        releaseFreeHeap();
        M r{};
        const auto t0 = std::chrono::steady_clock::now();
        fn(r);
        if (r.seconds == 0) // else `fn` timed what counts itself
            r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        rusage ru{};
        getrusage(RUSAGE_SELF, &ru);
        r.peakRssKb = ru.ru_maxrss;
        const ssize_t n = write(fds[1], &r, sizeof r);
        _exit(n == static_cast<ssize_t>(sizeof r) ? 0 : 1);
    }
    close(fds[1]);
    if (pid < 0) {
        std::snprintf(m.error, sizeof m.error, "fork: %s", std::strerror(errno));
        close(fds[0]);
        return m;
    }
    const ssize_t n = read(fds[0], &m, sizeof m);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (n != static_cast<ssize_t>(sizeof m)) {
        m = M{};
        std::snprintf(m.error, sizeof m.error, "child process failed (status %d)", status);
    }
    return m;
}

} // namespace npuscope::bench
