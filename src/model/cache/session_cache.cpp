#include "model/cache/session_cache.h"

#include "model/analysis/atomic_file.h"
#include "model/cache/cache_codec.h"
#include "model/cluster_summary/cluster_summary.h"
#include "model/cluster_summary/open_session.h"
#include "model/io/memory_budget.h"
#include "model/io/parallel.h"
#include "model/store/string_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace npuscope {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'N', 'P', 'U', 'S', 'C', 'O', 'P', 'E'};
constexpr char kEndMagic[8] = {'N', 'P', 'S', 'C', 'E', 'N', 'D', '\0'};
constexpr std::uint32_t kByteOrderMark = 0x01020304u;
constexpr std::uint32_t kByteOrderSwapped = 0x04030201u;
constexpr std::size_t kHeaderBytes = 32;
constexpr std::size_t kTrailerBytes = 16;
constexpr const char* kEntrySuffix = ".npsc";
// A walk past this many files is not keyed (and not cached): it is not a profiling folder.
constexpr std::size_t kMaxInputFiles = 200000;

struct Header {
    char magic[8];
    std::uint32_t byteOrder;
    std::uint32_t version;
    std::uint64_t payloadBytes;
    std::uint32_t blockBytes;
    std::uint32_t zero;
};
static_assert(sizeof(Header) == kHeaderBytes);

// One input file as the key knows it.
struct InputFile {
    std::string path;
    std::uint64_t size = 0;
    std::int64_t mtimeNs = 0;
    std::uint64_t edges = 0; // checksum of the first and the last MiB
    bool operator==(const InputFile&) const = default;
};

std::string identityOf(const std::vector<std::string>& paths, const LoadOptions& options)
{
    std::string id = "npuscope session\n";
    for (const auto& p : paths) {
        std::error_code ec;
        const fs::path abs = fs::absolute(fs::path(p), ec).lexically_normal();
        id += "path " + p + '\t' + (ec ? p : abs.string()) + '\n';
    }
    id += "prefer " + std::to_string(static_cast<int>(options.prefer)) + '\n';
    id += "run " + std::to_string(options.run) + '\n';
    return id;
}

std::string hex16(std::uint64_t v)
{
    static const char* digits = "0123456789abcdef";
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i, v >>= 4)
        s[static_cast<std::size_t>(i)] = digits[v & 15];
    return s;
}

std::optional<InputFile> describe(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return std::nullopt;
    InputFile f;
    f.path = path;
    f.size = static_cast<std::uint64_t>(st.st_size);
    f.mtimeNs = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    constexpr std::uint64_t kMiB = 1u << 20;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    const std::uint64_t head = std::min(f.size, kMiB);
    const std::uint64_t tailFrom = f.size > 2 * kMiB ? f.size - kMiB : head;
    std::vector<char> buf(static_cast<std::size_t>(head + (f.size - tailFrom)));
    bool ok = cache::readAt(fd, buf.data(), static_cast<std::size_t>(head), 0)
              && cache::readAt(fd, buf.data() + head, static_cast<std::size_t>(f.size - tailFrom), tailFrom);
    ::close(fd);
    if (!ok)
        return std::nullopt;
    f.edges = cache::checksum(buf.data(), buf.size(), f.size);
    return f;
}

