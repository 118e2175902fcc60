#include "model/cache/cache_codec.h"

#include "model/formats/lazy_args.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <type_traits>

#include <unistd.h>

namespace npuscope::cache {

// A struct that gains or loses a field changes size: these fail to compile then, so that the
// field is added to the writer and the reader below and kFormatVersion (session_cache.h) raised.
// (Sizes of the x86-64 GNU build the checks were written on.)
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(Profile) == 2240, "Profile changed: update cache_codec.cpp");
static_assert(sizeof(Session) == 416, "Session changed: update cache_codec.cpp");
static_assert(sizeof(ClusterData) == 248, "ClusterData changed: update cache_codec.cpp");
static_assert(sizeof(SliceTable) == 264, "SliceTable changed: update cache_codec.cpp");
static_assert(sizeof(ArgTable) == 168, "ArgTable changed: update cache_codec.cpp");
static_assert(sizeof(FlowTable) == 240, "FlowTable changed: update cache_codec.cpp");
static_assert(sizeof(KernelTable) == 624, "KernelTable changed: update cache_codec.cpp");
static_assert(sizeof(Track) == 72, "Track changed: update cache_codec.cpp");
static_assert(sizeof(CounterSeries) == 80, "CounterSeries changed: update cache_codec.cpp");
static_assert(sizeof(CommOp) == 264, "CommOp changed: update cache_codec.cpp");
static_assert(sizeof(CommBandwidth) == 64, "CommBandwidth changed: update cache_codec.cpp");
static_assert(sizeof(SizeBucket) == 48, "SizeBucket changed: update cache_codec.cpp");
static_assert(sizeof(CommLink) == 64, "CommLink changed: update cache_codec.cpp");
static_assert(sizeof(OpAllocation) == 136, "OpAllocation changed: update cache_codec.cpp");
static_assert(sizeof(OpDetailRow) == 64, "OpDetailRow changed: update cache_codec.cpp");
static_assert(sizeof(StreamOverview) == 152, "StreamOverview changed: update cache_codec.cpp");
static_assert(sizeof(StepRow) == 248, "StepRow changed: update cache_codec.cpp");
static_assert(sizeof(StatRow) == 104, "StatRow changed: update cache_codec.cpp");
static_assert(sizeof(L2Row) == 48, "L2Row changed: update cache_codec.cpp");
static_assert(sizeof(DeviceInfo) == 64, "DeviceInfo changed: update cache_codec.cpp");
static_assert(sizeof(ParallelGroup) == 88, "ParallelGroup changed: update cache_codec.cpp");
static_assert(sizeof(Metadata) == 232, "Metadata changed: update cache_codec.cpp");
static_assert(sizeof(JoinStats) == 48, "JoinStats changed: update cache_codec.cpp");
static_assert(sizeof(FileRecord) == 128, "FileRecord changed: update cache_codec.cpp");
static_assert(sizeof(Diagnostic) == 96, "Diagnostic changed: update cache_codec.cpp");
#endif

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

ByteReader::ByteReader(int fd, std::uint64_t offset, std::uint64_t n, std::vector<std::uint64_t> sums)
    : m_p(nullptr), m_end(nullptr), m_left(n), m_fd(fd), m_offset(offset), m_size(n), m_sums(std::move(sums)),
      m_block(new char[BlockWriter::kBlockBytes])
{
    if (m_sums.size() != (n + BlockWriter::kBlockBytes - 1) / BlockWriter::kBlockBytes)
        throw CorruptData("the block sums do not cover the payload");
}

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

void ByteReader::readBlock(char* out, std::uint64_t block, std::size_t bytes)
{
    if (!readAt(m_fd, out, bytes, m_offset + block * BlockWriter::kBlockBytes))
        throw CorruptData("the entry ends early (it shrank while it was read)");
    if (checksum(out, bytes, block) != m_sums[block])
        throw CorruptData("block " + std::to_string(block) + "'s checksum does not match");
}

