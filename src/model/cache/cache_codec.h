#pragma once
// The binary form of a loaded Session, as the session cache (session_cache.h) stores it.
//
// The payload is a plain sequence of fields in a fixed order: numbers in the machine's byte
// order, strings as a 64-bit count followed by their bytes, columns as a 64-bit count, zero bytes
// up to their type's alignment and their values. The file around it (a
// header with the format version and a byte-order mark, a checksum per block) is the cache's.
// Every field of every table is written: a Session read back is equal to the one written, so
// nothing computed from it can tell the two apart. Which fields a row has, and in what order, is
// its table in row_fields.h (session_codec.cpp writes and reads from it); a table that gains a
// field raises kSessionCacheVersion (session_cache.h).
#include "model/store/session.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace npuscope::cache {

// Raised by a reader that meets bytes that cannot be what a writer wrote.
struct CorruptData : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A 64-bit checksum of a byte range (four multiply-xorshift lanes: a changed byte always
// changes it). Not cryptographic.
std::uint64_t checksum(const char* data, std::size_t n, std::uint64_t seed = 0);

// Appends bytes to a FILE*, keeping a checksum of every kBlockBytes block.
class BlockWriter {
public:
    static constexpr std::size_t kBlockBytes = 1u << 20;
    explicit BlockWriter(std::FILE* f);
    void put(const void* data, std::size_t n);
    // Zero bytes up to the next multiple of `alignment` (at most 16) of the bytes written.
    void alignTo(std::size_t alignment);
    // Writes the last, partial block. False when any write failed.
    bool finish();
    std::uint64_t bytes() const { return m_total; }
    const std::vector<std::uint64_t>& blockSums() const { return m_sums; }

private:
    void flushBlock();
    std::FILE* m_file;
    std::vector<char> m_block;
    std::vector<std::uint64_t> m_sums;
    std::uint64_t m_total = 0;
    bool m_ok = true;
};

// Reads fields back, checking every length against what is left. Either from bytes in memory,
// taken as they are, or from a cache entry's payload in a file: read with pread() one block
// (BlockWriter::kBlockBytes) at a time, each block checked against its sum before any of its
// bytes is handed out. Reading the file this way, not through a mapping, checks each block
// while it is in the CPU's cache and touches no page of the entry from user space (on a
// virtual machine the page walks over a mapping cost more than the reading).
class ByteReader {
public:
    // How a file's blocks are read: by the reading thread as it needs them, or ahead of it by a
    // thread of the reader's own into a few buffers (the copy out of the page cache and the
    // checksum, most of a reopen's time, beside the decoding of the block before).
    enum class Blocks { OnDemand, ReadAhead };
    ByteReader(const char* data, std::size_t n);
    // `sums[b]` is block b's checksum (seeded with b). Throws CorruptData when a block's sum does
    // not match or the file ends early. A payload of a single block is read on demand.
    ByteReader(int fd, std::uint64_t offset, std::uint64_t n, std::vector<std::uint64_t> sums,
               Blocks blocks = Blocks::ReadAhead);
    ~ByteReader();
    ByteReader(const ByteReader&) = delete;
    ByteReader& operator=(const ByteReader&) = delete;
    void get(void* out, std::size_t n)
    {
        if (n <= static_cast<std::size_t>(m_end - m_p)) {
            if (n > 0) // an empty column has no storage: memcpy must not see its null pointer
                std::memcpy(out, m_p, n);
            m_p += n;
            m_left -= n;
            return;
        }
        getAcrossBlocks(static_cast<char*>(out), n);
    }
    // Bytes read so far.
    std::uint64_t position() const { return m_size - m_left; }
    // Skips the zero bytes BlockWriter::alignTo wrote.
    void alignTo(std::size_t alignment);
    // Appends the next n values of T to v, copied from the block they are in. Nothing is written
    // to v's storage before them, as resize() would (on a reopen, zeroing half a gigabyte of
    // columns only to overwrite it took a fifth of the CPU time). The values are copied as a
    // range of T, so they must sit at T's alignment (the writer aligns columns, and blocks start
    // aligned); values that do not are copied one at a time.
    template <typename T>
    void appendTo(std::vector<T>& v, std::size_t n)
    {
        static_assert(std::is_trivially_copyable_v<T>);
        if (n > m_left / sizeof(T))
            throw CorruptData("ends early");
        v.reserve(v.size() + n);
        while (n > 0) {
            std::size_t whole = std::min(n, static_cast<std::size_t>(m_end - m_p) / sizeof(T));
            if (reinterpret_cast<std::uintptr_t>(m_p) % alignof(T) != 0)
                whole = 0;
            if (whole == 0) { // a value across two blocks, the block used up, or misaligned bytes
                T t;
                get(&t, sizeof t);
                v.push_back(t);
                --n;
                continue;
            }
            const T* first = reinterpret_cast<const T*>(m_p);
            v.insert(v.end(), first, first + whole);
            m_p += whole * sizeof(T);
            m_left -= whole * sizeof(T);
            n -= whole;
        }
    }
    // The next n bytes, contiguous; valid until the next read.
    const char* take(std::size_t n);
    std::size_t left() const { return static_cast<std::size_t>(m_left); }

private:
    struct ReadAhead;
    void getAcrossBlocks(char* out, std::size_t n);
    void readBlock(char* out, std::uint64_t block, std::size_t bytes) const;
    std::size_t blockBytes(std::uint64_t block) const;
    void nextBlock();
    const char* m_p;
    const char* m_end;
    std::uint64_t m_left;
    int m_fd = -1;
    std::uint64_t m_offset = 0;
    std::uint64_t m_size = 0;
    std::uint64_t m_next = 0; // the next block to read
    std::vector<std::uint64_t> m_sums;
    std::unique_ptr<char[]> m_block;
    std::unique_ptr<ReadAhead> m_ahead; // when blocks are read ahead (m_block is then unused)
    std::vector<char> m_spill;          // take() across blocks
};

void writeSession(BlockWriter& out, const Session& s);
// Throws CorruptData.
std::shared_ptr<Session> readSession(ByteReader& in);

// Reads n bytes at `offset` of `fd` (pread, again after EINTR); false when it cannot.
bool readAt(int fd, char* out, std::size_t n, std::uint64_t offset);

// Plain helpers shared with the cache's key section.
void putU64(BlockWriter& out, std::uint64_t v);
void putString(BlockWriter& out, const std::string& s);
std::uint64_t getU64(ByteReader& in);
std::string getString(ByteReader& in);

} // namespace npuscope::cache
