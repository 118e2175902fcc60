#pragma once
// Read-only memory map of a whole file. Readers get a std::string_view over the pages, so a
// multi-gigabyte trace is never copied into the heap; the kernel pages it in as it is scanned.
// Files up to 8 MiB are read into memory instead, so one truncated by another process while it
// is scanned just ends early. A larger, mapped file that shrinks while it is read would raise
// SIGBUS on the pages past its new end; a process-wide SIGBUS handler swaps those pages for zero
// pages instead (the reader then sees NUL bytes and stops there with a message) and records the
// first offset that was gone: shrankAt().
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace npuscope {

class MappedFile {
public:
    // Maps `path` read-only. On failure returns nullopt and, when `error` is given, a message
    // naming the path and the reason (the errno text). An empty file maps to empty bytes.
    static std::optional<MappedFile> open(const std::string& path, std::string* error);

    MappedFile(MappedFile&&) noexcept;
    MappedFile& operator=(MappedFile&&) noexcept;
    ~MappedFile();

    std::string_view bytes() const;
    std::uint64_t size() const { return bytes().size(); }
    // Bytes that may be read past the end of bytes(): the rest of the last mapped page, or the
    // zeros after a file that was read. A parser that reads ahead of its input (simdjson reads up
    // to 64 bytes) can take the file in place instead of copying it when this is enough.
    std::size_t readableAfterEnd() const;
    const std::string& path() const { return m_path; }

    // Tells the kernel the pages before `offset` are not needed any more, so they leave this
    // process's resident set (they stay in the page cache, and a later access reads them back
    // from the file). Readers scan front to back; without this a mapped trace counts fully
    // towards peak RSS by the end of its read. No-op for a file that was read, not mapped.
    void dropPagesBefore(std::uint64_t offset) const;
    // Maps the pages of [offset, offset + bytes) now, in one call, when they are in the page
    // cache (MADV_POPULATE_READ), instead of one page fault per 64 KiB as a reader first touches
    // them. Readers call it ahead of where they read. No-op for a read file, before Linux 5.14, or
    // for pages already asked for.
    void mapAhead(std::uint64_t offset, std::uint64_t bytes) const;
    // True for a file that was mapped (not read into memory).
    bool mapped() const;
    // Copies the bytes [offset, offset + n) of a mapped file into `to` with pread(), without
    // touching the mapping: on a virtual machine, the kernel's copy through its own mapping of
    // the page cache costs less than a reader's first touch of the file's mapped pages (a
    // chunked 10 GB trace was read 11 % sooner so). Bytes past the file's end (it shrank since
    // it was mapped) or that cannot be read are zeros, and count for shrankAt(). Safe to call
    // from several threads.
    void copyBytes(std::uint64_t offset, char* to, std::size_t n) const;

    // When the file shrank while mapped: the lowest offset whose page had vanished when read
    // (those bytes read as zeros), or the file's current size when that is below size(). -1
    // when the file is still whole. Checks the file on disk, so call it once, after reading.
    std::int64_t shrankAt() const;

private:
    struct Impl; // keeps Boost.Interprocess out of every includer
    MappedFile(std::string path, std::unique_ptr<Impl> impl);
    std::string m_path;
    std::unique_ptr<Impl> m_impl;
};

} // namespace npuscope
