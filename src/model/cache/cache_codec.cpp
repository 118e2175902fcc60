#include "model/cache/cache_codec.h"

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>

#include <unistd.h>

namespace npuscope::cache {

// Four independent scalar lanes: GCC's vectorizer would put them in one AVX register and
// emulate each 64-bit multiply with three 32-bit ones, which made the checksum 4x slower (the
// largest cost of reopening a cached session). The result is the same either way.
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
std::uint64_t checksum(const char* data, std::size_t n, std::uint64_t seed)
{
    constexpr std::uint64_t kMul = 0x9FB21C651E98DF25ull;
    std::uint64_t h[4] = {0x9E3779B97F4A7C15ull ^ seed, 0xC2B2AE3D27D4EB4Full + seed, 0x165667B19E3779F9ull ^ n,
                          0x27D4EB2F165667C5ull};
    auto mix = [](std::uint64_t x, std::uint64_t w) {
        x = (x ^ w) * kMul;
        return x ^ (x >> 29);
    };
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        std::uint64_t w[4];
        std::memcpy(w, data + i, 32);
        h[0] = mix(h[0], w[0]);
        h[1] = mix(h[1], w[1]);
        h[2] = mix(h[2], w[2]);
        h[3] = mix(h[3], w[3]);
    }
    if (i < n) {
        std::uint64_t w[4] = {0, 0, 0, 0};
        std::memcpy(w, data + i, n - i);
        for (int k = 0; k < 4; ++k)
            h[k] = mix(h[k], w[k]);
    }
    std::uint64_t r = mix(mix(mix(mix(n, h[0]), h[1]), h[2]), h[3]);
    r *= kMul;
    return r ^ (r >> 32);
}

BlockWriter::BlockWriter(std::FILE* f) : m_file(f) { m_block.reserve(kBlockBytes); }

void BlockWriter::alignTo(std::size_t alignment)
{
    static constexpr char kZeros[16] = {};
    put(kZeros, (alignment - m_total % alignment) % alignment);
}

void BlockWriter::put(const void* data, std::size_t n)
{
    const char* p = static_cast<const char*>(data);
    m_total += n;
    while (n > 0) {
        const std::size_t room = kBlockBytes - m_block.size();
        const std::size_t k = std::min(room, n);
        m_block.insert(m_block.end(), p, p + k);
        p += k;
        n -= k;
        if (m_block.size() == kBlockBytes)
            flushBlock();
    }
}

void BlockWriter::flushBlock()
{
    if (m_block.empty())
        return;
    m_sums.push_back(checksum(m_block.data(), m_block.size(), m_sums.size()));
    if (m_ok && std::fwrite(m_block.data(), 1, m_block.size(), m_file) != m_block.size())
        m_ok = false;
    m_block.clear();
}

bool BlockWriter::finish()
{
    flushBlock();
    return m_ok;
}

// The blocks of a payload read and checked ahead of the reader, by a thread of their own, into
// kSlots buffers: block b goes to buffer b % kSlots once the reader has moved past block
// b - kSlots. The reader holds one block at a time (the one its pointers are in).
struct ByteReader::ReadAhead {
    static constexpr std::size_t kSlots = 4;
    static constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

    explicit ReadAhead(const ByteReader& r) : buffers(new char[kSlots * BlockWriter::kBlockBytes])
    {
        thread = std::thread([this, &r] { run(r); });
    }
    ~ReadAhead()
    {
        {
            const std::lock_guard<std::mutex> lock(mutex);
            stop = true;
        }
        freed.notify_one();
        thread.join();
    }
    ReadAhead(const ReadAhead&) = delete;
    ReadAhead& operator=(const ReadAhead&) = delete;

    // The reading thread: block b, checked, once its buffer is free; stops at the first failure.
    void run(const ByteReader& r)
    {
        const std::uint64_t blocks = r.m_sums.size();
        for (std::uint64_t b = 0; b < blocks; ++b) {
            {
                std::unique_lock<std::mutex> lock(mutex);
                freed.wait(lock, [&] { return stop || b < held + kSlots; });
                if (stop)
                    return;
            }
            std::string error;
            try {
                r.readBlock(slot(b), b, r.blockBytes(b));
            } catch (const CorruptData& e) {
                error = e.what();
            }
            {
                const std::lock_guard<std::mutex> lock(mutex);
                if (error.empty()) {
                    ready = b + 1;
                } else {
                    failed = b;
                    why = std::move(error);
                }
            }
            filled.notify_one();
            if (failed != kNone)
                return;
        }
    }

    // Block b, read and checked; the block held before is given back. Throws CorruptData when
    // block b could not be read or does not match its sum.
    const char* take(std::uint64_t b)
    {
        std::unique_lock<std::mutex> lock(mutex);
        held = b;
        freed.notify_one();
        filled.wait(lock, [&] { return ready > b || failed <= b; });
        if (ready <= b)
            throw CorruptData(why);
        return slot(b);
    }

    char* slot(std::uint64_t b) const { return buffers.get() + (b % kSlots) * BlockWriter::kBlockBytes; }