void ByteReader::nextBlock()
{
    const std::size_t n = blockBytes(m_next);
    readBlock(m_block.get(), m_next, n);
    ++m_next;
    m_p = m_block.get();
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
    // Whole blocks are read straight into `out` and checked there, while still in the cache.
    while (n > 0 && n >= blockBytes(m_next)) {
        const std::size_t b = blockBytes(m_next);
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

namespace {

// ---- writing ----

template <typename T>
void pod(BlockWriter& o, const T& v)
{
    static_assert(std::is_trivially_copyable_v<T>);
    o.put(&v, sizeof v);
}

// A column's values start at their type's alignment in the payload, so that a reader can copy
// them as a range of T (ByteReader::appendTo).
template <typename T>
void column(BlockWriter& o, const std::vector<T>& v)
{
    static_assert(std::is_trivially_copyable_v<T> && alignof(T) <= 16);
    putU64(o, v.size());
    o.alignTo(alignof(T));
    o.put(v.data(), v.size() * sizeof(T));
}

void optTime(BlockWriter& o, const std::optional<TimeNs>& t)
{
    pod(o, static_cast<std::uint8_t>(t.has_value()));
    pod(o, t.value_or(0));
}

void strings(BlockWriter& o, const std::vector<std::string>& v)
{
    putU64(o, v.size());
    for (const auto& s : v)
        putString(o, s);
}

void pool(BlockWriter& o, const StringPool& p)
{
    const std::size_t n = p.size();
    std::vector<std::uint32_t> sizes(n);
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sizes[i] = static_cast<std::uint32_t>(p.view(NameId(static_cast<std::uint32_t>(i))).size());
        total += sizes[i];
    }
    column(o, sizes);
    putU64(o, total);
    for (std::size_t i = 0; i < n; ++i) {
        const auto v = p.view(NameId(static_cast<std::uint32_t>(i)));
        o.put(v.data(), v.size());
    }
}

// A JSON value as its text; one whose text would not parse back to the same value (a NaN, a
// number out of double range) cannot be cached.
void json(BlockWriter& o, const nlohmann::json& j)
{
    std::string text = j.dump();
    if (nlohmann::json::parse(text) != j)
        throw std::runtime_error("a metadata value does not survive being written as JSON");
    putString(o, text);
}

void diagnostics(BlockWriter& o, const std::vector<Diagnostic>& v)
{
    putU64(o, v.size());
    for (const auto& d : v) {
        pod(o, d.severity);
        putString(o, d.file);
        pod(o, d.line);
        pod(o, d.byteOffset);
        putString(o, d.reason);
        pod(o, d.count);
    }
}

void files(BlockWriter& o, const std::vector<FileRecord>& v)
{
    putU64(o, v.size());
    for (const auto& f : v) {
        putString(o, f.path);
        putString(o, f.kind);
        pod(o, f.status);
        putString(o, f.note);
        pod(o, f.bytes);
        pod(o, f.records);
        pod(o, f.skipped);
    }
}

void steps(BlockWriter& o, const std::vector<StepRow>& v)
{
    putU64(o, v.size());
    for (const auto& s : v) {
        putString(o, s.step);
        pod(o, s.device);
        putString(o, s.type);
        putString(o, s.index);
        for (const auto* t : {&s.computing, &s.commNotOverlapped, &s.overlapped, &s.communication, &s.free, &s.stage,
                              &s.bubble, &s.commNotOverlappedExclReceive, &s.preparing})
            optTime(o, *t);
    }
}

void commOps(BlockWriter& o, const std::vector<CommOp>& v)
{
    putU64(o, v.size());
    for (const auto& c : v) {
        putString(o, c.step);
        putString(o, c.kind);
        putString(o, c.fullName);
        putString(o, c.opName);
        putString(o, c.group);
        pod(o, static_cast<std::uint8_t>(c.totalInfo));
        pod(o, c.rank);
        optTime(o, c.start);
        for (double d : {c.elapseMs, c.transitMs, c.waitMs, c.syncMs, c.idleMs, c.waitRatio, c.syncRatio})
            pod(o, d);
        putU64(o, c.bandwidth.size());
        for (const auto& b : c.bandwidth) {
            pod(o, b.transport);
            for (double d : {b.sizeMB, b.timeMs, b.bandwidthGBps, b.largePacketRatio})
                pod(o, d);
            putU64(o, b.sizes.size());
            for (const auto& s : b.sizes) {
                putString(o, s.sizeMB);
                pod(o, s.count);
                pod(o, s.timeMs);
            }
        }
    }
}

void groups(BlockWriter& o, const std::vector<ParallelGroup>& v)
{
    putU64(o, v.size());
    for (const auto& g : v) {
        putString(o, g.name);
        putString(o, g.groupName);
        column(o, g.ranks);
    }
}

void statRows(BlockWriter& o, const std::vector<StatRow>& v)
{
    putU64(o, v.size());
    for (const auto& s : v) {
        pod(o, s.device);
        putString(o, s.kind);
        pod(o, s.name);
        pod(o, s.coreType);
        pod(o, s.count);
        for (TimeNs t : {s.total, s.min, s.avg, s.max})
            pod(o, t);
        pod(o, s.ratio);
        pod(o, s.variance);
    }
}

void kernels(BlockWriter& o, const KernelTable& k)
{
    column(o, k.device);
    for (const auto* c : {&k.step, &k.modelId, &k.streamId, &k.taskId, &k.contextId, &k.start, &k.dur, &k.wait,
                          &k.blockDim, &k.mixBlockDim})
        column(o, *c);
    for (const auto* c : {&k.name, &k.type, &k.taskType, &k.opState, &k.inputShapes, &k.inputDtypes,
                          &k.inputFormats, &k.outputShapes, &k.outputDtypes, &k.outputFormats})
        column(o, *c);
    strings(o, k.metricNames);
    putU64(o, k.metrics.size());
    for (const auto& m : k.metrics) {
        column(o, m.rawValues());
        column(o, m.codes());
        column(o, m.distinctValues());
        pod(o, static_cast<std::uint8_t>(m.wide()));
        pod(o, static_cast<std::uint8_t>(m.manyValues()));
    }
    strings(o, k.extraNames);
    putU64(o, k.extra.size());
    for (const auto& e : k.extra)
        column(o, e);
    column(o, k.slice);
}

// Tracks and L2 rows field by field: their padding bytes hold whatever memory held.
void tracks(BlockWriter& o, const std::vector<Track>& v)
{
    putU64(o, v.size());
    for (const auto& t : v) {
        pod(o, t.kind);
        pod(o, t.pid);
        pod(o, t.tid);
        pod(o, t.process);
        pod(o, t.thread);
        pod(o, t.processLabel);
        pod(o, t.device);
        pod(o, t.streamId);
        pod(o, t.processSort);
        pod(o, t.threadSort);
        pod(o, t.sliceBegin);
        pod(o, t.sliceEnd);
        pod(o, t.maxDepth);
    }
}

void l2Rows(BlockWriter& o, const std::vector<L2Row>& v)
{
    putU64(o, v.size());
    for (const auto& r : v) {
        pod(o, r.device);
        pod(o, r.streamId);
        pod(o, r.taskId);
        pod(o, r.hitRate);
        pod(o, r.victimRate);
        pod(o, r.opName);
    }
}

// Rows with padding or std::optional members are written field by field: their raw bytes hold
// padding and the storage of empty optionals, which would make the entry depend on what the
// memory held before (and a damaged flag byte read back raw would be an invalid bool).
void commLinks(BlockWriter& o, const std::vector<CommLink>& v)
{
    putU64(o, v.size());
    for (const auto& l : v) {
        pod(o, l.step);
        pod(o, l.kind);
        pod(o, l.fullName);
        pod(o, l.opName);
        pod(o, l.group);
        pod(o, l.src);
        pod(o, l.dst);
        pod(o, l.transport);
        pod(o, l.sizeMB);
        pod(o, l.timeMs);
        pod(o, l.bandwidthGBps);
        pod(o, l.count);
    }
}

void opMemory(BlockWriter& o, const std::vector<OpAllocation>& v)
{
    putU64(o, v.size());
    for (const auto& a : v) {
        pod(o, a.name);
        pod(o, a.bytes);
        pod(o, a.allocAt);
        optTime(o, a.releaseAt);
        optTime(o, a.activeReleaseAt);
        optTime(o, a.duration);
        for (double d : {a.allocTotalAllocated, a.allocTotalReserved, a.allocTotalActive, a.releaseTotalAllocated,
                         a.releaseTotalReserved, a.releaseTotalActive})
            pod(o, d);
        pod(o, a.streamPtr);
        pod(o, a.device);
    }
}

void opDetails(BlockWriter& o, const std::vector<OpDetailRow>& v)
{
    putU64(o, v.size());
    for (const auto& d : v) {
        pod(o, d.name);
        pod(o, d.inputShapes);
        pod(o, d.callStack);
        for (const auto* t : {&d.hostSelf, &d.hostTotal, &d.deviceSelf, &d.deviceTotal, &d.deviceSelfAiCore,
                              &d.deviceTotalAiCore})
            optTime(o, t->optional());
    }
}

void argTable(BlockWriter& o, const ArgTable& a)
{
    column(o, a.rows);
    column(o, a.args);
    column(o, a.keys);
    putU64(o, a.files.size());
    for (const ArgFile& f : a.files) {
        putString(o, f.path);
        pod(o, f.size);
        pod(o, f.mtimeNs);
    }
}

void profile(BlockWriter& o, const Profile& p)
{
    putString(o, p.name);
    putString(o, p.root);
    putString(o, p.layout);
    pod(o, p.rank);
    column(o, p.devices);
    pool(o, p.strings);
    tracks(o, p.tracks);
    const SliceTable& s = p.slices;
    column(o, s.start);
    column(o, s.dur);
    column(o, s.name);
    column(o, s.category);
    column(o, s.track);
    column(o, s.taskId);
    column(o, s.kernel);
    column(o, s.args);
    column(o, s.depth);
    column(o, s.subtaskRow);
    column(o, s.subtaskId);
    argTable(o, p.args);
    const FlowTable& f = p.flows;
    column(o, f.category);
    column(o, f.name);
    column(o, f.idNumber);
    column(o, f.idText);
    column(o, f.srcTs);
    column(o, f.dstTs);
    column(o, f.srcTrack);
    column(o, f.dstTrack);
    column(o, f.srcSlice);
    column(o, f.dstSlice);
    putU64(o, p.counters.size());
    for (const auto& c : p.counters) {
        pod(o, c.process);
        pod(o, c.name);
        pod(o, c.key);
        pod(o, c.pid);
        pod(o, c.device);
        column(o, c.ts);
        column(o, c.value);
    }
    kernels(o, p.kernels);
    commOps(o, p.commOps);
    commLinks(o, p.commLinks);
    steps(o, p.steps);
    statRows(o, p.stats);
    l2Rows(o, p.l2);
    opMemory(o, p.opMemory);
    opDetails(o, p.opDetails);
    putU64(o, p.deviceInfo.size());
    for (const auto& d : p.deviceInfo) {
        pod(o, d.device);
        pod(o, d.aiCoreNum);
        pod(o, d.aivNum);
        pod(o, d.aicFrequencyMHz);
        putString(o, d.chip);
        pod(o, d.hbmPeakGBps);
    }
    const Metadata& m = p.meta;
    putU64(o, m.env.size());
    for (const auto& [k, v] : m.env) {
        putString(o, k);
        putString(o, v);
    }
    groups(o, m.groups);
    putString(o, m.profilerLevel);
    putString(o, m.exportType);
    putString(o, m.cannVersion);
    putString(o, m.torchNpuVersion);
    json(o, m.profilerInfo);
    json(o, m.profilerMetadata);
    pod(o, p.join);
    files(o, p.files);
    diagnostics(o, p.diagnostics);
    pod(o, p.begin);
    pod(o, p.end);
    pod(o, static_cast<std::uint8_t>(p.finalized()));
}

// ---- reading ----

template <typename T>
T rd(ByteReader& in)
{
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    in.get(&v, sizeof v);
    return v;
}

std::size_t count(ByteReader& in, std::size_t elementBytes)
{
    const std::uint64_t n = getU64(in);
    if (n > in.left() / std::max<std::size_t>(elementBytes, 1))
        throw CorruptData("a count larger than the data left");
    return static_cast<std::size_t>(n);
}

template <typename T>
void column(ByteReader& in, std::vector<T>& v)
{
    const std::size_t n = count(in, sizeof(T));
    in.alignTo(alignof(T));
    v.clear();
    in.appendTo(v, n);
}

bool flag(ByteReader& in)
{
    const auto b = rd<std::uint8_t>(in);
    if (b > 1)
        throw CorruptData("a flag that is neither 0 nor 1");
    return b == 1;
}

std::optional<TimeNs> optTime(ByteReader& in)
{
    const bool has = flag(in);
    const auto t = rd<TimeNs>(in);
    return has ? std::optional<TimeNs>(t) : std::nullopt;
}

void strings(ByteReader& in, std::vector<std::string>& v)
{
    v.resize(count(in, 8));
    for (auto& s : v)
        s = getString(in);
}

void pool(ByteReader& in, StringPool& p)
{
    std::vector<std::uint32_t> sizes;
    column(in, sizes);
    const std::uint64_t total = getU64(in);
    if (total > in.left())
        throw CorruptData("the string pool runs past the end");
    const char* text = in.take(static_cast<std::size_t>(total));
    std::uint64_t at = 0;
    if (sizes.empty() || sizes[0] != 0)
        throw CorruptData("the string pool does not start with the empty string");
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] > total - at)
            throw CorruptData("a pooled string runs past the pool");
        const std::string_view s(text + at, sizes[i]);
        at += sizes[i];
        if (i == 0)
            continue;
        if (p.intern(s).v != i)
            throw CorruptData("the string pool holds a string twice");
    }
    if (at != total)
        throw CorruptData("the string pool's sizes do not add up");
}