// Every regular file under `paths` (directories walked, symlinks followed), sorted by path;
// nullopt when something cannot be walked or read (then nothing is cached).
std::optional<std::vector<InputFile>> inputFiles(const std::vector<std::string>& paths)
{
    std::vector<std::string> names;
    for (const auto& p : paths) {
        std::error_code ec;
        const auto st = fs::status(p, ec);
        if (ec)
            return std::nullopt;
        if (fs::is_regular_file(st)) {
            names.push_back(p);
            continue;
        }
        if (!fs::is_directory(st))
            return std::nullopt;
        fs::recursive_directory_iterator it(p, fs::directory_options::follow_directory_symlink, ec), end;
        if (ec)
            return std::nullopt;
        for (; it != end; it.increment(ec)) {
            if (ec || names.size() > kMaxInputFiles || it.depth() > 32)
                return std::nullopt;
            std::error_code sec;
            // SQLite's shared-memory index of a database's write-ahead log ("X.db-shm") is
            // rewritten by every reader; the data is in the database and its log ("-wal").
            if (it->is_regular_file(sec) && !it->path().string().ends_with(".db-shm"))
                names.push_back(it->path().string());
        }
        if (ec)
            return std::nullopt;
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::vector<InputFile> files(names.size());
    std::atomic<bool> failed{false};
    parallelFor(names.size(), names.size() > 16 ? 0u : 1u, [&](std::size_t i) {
        auto f = describe(names[i]);
        if (!f)
            failed = true;
        else
            files[i] = std::move(*f);
    });
    if (failed)
        return std::nullopt;
    return files;
}

void writeKey(cache::BlockWriter& w, const std::string& identity, const std::vector<InputFile>& files)
{
    cache::putString(w, identity);
    cache::putU64(w, files.size());
    for (const auto& f : files) {
        cache::putString(w, f.path);
        cache::putU64(w, f.size);
        cache::putU64(w, static_cast<std::uint64_t>(f.mtimeNs));
        cache::putU64(w, f.edges);
    }
}

std::vector<InputFile> readKey(cache::ByteReader& in)
{
    const std::uint64_t n = cache::getU64(in);
    if (n > in.left() / 32)
        throw cache::CorruptData("a file count larger than the data left");
    std::vector<InputFile> files(static_cast<std::size_t>(n));
    for (auto& f : files) {
        f.path = cache::getString(in);
        f.size = cache::getU64(in);
        f.mtimeNs = static_cast<std::int64_t>(cache::getU64(in));
        f.edges = cache::getU64(in);
    }
    return files;
}

// What differs between the key and the files now, as a sentence.
std::string staleness(const std::vector<InputFile>& then, const std::vector<InputFile>& now)
{
    std::size_t i = 0, j = 0;
    while (i < then.size() || j < now.size()) {
        if (j == now.size() || (i < then.size() && then[i].path < now[j].path))
            return "stale: " + then[i].path + " was removed";
        if (i == then.size() || now[j].path < then[i].path)
            return "stale: " + now[j].path + " was added";
        const InputFile& a = then[i];
        const InputFile& b = now[j];
        if (a.size != b.size)
            return "stale: " + a.path + " changed size (" + std::to_string(a.size) + " -> " + std::to_string(b.size)
                   + " bytes)";
        if (a.mtimeNs != b.mtimeNs)
            return "stale: " + a.path + " was modified (its time changed)";
        if (a.edges != b.edges)
            return "stale: " + a.path + " changed contents";
        ++i;
        ++j;
    }
    return {};
}

// An open file descriptor, closed with its owner.
class Fd {
public:
    explicit Fd(int fd) : m_fd(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    int get() const { return m_fd; }

private:
    int m_fd;
};

// An entry's frame: how long its payload is and the checksum of each of its blocks.
struct Frame {
    std::uint64_t payloadBytes = 0;
    std::vector<std::uint64_t> sums;
};

// Reads and checks the frame of the entry open as `fd` (header, length, trailer, the checksum of
// the header and the block sums); "" when it holds, else why not. The blocks themselves are
// checked as they are read (cache::ByteReader), so a damaged block is found before any of its
// bytes is used.
std::string readFrame(int fd, Frame& frame)
{
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return std::string("cannot be read: ") + std::strerror(errno);
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size < kHeaderBytes + kTrailerBytes)
        return "truncated (" + std::to_string(size) + " bytes)";
    Header h;
    if (!cache::readAt(fd, reinterpret_cast<char*>(&h), sizeof h, 0))
        return "cannot be read";
    if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0)
        return "not a cache entry (wrong magic)";
    if (h.byteOrder == kByteOrderSwapped)
        return "written on a machine of the other byte order";
    if (h.byteOrder != kByteOrderMark)
        return "damaged (bad byte-order mark)";
    if (h.version != kSessionCacheVersion)
        return "written in another format version (" + std::to_string(h.version) + ", this is "
               + std::to_string(kSessionCacheVersion) + ")";
    if (h.blockBytes != cache::BlockWriter::kBlockBytes || h.zero != 0)
        return "damaged (bad header)";
    const std::uint64_t blocks = (h.payloadBytes + h.blockBytes - 1) / h.blockBytes;
    if (h.payloadBytes > size || blocks > size / 8)
        return "truncated (" + std::to_string(size) + " bytes)";
    const std::uint64_t want = kHeaderBytes + h.payloadBytes + blocks * 8 + kTrailerBytes;
    if (size < want)
        return "truncated (" + std::to_string(size) + " of " + std::to_string(want) + " bytes)";
    if (size > want)
        return "damaged (" + std::to_string(size - want) + " bytes too many)";
    std::string tail(static_cast<std::size_t>(blocks * 8 + kTrailerBytes), '\0');
    if (!cache::readAt(fd, tail.data(), tail.size(), kHeaderBytes + h.payloadBytes))
        return "cannot be read";
    const char* trailer = tail.data() + blocks * 8;
    if (std::memcmp(trailer + 8, kEndMagic, sizeof kEndMagic) != 0)
        return "damaged (bad trailer)";
    std::uint64_t frameSum;
    std::memcpy(&frameSum, trailer, 8);
    std::string framed(reinterpret_cast<const char*>(&h), kHeaderBytes);
    framed.append(tail.data(), static_cast<std::size_t>(blocks * 8));
    if (cache::checksum(framed.data(), framed.size()) != frameSum)
        return "damaged (the header's or the block sums' checksum does not match)";
    frame.payloadBytes = h.payloadBytes;
    frame.sums.resize(static_cast<std::size_t>(blocks));
    std::memcpy(frame.sums.data(), tail.data(), static_cast<std::size_t>(blocks * 8));
    return {};
}