    std::unique_ptr<char[]> buffers;
    std::mutex mutex;
    std::condition_variable freed;  // the reader moved on: a buffer is free
    std::condition_variable filled; // a block is ready, or the reading failed
    std::uint64_t held = 0;         // the block the reader holds (those before it are free)
    std::uint64_t ready = 0;        // blocks [0, ready) are read and checked
    std::uint64_t failed = kNone;   // the block whose reading failed
    std::string why;
    bool stop = false;
    std::thread thread;
};

ByteReader::ByteReader(const char* data, std::size_t n) : m_p(data), m_end(data + n), m_left(n), m_size(n) {}

ByteReader::ByteReader(int fd, std::uint64_t offset, std::uint64_t n, std::vector<std::uint64_t> sums, Blocks blocks)
    : m_p(nullptr), m_end(nullptr), m_left(n), m_fd(fd), m_offset(offset), m_size(n), m_sums(std::move(sums))
{
    if (m_sums.size() != (n + BlockWriter::kBlockBytes - 1) / BlockWriter::kBlockBytes)
        throw CorruptData("the block sums do not cover the payload");
    if (blocks == Blocks::ReadAhead && m_sums.size() > 1) {
        try {
            m_ahead = std::make_unique<ReadAhead>(*this);
        } catch (const std::system_error&) {
            // No thread to be had: the blocks are read on demand.
        }
    }
    if (!m_ahead)
        m_block.reset(new char[BlockWriter::kBlockBytes]);
}

ByteReader::~ByteReader() = default;

std::size_t ByteReader::blockBytes(std::uint64_t block) const
{
    return static_cast<std::size_t>(std::min<std::uint64_t>(BlockWriter::kBlockBytes,
                                                            m_size - block * BlockWriter::kBlockBytes));
}

bool readAt(int fd, char* out, std::size_t n, std::uint64_t offset)
{
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::pread(fd, out + got, n - got, static_cast<off_t>(offset + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        got += static_cast<std::size_t>(r);
    }
    return true;
}

void ByteReader::readBlock(char* out, std::uint64_t block, std::size_t bytes) const
{
    if (!readAt(m_fd, out, bytes, m_offset + block * BlockWriter::kBlockBytes))
        throw CorruptData("the entry ends early (it shrank while it was read)");
    if (checksum(out, bytes, block) != m_sums[block])
        throw CorruptData("block " + std::to_string(block) + "'s checksum does not match");
}

void ByteReader::nextBlock()
{
    const std::size_t n = blockBytes(m_next);
    if (m_ahead) {
        m_p = m_ahead->take(m_next);
    } else {
        readBlock(m_block.get(), m_next, n);
        m_p = m_block.get();
    }
    ++m_next;
    m_end = m_p + n;
}

void ByteReader::getAcrossBlocks(char* out, std::size_t n)
{
    if (n > m_left || m_fd < 0)
        throw CorruptData("ends early");
    const std::size_t here = static_cast<std::size_t>(m_end - m_p);
    if (here > 0)
        std::memcpy(out, m_p, here);
    out += here;
    n -= here;
    m_left -= here;
    m_p = m_end;
    // Whole blocks are read straight into `out` and checked there, while still in the cache (or
    // copied from the buffer they were read ahead into).
    while (n > 0 && n >= blockBytes(m_next)) {
        const std::size_t b = blockBytes(m_next);
        if (m_ahead)
            std::memcpy(out, m_ahead->take(m_next), b);
        else
            readBlock(out, m_next, b);
        ++m_next;
        out += b;
        n -= b;
        m_left -= b;
    }
    if (n > 0) {
        nextBlock();
        std::memcpy(out, m_p, n);
        m_p += n;
        m_left -= n;
    }
}

void ByteReader::alignTo(std::size_t alignment)
{
    const std::size_t pad = (alignment - position() % alignment) % alignment;
    if (pad == 0)
        return;
    const char* p = take(pad);
    for (std::size_t i = 0; i < pad; ++i)
        if (p[i] != 0)
            throw CorruptData("padding that is not zero");
}

const char* ByteReader::take(std::size_t n)
{
    if (n <= static_cast<std::size_t>(m_end - m_p)) {
        const char* p = m_p;
        m_p += n;
        m_left -= n;
        return p;
    }
    if (n > m_left)
        throw CorruptData("ends early");
    m_spill.resize(n);
    getAcrossBlocks(m_spill.data(), n);
    return m_spill.data();
}

void putU64(BlockWriter& out, std::uint64_t v) { out.put(&v, sizeof v); }

void putString(BlockWriter& out, const std::string& s)
{
    putU64(out, s.size());
    out.put(s.data(), s.size());
}

std::uint64_t getU64(ByteReader& in)
{
    std::uint64_t v;
    in.get(&v, sizeof v);
    return v;
}

std::string getString(ByteReader& in)
{
    const std::uint64_t n = getU64(in);
    if (n > in.left())
        throw CorruptData("a string runs past the end");
    const char* p = in.take(static_cast<std::size_t>(n));
    return std::string(p, static_cast<std::size_t>(n));
}

} // namespace npuscope::cache