nlohmann::json json(ByteReader& in)
{
    const std::string text = getString(in);
    try {
        return nlohmann::json::parse(text);
    } catch (const std::exception&) {
        throw CorruptData("metadata that is not JSON");
    }
}

template <typename E>
E enumValue(ByteReader& in, E last)
{
    const auto v = rd<E>(in);
    if (static_cast<unsigned>(v) > static_cast<unsigned>(last))
        throw CorruptData("an out-of-range enumeration value");
    return v;
}

void diagnostics(ByteReader& in, std::vector<Diagnostic>& v)
{
    v.resize(count(in, 40));
    for (auto& d : v) {
        d.severity = enumValue(in, Severity::Error);
        d.file = getString(in);
        d.line = rd<std::int64_t>(in);
        d.byteOffset = rd<std::int64_t>(in);
        d.reason = getString(in);
        d.count = rd<std::uint64_t>(in);
    }
}

void files(ByteReader& in, std::vector<FileRecord>& v)
{
    v.resize(count(in, 48));
    for (auto& f : v) {
        f.path = getString(in);
        f.kind = getString(in);
        f.status = enumValue(in, FileStatus::NotRead);
        f.note = getString(in);
        f.bytes = rd<std::uint64_t>(in);
        f.records = rd<std::uint64_t>(in);
        f.skipped = rd<std::uint64_t>(in);
    }
}