// Opens `path` and checks its frame; "" or why it cannot be used.
std::string openEntry(const std::string& path, std::optional<Fd>& fd, Frame& frame)
{
    fd.emplace(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd->get() < 0)
        return path + ": cannot be opened: " + std::strerror(errno);
    return readFrame(fd->get(), frame);
}

bool writeEntry(const std::string& path, const std::string& identity, const std::vector<InputFile>& key,
                const Session& session, std::string* error)
{
    return writeFileAtomically(
        path,
        [&](std::FILE* f) {
            Header h{};
            std::memcpy(h.magic, kMagic, sizeof kMagic);
            h.byteOrder = kByteOrderMark;
            h.version = kSessionCacheVersion;
            h.blockBytes = cache::BlockWriter::kBlockBytes;
            if (std::fwrite(&h, sizeof h, 1, f) != 1)
                return false;
            cache::BlockWriter w(f);
            try {
                writeKey(w, identity, key);
                cache::writeSession(w, session);
            } catch (const std::exception& e) {
                if (error)
                    *error = path + ": not written: " + e.what();
                return false;
            }
            if (!w.finish())
                return false;
            h.payloadBytes = w.bytes();
            const auto& sums = w.blockSums();
            std::string frame(reinterpret_cast<const char*>(&h), sizeof h);
            frame.append(reinterpret_cast<const char*>(sums.data()), sums.size() * 8);
            const std::uint64_t frameSum = cache::checksum(frame.data(), frame.size());
            if (std::fwrite(sums.data(), 8, sums.size(), f) != sums.size() || std::fwrite(&frameSum, 8, 1, f) != 1
                || std::fwrite(kEndMagic, 1, sizeof kEndMagic, f) != sizeof kEndMagic)
                return false;
            if (std::fseek(f, 0, SEEK_SET) != 0 || std::fwrite(&h, sizeof h, 1, f) != 1)
                return false;
            return std::fseek(f, 0, SEEK_END) == 0;
        },
        error);
}

