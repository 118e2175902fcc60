#include "model/io/mapped_file.h"

#include <boost/interprocess/exceptions.hpp>
#include <boost/interprocess/file_mapping.hpp>
#include <boost/interprocess/mapped_region.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

namespace npuscope {

namespace bip = boost::interprocess;

// Files up to this size are read into memory instead of mapped: a mapped file that another
// process truncates while it is scanned raises SIGBUS, a read one just ends early. Side files and
// small traces are below it; the copy costs at most 8 MiB per file being read.
constexpr off_t kReadLimit = 8 << 20;
constexpr std::size_t kReadSlack = 64; // zeros after a read file (readableAfterEnd)

namespace {

// Mapped regions the SIGBUS handler may repair. A fixed table of lock-free slots: the handler
// only reads atomics and calls mmap. More concurrent mappings than slots just go unguarded.
struct GuardSlot {
    std::atomic<bool> used{false};
    std::atomic<std::uintptr_t> begin{0}; // 0 while the slot is being filled or emptied
    std::atomic<std::uintptr_t> end{0};   // page-rounded end of the mapping
    std::atomic<std::int64_t> vanishedAt{-1};
};
constexpr int kGuardSlots = 256;
GuardSlot g_guards[kGuardSlots];
struct sigaction g_previousSigbus {};

std::uintptr_t pageSize()
{
    static const auto size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    return size;
}

// SIGBUS on a guarded mapping means its file shrank: map zero pages over the rest of the region
// (from the faulting page on) and return, so the faulting read is retried and sees zeros.
void onSigbus(int sig, siginfo_t* info, void* context)
{
    const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (GuardSlot& g : g_guards) {
        const std::uintptr_t begin = g.begin.load(std::memory_order_acquire);
        const std::uintptr_t end = g.end.load(std::memory_order_acquire);
        if (begin == 0 || addr < begin || addr >= end)
            continue;
        const std::uintptr_t page = addr & ~(pageSize() - 1);
        if (::mmap(reinterpret_cast<void*>(page), end - page, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0) == MAP_FAILED)
            break;
        const auto offset = static_cast<std::int64_t>(page - begin);
        std::int64_t seen = g.vanishedAt.load();
        while ((seen < 0 || offset < seen) && !g.vanishedAt.compare_exchange_weak(seen, offset)) {
        }
        return;
    }
    // Not a guarded mapping: behave as if this handler were not there.
    if (g_previousSigbus.sa_flags & SA_SIGINFO) {
        g_previousSigbus.sa_sigaction(sig, info, context);
    } else if (g_previousSigbus.sa_handler != SIG_DFL && g_previousSigbus.sa_handler != SIG_IGN) {
        g_previousSigbus.sa_handler(sig);
    } else {
        std::signal(SIGBUS, SIG_DFL); // the faulting access repeats and ends the process as usual
    }
}

void installSigbusHandler()
{
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction sa {};
        sa.sa_sigaction = onSigbus;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGBUS, &sa, &g_previousSigbus);
    });
}

GuardSlot* guardRegion(const void* address, std::size_t size)
{
    installSigbusHandler();
    for (GuardSlot& g : g_guards) {
        bool expected = false;
        if (!g.used.compare_exchange_strong(expected, true))
            continue;
        const auto begin = reinterpret_cast<std::uintptr_t>(address);
        g.vanishedAt.store(-1);
        g.end.store((begin + size + pageSize() - 1) & ~(pageSize() - 1), std::memory_order_release);
        g.begin.store(begin, std::memory_order_release);
        return &g;
    }
    return nullptr;
}

void releaseGuard(GuardSlot* g)
{
    g->begin.store(0, std::memory_order_release);
    g->end.store(0, std::memory_order_release);
    g->used.store(false, std::memory_order_release);
}

} // namespace

struct MappedFile::Impl {
    bip::file_mapping mapping;
    bip::mapped_region region;
    bool empty = true; // Boost throws when mapping 0 bytes: an empty file has no region
    std::string data;  // the bytes of a small file, read instead of mapped, then kReadSlack zeros
    std::size_t dataSize = 0;
    bool read = false;
    std::int64_t readShort = -1; // a read file that ended before its stat size: where
    GuardSlot* guard = nullptr;
    mutable std::uint64_t dropped = 0; // pages before this offset were given back
    mutable std::uint64_t mappedAhead = 0; // pages before this offset were asked for by mapAhead
    int fd = -1;                           // a mapped file's, for copyBytes()
    mutable std::atomic<std::int64_t> copiedShort{-1}; // the lowest offset copyBytes() could not read

    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl()
    {
        if (guard)
            releaseGuard(guard); // before the region's pages go away
        if (fd >= 0)
            ::close(fd);
    }
};

MappedFile::MappedFile(std::string path, std::unique_ptr<Impl> impl)
    : m_path(std::move(path)), m_impl(std::move(impl))
{
}

MappedFile::MappedFile(MappedFile&&) noexcept = default;
MappedFile& MappedFile::operator=(MappedFile&&) noexcept = default;
MappedFile::~MappedFile() = default;

std::string_view MappedFile::bytes() const
{
    if (m_impl && m_impl->read)
        return {m_impl->data.data(), m_impl->dataSize};
    if (!m_impl || m_impl->empty)
        return {};
    return {static_cast<const char*>(m_impl->region.get_address()), m_impl->region.get_size()};
}

std::size_t MappedFile::readableAfterEnd() const
{
    if (m_impl && m_impl->read)
        return m_impl->data.size() - m_impl->dataSize;
    if (!m_impl || m_impl->empty)
        return 0;
    // The kernel maps whole pages: the tail of the last one reads as zeros (and is guarded like
    // the rest when the file shrinks).
    return static_cast<std::size_t>((pageSize() - m_impl->region.get_size() % pageSize()) % pageSize());
}