void steps(ByteReader& in, std::vector<StepRow>& v)
{
    v.resize(count(in, 24));
    for (auto& s : v) {
        s.step = getString(in);
        s.device = rd<int>(in);
        s.type = getString(in);
        s.index = getString(in);
        for (auto* t : {&s.computing, &s.commNotOverlapped, &s.overlapped, &s.communication, &s.free, &s.stage,
                        &s.bubble, &s.commNotOverlappedExclReceive, &s.preparing})
            *t = optTime(in);
    }
}

void commOps(ByteReader& in, std::vector<CommOp>& v)
{
    v.resize(count(in, 40));
    for (auto& c : v) {
        c.step = getString(in);
        c.kind = getString(in);
        c.fullName = getString(in);
        c.opName = getString(in);
        c.group = getString(in);
        c.totalInfo = flag(in);
        c.rank = rd<int>(in);
        c.start = optTime(in);
        for (double* d : {&c.elapseMs, &c.transitMs, &c.waitMs, &c.syncMs, &c.idleMs, &c.waitRatio, &c.syncRatio})
            *d = rd<double>(in);
        c.bandwidth.resize(count(in, 44));
        for (auto& b : c.bandwidth) {
            b.transport = rd<NameId>(in);
            for (double* d : {&b.sizeMB, &b.timeMs, &b.bandwidthGBps, &b.largePacketRatio})
                *d = rd<double>(in);
            b.sizes.resize(count(in, 24));
            for (auto& s : b.sizes) {
                s.sizeMB = getString(in);
                s.count = rd<double>(in);
                s.timeMs = rd<double>(in);
            }
        }
    }
}