std::uint64_t dirOrDefaultCap(const SessionCacheSettings& s)
{
    return s.maxBytes ? s.maxBytes : defaultSessionCacheMaxBytes();
}

bool isEntryName(const std::string& name)
{
    return name.size() == 16 + std::strlen(kEntrySuffix) && name.compare(16, std::string::npos, kEntrySuffix) == 0;
}

std::int64_t mtimeNs(const std::string& path)
{
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return 0;
    return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

std::vector<SessionCacheEntry> listEntries(const std::string& dir, bool withChecks);

// Removes the least recently used entries until the directory holds at most `cap` bytes.
void evict(const std::string& dir, std::uint64_t cap)
{
    auto entries = listEntries(dir, false);
    std::uint64_t total = 0;
    for (const auto& e : entries) {
        total += e.bytes;
        if (total > cap) {
            std::error_code ec;
            fs::remove(e.file, ec);
        }
    }
}

} // namespace

std::string defaultSessionCacheDir()
{
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/')
        return std::string(x) + "/npuscope";
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::string(h) + "/.cache/npuscope";
    return {};
}

std::uint64_t defaultSessionCacheMaxBytes()
{
    if (const char* v = std::getenv("NPUSCOPE_CACHE_MAX"); v && *v)
        if (const auto n = parseByteSize(v))
            return *n;
    return 10ull << 30;
}

std::string sessionCacheEntryPath(const std::vector<std::string>& paths, const LoadOptions& options,
                                  const SessionCacheSettings& settings)
{
    const std::string dir = settings.dir.empty() ? defaultSessionCacheDir() : settings.dir;
    if (dir.empty())
        return {};
    const std::string id = identityOf(paths, options);
    return dir + '/' + hex16(hashText(id)) + kEntrySuffix;
}

LoadResult loadSessionsCached(const std::vector<std::string>& paths, const LoadOptions& options,
                              const SessionCacheSettings& settings, SessionCacheReport* report)
{
    SessionCacheReport local;
    SessionCacheReport& rep = report ? *report : local;
    rep = SessionCacheReport{};
    auto plainLoad = [&] { return openSessions(paths, options); };
    const std::string entry = sessionCacheEntryPath(paths, options, settings);
    // A cluster summary is already a small file that reads in one pass: it is not cached.
    const bool summary = std::any_of(paths.begin(), paths.end(), [](const std::string& p) {
        return cluster_summary::isSummaryFile(p);
    });
    if (entry.empty() || paths.empty() || options.beforeRead || summary)
        return plainLoad();
    rep.entry = entry;
    const std::string identity = identityOf(paths, options);
    const auto started = std::chrono::steady_clock::now();
    const auto key = inputFiles(paths);
    if (!key)
        return plainLoad();

    std::error_code ec;
    if (fs::exists(entry, ec)) {
        std::string why;
        std::optional<Fd> fd;
        Frame frame;
        why = openEntry(entry, fd, frame);
        if (why.empty()) {
            try {
                cache::ByteReader in(fd->get(), kHeaderBytes, frame.payloadBytes, std::move(frame.sums));
                if (cache::getString(in) != identity)
                    why = "made for another input";
                else if (const auto then = readKey(in); then != *key)
                    why = staleness(then, *key);
                else if (auto session = [&] {
                             // Huge pages for the tables, as a load of that size gets, faulted in
                             // beside the reading.
                             const LoadAllocationScope scope(in.left());
                             const HeapPrefault prefault(in.left());
                             return cache::readSession(in);
                         }()) {
                    ::utimensat(AT_FDCWD, entry.c_str(), nullptr, 0); // most recently used
                    rep.hit = true;
                    rep.openSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
                    if (options.progress)
                        options.progress(LoadProgress{"Done", 1.0});
                    LoadResult r;
                    r.session = std::move(session);
                    return r;
                }
            } catch (const cache::CorruptData& e) {
                why = std::string("damaged (") + e.what() + ")";
            } catch (const std::bad_alloc&) {
                why = "damaged (a size too large to hold)";
            }
        }
        rep.note = "the cached copy " + entry + " was not used: " + why + "; the files were read again";
    }

    LoadResult result = plainLoad();
    if (!result.session || result.cancelled)
        return result;
    for (const auto* files : {&result.session->files}) {
        for (const auto& f : *files)
            if (f.status == FileStatus::Failed)
                return result;
    }
    for (const auto& r : result.session->ranks)
        for (const auto& f : r->files)
            if (f.status == FileStatus::Failed)
                return result;
    // A file that changed while it was read may have been read half old, half new.
    if (inputFiles(paths) != key)
        return result;
    const std::string dir = entry.substr(0, entry.find_last_of('/'));
    fs::create_directories(dir, ec);
    std::string error;
    if (ec) {
        rep.storeError = "cannot create " + dir + ": " + ec.message();
    } else if (writeEntry(entry, identity, *key, *result.session, &error)) {
        rep.stored = true;
        evict(dir, dirOrDefaultCap(settings));
        if (!fs::exists(entry, ec)) {
            rep.stored = false;
            rep.storeError = entry + ": larger than the cache's size cap, removed";
        }
    } else {
        rep.storeError = error;
    }
    return result;
}

