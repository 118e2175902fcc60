#pragma once
// The session cache: a loaded Session written to disk, so that opening the same input again
// reads finished tables instead of parsing the files.
//
// An entry is one file, <dir>/<16 hex digits>.npsc, named by a hash of what was opened (the
// paths as given and as absolute paths, and the text/db preference). It holds:
//   header  "NPUSCOPE" | u32 byte-order mark 0x01020304 | u32 format version | u64 payload bytes
//           | u32 block bytes | u32 0                                (32 bytes)
//   payload the identity text, the key (every input file under the paths: path, size, mtime in
//           ns, a checksum of its first and last MiB), then the Session (cache_codec.h)
//   sums    one u64 checksum per block of the payload
//   trailer u64 checksum of the header and the sums | "NPSCEND\0"
// An entry is used only when all of it checks out: the mark, the version, the length, every
// block's checksum, the identity, and the key against the files as they are now. Anything else
// (a touched or changed input, a truncated or damaged entry, one from another version or another
// byte order) is ignored with a note saying why, and the load reads the files and writes the
// entry anew. Entries are written to a temporary file and renamed into place. Each use sets an
// entry's mtime; after a write, the least recently used entries go until the directory is under
// its size cap.
//
// Loads that could not read a file (a Failed one: missing permission, the memory budget) are not
// cached; partial loads (skipped rows) are, with their diagnostics, which come back as they were.
#include "model/formats/loader.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npuscope {

// Raised when the entry's layout changes, and when a reader reads the same bytes differently:
// an entry written before must not answer for what this build would read.
inline constexpr std::uint32_t kSessionCacheVersion = 7;

struct SessionCacheSettings {
    std::string dir;            // empty: defaultSessionCacheDir()
    std::uint64_t maxBytes = 0; // 0: defaultSessionCacheMaxBytes()
};

// $XDG_CACHE_HOME/npuscope, else $HOME/.cache/npuscope; "" when neither is set.
std::string defaultSessionCacheDir();
// NPUSCOPE_CACHE_MAX (bytes, or with a K/M/G suffix) when set, else 10 GiB.
std::uint64_t defaultSessionCacheMaxBytes();

struct SessionCacheReport {
    bool hit = false;        // the session came from the cache
    bool stored = false;     // the session was loaded and written to the cache
    std::string entry;       // the entry's file
    std::string note;        // an entry that was there and was ignored, and why; else ""
    std::string storeError;  // why the entry could not be written; else ""
    double openSeconds = 0;  // a hit: the time to check and read the entry
};

// Opens `paths` as openSessions would (model/cluster_summary/open_session.h), through the cache.
LoadResult loadSessionsCached(const std::vector<std::string>& paths, const LoadOptions& options,
                              const SessionCacheSettings& settings = {}, SessionCacheReport* report = nullptr);

// The entry file that `paths` would use.
std::string sessionCacheEntryPath(const std::vector<std::string>& paths, const LoadOptions& options,
                                  const SessionCacheSettings& settings = {});

struct SessionCacheEntry {
    std::string file;
    std::uint64_t bytes = 0;
    std::int64_t lastUsedNs = 0;     // mtime, ns since 1970
    std::vector<std::string> inputs; // the absolute paths it was made from; empty when unreadable
    std::string problem;             // "" or why it would not be used (version, damage; not staleness)
};

// Entries, most recently used first.
std::vector<SessionCacheEntry> listSessionCache(const std::string& dir);
// Removes every entry (and leftover temporary files); returns how many entries went.
std::size_t clearSessionCache(const std::string& dir, std::uint64_t* bytesFreed = nullptr);

} // namespace npuscope