void groups(ByteReader& in, std::vector<ParallelGroup>& v)
{
    v.resize(count(in, 24));
    for (auto& g : v) {
        g.name = getString(in);
        g.groupName = getString(in);
        column(in, g.ranks);
    }
}

void statRows(ByteReader& in, std::vector<StatRow>& v)
{
    v.resize(count(in, 72));
    for (auto& s : v) {
        s.device = rd<int>(in);
        s.kind = getString(in);
        s.name = rd<NameId>(in);
        s.coreType = rd<NameId>(in);
        s.count = rd<std::uint64_t>(in);
        for (TimeNs* t : {&s.total, &s.min, &s.avg, &s.max})
            *t = rd<TimeNs>(in);
        s.ratio = rd<double>(in);
        s.variance = rd<double>(in);
    }
}

void kernels(ByteReader& in, KernelTable& k)
{
    column(in, k.device);
    for (auto* c : {&k.step, &k.modelId, &k.streamId, &k.taskId, &k.contextId, &k.start, &k.dur, &k.wait,
                    &k.blockDim, &k.mixBlockDim})
        column(in, *c);
    for (auto* c : {&k.name, &k.type, &k.taskType, &k.opState, &k.inputShapes, &k.inputDtypes, &k.inputFormats,
                    &k.outputShapes, &k.outputDtypes, &k.outputFormats})
        column(in, *c);
    strings(in, k.metricNames);
    k.metrics.resize(count(in, 26));
    for (auto& m : k.metrics) {
        std::vector<double> raw, values;
        std::vector<std::uint16_t> codes;
        column(in, raw);
        column(in, codes);
        column(in, values);
        const bool wide = flag(in);
        const bool many = flag(in);
        for (const auto c : codes)
            if (c >= values.size())
                throw CorruptData("a metric code past its values");
        m = MetricColumn::fromStored(std::move(raw), std::move(codes), std::move(values), wide, many);
    }
    strings(in, k.extraNames);
    k.extra.resize(count(in, 8));
    for (auto& e : k.extra)
        column(in, e);
    column(in, k.slice);
}