namespace {

// The entries in `dir`, most recently used first; their contents checked when `withChecks`.
std::vector<SessionCacheEntry> listEntries(const std::string& dir, bool withChecks)
{
    std::vector<SessionCacheEntry> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!isEntryName(name))
            continue;
        SessionCacheEntry e;
        e.file = it->path().string();
        std::error_code sec;
        e.bytes = it->file_size(sec);
        e.lastUsedNs = mtimeNs(e.file);
        if (!withChecks) {
            out.push_back(std::move(e));
            continue;
        }
        std::optional<Fd> fd;
        Frame frame;
        e.problem = openEntry(e.file, fd, frame);
        if (e.problem.empty()) {
            try {
                cache::ByteReader in(fd->get(), kHeaderBytes, frame.payloadBytes, std::move(frame.sums));
                const std::string id = cache::getString(in);
                for (std::size_t at = 0; (at = id.find("path ", at)) != std::string::npos;) {
                    const auto tab = id.find('\t', at);
                    const auto nl = id.find('\n', at);
                    if (tab == std::string::npos || nl == std::string::npos || tab > nl)
                        break;
                    e.inputs.push_back(id.substr(tab + 1, nl - tab - 1));
                    at = nl;
                }
                while (in.left() > 0) // every block's checksum
                    in.take(std::min<std::size_t>(in.left(), 4096));
            } catch (const cache::CorruptData& x) {
                e.problem = std::string("damaged (") + x.what() + ")";
            }
        }
        out.push_back(std::move(e));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return a.lastUsedNs != b.lastUsedNs ? a.lastUsedNs > b.lastUsedNs : a.file < b.file;
    });
    return out;
}

} // namespace

std::vector<SessionCacheEntry> listSessionCache(const std::string& dir) { return listEntries(dir, true); }

std::size_t clearSessionCache(const std::string& dir, std::uint64_t* bytesFreed)
{
    std::size_t n = 0;
    std::uint64_t bytes = 0;
    std::error_code ec;
    std::vector<fs::path> doomed;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const bool entry = isEntryName(name);
        const bool temp = name.size() > 1 && name[0] == '.' && name.find(std::string(kEntrySuffix) + ".tmp-") != std::string::npos;
        if (entry || temp) {
            std::error_code sec;
            const auto size = it->file_size(sec);
            doomed.push_back(it->path());
            if (entry) {
                ++n;
                bytes += sec ? 0 : size;
            }
        }
    }
    for (const auto& p : doomed)
        fs::remove(p, ec);
    if (bytesFreed)
        *bytesFreed = bytes;
    return n;
}

} // namespace npuscope
