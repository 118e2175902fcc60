#pragma once
// The binary form of a loaded Session, as the session cache (session_cache.h) stores it.
//
// The payload is a plain sequence of fields in a fixed order: numbers in the machine's byte
// order, strings and columns as a 64-bit count followed by their bytes. The file around it (a
// header with the format version and a byte-order mark, a checksum per block) is the cache's.
// Every field of every table is written: a Session read back is equal to the one written, so
// nothing computed from it can tell the two apart. A table that gains a field must be written
// here too, and kFormatVersion raised (session_cache.cpp holds size checks that fail to compile
// when a struct changes).
#include "model/store/session.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
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

// Reads fields back from bytes, checking every length against what is left.
class ByteReader {
public:
    // `consumed`, when given, is told how many bytes have been read every kReportBytes, so that
    // a caller reading from a mapping can give the pages behind back (MappedFile::dropPagesBefore)
    // while the tables they are copied into grow.
    ByteReader(const char* data, std::size_t n, std::function<void(std::size_t)> consumed = {})
        : m_begin(data), m_p(data), m_end(data + n), m_consumed(std::move(consumed))
    {
    }
    void get(void* out, std::size_t n);
    const char* take(std::size_t n); // the next n bytes, in place
    std::size_t left() const { return static_cast<std::size_t>(m_end - m_p); }

private:
    static constexpr std::size_t kReportBytes = std::size_t{32} << 20;
    const char* m_begin;
    const char* m_p;
    const char* m_end;
    std::function<void(std::size_t)> m_consumed;
    std::size_t m_reported = 0;
};

void writeSession(BlockWriter& out, const Session& s);
// Throws CorruptData.
std::shared_ptr<Session> readSession(ByteReader& in);

// Plain helpers shared with the cache's key section.
void putU64(BlockWriter& out, std::uint64_t v);
void putString(BlockWriter& out, const std::string& s);
std::uint64_t getU64(ByteReader& in);
std::string getString(ByteReader& in);

} // namespace npuscope::cache