void tracks(ByteReader& in, std::vector<Track>& v)
{
    v.resize(count(in, 57));
    for (auto& t : v) {
        t.kind = enumValue(in, TrackKind::Other);
        t.pid = rd<std::int64_t>(in);
        t.tid = rd<std::int64_t>(in);
        t.process = rd<NameId>(in);
        t.thread = rd<NameId>(in);
        t.processLabel = rd<NameId>(in);
        t.device = rd<int>(in);
        t.streamId = rd<std::int64_t>(in);
        t.processSort = rd<int>(in);
        t.threadSort = rd<int>(in);
        t.sliceBegin = rd<std::uint32_t>(in);
        t.sliceEnd = rd<std::uint32_t>(in);
        t.maxDepth = rd<std::uint16_t>(in);
    }
}

void l2Rows(ByteReader& in, std::vector<L2Row>& v)
{
    v.resize(count(in, 44));
    for (auto& r : v) {
        r.device = rd<int>(in);
        r.streamId = rd<std::int64_t>(in);
        r.taskId = rd<std::int64_t>(in);
        r.hitRate = rd<double>(in);
        r.victimRate = rd<double>(in);
        r.opName = rd<NameId>(in);
    }
}

void commLinks(ByteReader& in, std::vector<CommLink>& v)
{
    v.resize(count(in, 8 * 4 + 3 * 8 + 4));
    for (auto& l : v) {
        l.step = rd<NameId>(in);
        l.kind = rd<NameId>(in);
        l.fullName = rd<NameId>(in);
        l.opName = rd<NameId>(in);
        l.group = rd<NameId>(in);
        l.src = rd<int>(in);
        l.dst = rd<int>(in);
        l.transport = rd<NameId>(in);
        l.sizeMB = rd<double>(in);
        l.timeMs = rd<double>(in);
        l.bandwidthGBps = rd<double>(in);
        l.count = rd<std::uint32_t>(in);
    }
}

