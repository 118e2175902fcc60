#include "model/formats/lazy_args.h"

#include "model/formats/json_event_scanner.h"
#include "model/formats/timeline_builder.h"
#include "model/formats/timeline_chunk_parser.h"

#include <simdjson.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace npuscope {

namespace {

std::int64_t mtimeOf(const struct stat& st)
{
    return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

// Reads n bytes at `offset` completely; false on an error or an early end.
bool readFully(int fd, char* to, std::size_t n, std::uint64_t offset)
{
    while (n > 0) {
        const ssize_t got = ::pread(fd, to, n, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        to += got;
        n -= static_cast<std::size_t>(got);
        offset += static_cast<std::uint64_t>(got);
    }
    return true;
}

// A thread's buffer for an event's bytes, followed by simdjson's padding, and a parser over it.
struct Scratch {
    std::vector<char> buf;
    std::unique_ptr<EventChunkParser> parser;
    EventBatch batch;

    // Room for n bytes; a buffer that moves gets a new parser.
    void room(std::size_t n)
    {
        if (parser && buf.size() >= n + simdjson::SIMDJSON_PADDING)
            return;
        buf.resize(std::max(buf.size(), n + simdjson::SIMDJSON_PADDING));
        parser = makePortableChunkParser(std::string_view(buf.data(), buf.size() - simdjson::SIMDJSON_PADDING),
                                         ChunkParserOptions{});
    }
    // Parses the event in buf[at, end) into `batch`; false unless it is exactly one event (end
    // npos: the bytes ended first).
    bool parseEvent(std::size_t at, std::size_t end)
    {
        batch.clear();
        if (end != std::string_view::npos && buf[at] == '{')
            parser->parse({ElementSpan{at, end}}, batch);
        return batch.events.size() == 1;
    }
};

class TraceArgReader final : public ArgReader {
public:
    ~TraceArgReader() override
    {
        for (const auto& [path, fd] : m_fds)
            ::close(fd);
    }

    bool read(const ArgFile& file, std::uint64_t offset, const Visit& visit, std::string* error) const override
    {
        std::string why;
        const int fd = open(file, why);
        if (fd < 0) {
            if (error)
                *error = why;
            return false;
        }
        return readOne(fd, file, offset, visit, error);
    }

    // The events in windows: from the first one not read yet to kTail bytes past the last one
    // that starts within kWindow bytes of it while they average at least one per kSpacing bytes
    // (sparse events: a read each of about kTail bytes, not a window of other events' bytes).
    // Each event that ends inside the window is parsed there; one that does not starts the next
    // window, or is read alone (readOne) when it is the first.
    bool readMany(const ArgFile& file, const std::vector<std::uint64_t>& offsets, const VisitAt& visit,
                  std::string* error) const override
    {
        std::string why;
        const int fd = open(file, why);
        if (fd < 0) {
            if (error)
                *error = why;
            return false;
        }
        constexpr std::uint64_t kWindow = 256 << 10, kTail = 1 << 10, kSpacing = 2 << 10;
        thread_local Scratch t;
        bool ok = true;
        auto failed = [&](const std::string& w) {
            if (ok && error)
                *error = w;
            ok = false;
        };
        for (std::size_t i = 0; i < offsets.size();) {
            const std::uint64_t from = offsets[i];
            std::size_t last = i;
            while (last + 1 < offsets.size() && offsets[last + 1] - from < kWindow
                   && offsets[last + 1] - from <= (last + 1 - i) * kSpacing)
                ++last;
            const std::size_t n = static_cast<std::size_t>(
                std::min<std::uint64_t>(offsets[last] - from + kTail, file.size - std::min(from, file.size)));
            t.room(n);
            std::size_t j = i;
            if (n > 0 && readFully(fd, t.buf.data(), n, from)) {
                const std::string_view window(t.buf.data(), n);
                for (; j < offsets.size() && offsets[j] - from < n; ++j) {
                    const auto at = static_cast<std::size_t>(offsets[j] - from);
                    const std::size_t end = JsonEventScanner::valueEnd(window, at);
                    if (end == std::string_view::npos)
                        break; // ends past the window: the next window starts with it
                    if (!t.parseEvent(at, end)) {
                        failed(noEventAt(file, offsets[j]));
                        continue;
                    }
                    for (const TraceArg& a : t.batch.events.front().args())
                        visit(j, a.key, a.value);
                }
            }
            if (j == i) { // the first event alone does not fit the window (or nothing could be read)
                std::string w;
                if (!readOne(fd, file, offsets[i], [&](std::string_view k, std::string_view v) { visit(i, k, v); }, &w))
                    failed(w);
                ++j;
            }
            i = j;
        }
        return ok;
    }

private:
    static std::string noEventAt(const ArgFile& file, std::uint64_t offset)
    {
        return file.path + ": no event at byte offset " + std::to_string(offset)
               + " any more: its arguments cannot be read again";
    }

    // The event at `offset` of the open file `fd`.
    bool readOne(int fd, const ArgFile& file, std::uint64_t offset, const Visit& visit, std::string* error) const
    {
        // Events are a few hundred bytes: a first read of 1 KiB mostly holds the whole of one.
        // The buffer, the parser over it and the batch are the thread's, kept across reads.
        thread_local Scratch t;
        std::size_t end = std::string_view::npos;
        std::size_t n = 0;
        for (std::uint64_t want = 1024;; want *= 4) {
            n = static_cast<std::size_t>(std::min<std::uint64_t>(want, file.size - std::min(offset, file.size)));
            t.room(n);
            if (n == 0 || !readFully(fd, t.buf.data(), n, offset))
                break;
            end = JsonEventScanner::valueEnd(std::string_view(t.buf.data(), n), 0);
            if (end != std::string_view::npos || offset + n >= file.size)
                break;
        }
        if (!t.parseEvent(0, end)) {
            if (error)
                *error = noEventAt(file, offset);
            return false;
        }
        for (const TraceArg& a : t.batch.events.front().args())
            visit(a.key, a.value);
        return true;
    }

    // The file's descriptor, opened once; -1 with `why` set when it cannot be opened or it is
    // no longer the file that was read (another size or modification time).
    int open(const ArgFile& file, std::string& why) const
    {
        std::lock_guard lock(m_mutex);
        int fd = -1;
        if (const auto it = m_fds.find(file.path); it != m_fds.end()) {
            fd = it->second;
        } else {
            fd = ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                why = file.path + ": cannot be opened again (" + std::strerror(errno)
                      + "): its events' arguments cannot be read";
                return -1;
            }
            m_fds.emplace(file.path, fd);
        }
        struct stat st {};
        if (::fstat(fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) != file.size
            || mtimeOf(st) != file.mtimeNs) {
            why = file.path + " changed after it was read: its events' arguments cannot be read again (reopen the "
                  "profile)";
            return -1;
        }
        return fd;
    }

    mutable std::mutex m_mutex;
    mutable std::map<std::string, int> m_fds;
};

} // namespace

bool argFileOf(const std::string& path, ArgFile& out, std::string* error)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (error)
            *error = path + ": " + std::strerror(errno);
        return false;
    }
    // Absolute: the profile may be read again from another working directory (the cache).
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::absolute(path, ec).lexically_normal();
    out.path = ec ? path : abs.string();
    out.size = static_cast<std::uint64_t>(st.st_size);
    out.mtimeNs = mtimeOf(st);
    return true;
}

std::shared_ptr<const ArgReader> makeTraceArgReader() { return std::make_shared<TraceArgReader>(); }

} // namespace npuscope