void MappedFile::dropPagesBefore(std::uint64_t offset) const
{
    if (!m_impl || m_impl->read || m_impl->empty)
        return;
    const std::uint64_t end = std::min<std::uint64_t>(offset, size()) & ~std::uint64_t(pageSize() - 1);
    if (end <= m_impl->dropped)
        return;
    auto* base = static_cast<char*>(m_impl->region.get_address());
    ::madvise(base + m_impl->dropped, end - m_impl->dropped, MADV_DONTNEED);
    m_impl->dropped = end;
}

void MappedFile::mapAhead(std::uint64_t offset, std::uint64_t bytes) const
{
#if defined(MADV_POPULATE_READ)
    if (!m_impl || m_impl->read || m_impl->empty)
        return;
    const std::uint64_t page = pageSize();
    const std::uint64_t begin = std::max(offset, m_impl->mappedAhead) & ~(page - 1);
    const std::uint64_t end = std::min<std::uint64_t>(offset + bytes, size());
    if (end <= begin)
        return;
    auto* base = static_cast<char*>(m_impl->region.get_address());
    // A page past a shrunk file's end fails the call (EFAULT) instead of raising SIGBUS; the
    // reader then finds it as it does without this.
    ::madvise(base + begin, end - begin, MADV_POPULATE_READ);
    m_impl->mappedAhead = end;
#else
    (void)offset;
    (void)bytes;
#endif
}

bool MappedFile::mapped() const
{
    return m_impl && !m_impl->read && !m_impl->empty;
}

void MappedFile::copyBytes(std::uint64_t offset, char* to, std::size_t n) const
{
    const std::string_view all = bytes();
    std::size_t got = 0;
    if (mapped() && m_impl->fd >= 0) {
        while (got < n) {
            const ssize_t r = ::pread(m_impl->fd, to + got, n - got, static_cast<off_t>(offset + got));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            got += static_cast<std::size_t>(r);
        }
    } else if (offset < all.size()) {
        got = std::min<std::uint64_t>(n, all.size() - offset);
        std::memcpy(to, all.data() + offset, got);
    }
    if (got == n)
        return;
    std::memset(to + got, 0, n - got);
    if (!mapped() || offset + got >= all.size())
        return; // asked past the end: nothing went missing
    const auto at = static_cast<std::int64_t>(offset + got);
    std::int64_t seen = m_impl->copiedShort.load();
    while ((seen < 0 || at < seen) && !m_impl->copiedShort.compare_exchange_weak(seen, at)) {
    }
}

std::int64_t MappedFile::shrankAt() const
{
    std::int64_t at = m_impl ? m_impl->readShort : -1;
    if (m_impl && m_impl->guard)
        at = m_impl->guard->vanishedAt.load();
    if (const std::int64_t copied = m_impl ? m_impl->copiedShort.load() : -1; copied >= 0 && (at < 0 || copied < at))
        at = copied;
    struct stat st {};
    const auto mapped = static_cast<std::int64_t>(size());
    if (!(m_impl && m_impl->read) && ::stat(m_path.c_str(), &st) == 0 && st.st_size < mapped &&
        (at < 0 || st.st_size < at))
        at = st.st_size;
    return at;
}

std::optional<MappedFile> MappedFile::open(const std::string& path, std::string* error)
{
    auto fail = [&](const std::string& why) -> std::optional<MappedFile> {
        if (error)
            *error = "cannot open '" + path + "': " + why;
        return std::nullopt;
    };
    // stat first: it gives the errno text for a missing/unreadable path and tells an empty file
    // (which Boost refuses to map) or a directory apart before Boost is involved.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return fail(std::strerror(errno));
    if (S_ISDIR(st.st_mode))
        return fail(std::strerror(EISDIR));
    if (!S_ISREG(st.st_mode)) // a FIFO or device would block or never end
        return fail("not a regular file");
    auto impl = std::make_unique<Impl>();
    if (st.st_size <= kReadLimit) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return fail(std::strerror(errno));
        const auto want = static_cast<std::size_t>(st.st_size);
        impl->data.resize(want + kReadSlack); // zeros
        std::size_t got = 0;
        while (got < want) {
            const ssize_t n = ::read(fd, impl->data.data() + got, want - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                const int e = errno;
                ::close(fd);
                return fail(std::strerror(e));
            }
            if (n == 0)
                break; // shrank since stat: keep what is there
            got += static_cast<std::size_t>(n);
        }
        ::close(fd);
        if (got < want)
            impl->readShort = static_cast<std::int64_t>(got);
        impl->dataSize = got;
        impl->data.resize(got + kReadSlack); // what read() did not fill is still zeros
        impl->read = true;
        return MappedFile(path, std::move(impl));
    }
    try {
        impl->mapping = bip::file_mapping(path.c_str(), bip::read_only);
        if (st.st_size > 0) {
            impl->region = bip::mapped_region(impl->mapping, bip::read_only);
            impl->empty = impl->region.get_size() == 0;
            if (!impl->empty) {
                // Readers scan front to back once; tell the kernel so it reads ahead aggressively.
                ::madvise(impl->region.get_address(), impl->region.get_size(), MADV_SEQUENTIAL);
                impl->guard = guardRegion(impl->region.get_address(), impl->region.get_size());
                impl->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC); // -1: copyBytes() reads the mapping
            }
        }
    } catch (const bip::interprocess_exception& e) {
        const int native = e.get_native_error();
        return fail(native != 0 ? std::strerror(native) : e.what());
    }
    return MappedFile(path, std::move(impl));
}

} // namespace npuscope