void opMemory(ByteReader& in, std::vector<OpAllocation>& v)
{
    v.resize(count(in, 4 + 2 * 8 + 3 * 9 + 6 * 8 + 8 + 4));
    for (auto& a : v) {
        a.name = rd<NameId>(in);
        a.bytes = rd<double>(in);
        a.allocAt = rd<TimeNs>(in);
        a.releaseAt = optTime(in);
        a.activeReleaseAt = optTime(in);
        a.duration = optTime(in);
        for (double* d : {&a.allocTotalAllocated, &a.allocTotalReserved, &a.allocTotalActive, &a.releaseTotalAllocated,
                          &a.releaseTotalReserved, &a.releaseTotalActive})
            *d = rd<double>(in);
        a.streamPtr = rd<std::int64_t>(in);
        a.device = rd<int>(in);
    }
}

void opDetails(ByteReader& in, std::vector<OpDetailRow>& v)
{
    v.resize(count(in, 3 * 4 + 6 * 9));
    for (auto& d : v) {
        d.name = rd<NameId>(in);
        d.inputShapes = rd<NameId>(in);
        d.callStack = rd<NameId>(in);
        for (auto* t : {&d.hostSelf, &d.hostTotal, &d.deviceSelf, &d.deviceTotal, &d.deviceSelfAiCore,
                        &d.deviceTotalAiCore})
            *t = optTime(in);
    }
}

void argTable(ByteReader& in, ArgTable& a)
{
    column(in, a.rows);
    column(in, a.args);
    column(in, a.keys);
    a.files.resize(count(in, 24));
    for (ArgFile& f : a.files) {
        f.path = getString(in);
        f.size = rd<std::uint64_t>(in);
        f.mtimeNs = rd<std::int64_t>(in);
    }
    // The lazy rows' file is the one the entry's key pinned: its arguments are read from it.
    if (!a.files.empty())
        a.reader = makeTraceArgReader();
    for (const ArgTable::Range& r : a.rows)
        if ((r.count & ArgTable::kLazy) ? ((r.count & ~ArgTable::kLazy) >> 16) >= a.files.size()
                                        : std::uint64_t{r.begin} + r.count > a.args.size())
            throw CorruptData("an argument row out of range");
}

std::shared_ptr<Profile> profile(ByteReader& in)
{
    auto p = std::make_shared<Profile>();
    p->name = getString(in);
    p->root = getString(in);
    p->layout = getString(in);
    p->rank = rd<int>(in);
    column(in, p->devices);
    pool(in, p->strings);
    tracks(in, p->tracks);
    SliceTable& s = p->slices;
    column(in, s.start);
    column(in, s.dur);
    column(in, s.name);
    column(in, s.category);
    column(in, s.track);
    column(in, s.taskId);
    column(in, s.kernel);
    column(in, s.args);
    column(in, s.depth);
    column(in, s.subtaskRow);
    column(in, s.subtaskId);
    if (s.subtaskRow.size() != s.subtaskId.size())
        throw CorruptData("subtask columns of different lengths");
    argTable(in, p->args);
    FlowTable& f = p->flows;
    column(in, f.category);
    column(in, f.name);
    column(in, f.idNumber);
    column(in, f.idText);
    column(in, f.srcTs);
    column(in, f.dstTs);
    column(in, f.srcTrack);
    column(in, f.dstTrack);
    column(in, f.srcSlice);
    column(in, f.dstSlice);
    p->counters.resize(count(in, 36));
    for (auto& c : p->counters) {
        c.process = rd<NameId>(in);
        c.name = rd<NameId>(in);
        c.key = rd<NameId>(in);
        c.pid = rd<std::int64_t>(in);
        c.device = rd<int>(in);
        column(in, c.ts);
        column(in, c.value);
    }
    kernels(in, p->kernels);
    commOps(in, p->commOps);
    commLinks(in, p->commLinks);
    steps(in, p->steps);
    statRows(in, p->stats);
    l2Rows(in, p->l2);
    opMemory(in, p->opMemory);
    opDetails(in, p->opDetails);
    p->deviceInfo.resize(count(in, 36));
    for (auto& d : p->deviceInfo) {
        d.device = rd<int>(in);
        d.aiCoreNum = rd<int>(in);
        d.aivNum = rd<int>(in);
        d.aicFrequencyMHz = rd<double>(in);
        d.chip = getString(in);
        d.hbmPeakGBps = rd<double>(in);
    }
    Metadata& m = p->meta;
    const std::size_t env = count(in, 16);
    for (std::size_t i = 0; i < env; ++i) {
        std::string k = getString(in);
        m.env[std::move(k)] = getString(in);
    }
    groups(in, m.groups);
    m.profilerLevel = getString(in);
    m.exportType = getString(in);
    m.cannVersion = getString(in);
    m.torchNpuVersion = getString(in);
    m.profilerInfo = json(in);
    m.profilerMetadata = json(in);
    p->join = rd<JoinStats>(in);
    files(in, p->files);
    diagnostics(in, p->diagnostics);
    p->begin = rd<TimeNs>(in);
    p->end = rd<TimeNs>(in);
    const bool finalized = flag(in);
    // Rows that name a track, a slice or a string out of range would be read past their tables.
    const std::size_t n = s.start.size();
    if (s.dur.size() != n || s.name.size() != n || s.category.size() != n || s.track.size() != n
        || s.taskId.size() != n || s.kernel.size() != n || s.args.size() != n || s.depth.size() != n)
        throw CorruptData("slice columns of different lengths");
    for (std::size_t i = 0; i < n; ++i)
        if (s.track[i].v >= p->tracks.size())
            throw CorruptData("a slice on a track that does not exist");
    p->restoreIndexes(finalized);
    return p;
}

} // namespace

void writeSession(BlockWriter& o, const Session& s)
{
    putString(o, s.root);
    putString(o, s.layout);
    putString(o, s.source);
    putU64(o, s.ranks.size());
    for (const auto& p : s.ranks)
        profile(o, *p);
    steps(o, s.cluster.stepTrace);
    commOps(o, s.cluster.comm);
    commLinks(o, s.cluster.links);
    groups(o, s.cluster.groups);
    putU64(o, s.cluster.overview.size());
    for (const StreamOverview& v : s.cluster.overview) {
        pod(o, v.rank);
        putString(o, v.process);
        putString(o, v.thread);
        putString(o, v.kind);
        pod(o, v.tasks);
        pod(o, v.begin);
        pod(o, v.end);
        column(o, v.busyPermille);
    }
    pool(o, s.cluster.strings);
    files(o, s.files);
    diagnostics(o, s.diagnostics);
}

std::shared_ptr<Session> readSession(ByteReader& in)
{
    auto s = std::make_shared<Session>();
    s->root = getString(in);
    s->layout = getString(in);
    s->source = getString(in);
    const std::size_t ranks = count(in, 64);
    for (std::size_t i = 0; i < ranks; ++i)
        s->ranks.push_back(profile(in));
    steps(in, s->cluster.stepTrace);
    commOps(in, s->cluster.comm);
    commLinks(in, s->cluster.links);
    groups(in, s->cluster.groups);
    s->cluster.overview.resize(count(in, 4 + 3 * 8 + 3 * 8 + 8));
    for (StreamOverview& v : s->cluster.overview) {
        v.rank = rd<int>(in);
        v.process = getString(in);
        v.thread = getString(in);
        v.kind = getString(in);
        v.tasks = rd<std::uint64_t>(in);
        v.begin = rd<TimeNs>(in);
        v.end = rd<TimeNs>(in);
        column(in, v.busyPermille);
    }
    pool(in, s->cluster.strings);
    files(in, s->files);
    diagnostics(in, s->diagnostics);
    if (in.left() != 0)
        throw CorruptData("bytes left after the session");
    return s;
}

} // namespace npuscope::cache
