#pragma once
// What the session cache stores of each row type: one table per type, its members in the order
// they are written. The codec (session_codec.cpp) writes and reads every row from its table, by
// the members' types: a string as its length and bytes, a bool as one byte 0 or 1, an optional
// time as a presence byte and 8 bytes, a column of plain values as its count, padding to their
// alignment and the values, a list of rows as its count and each row, a row of a table as its
// fields (padding bytes never reach the entry), any other plain value as its bytes.
//
// A member left out of its table is not cached: a Session read back would differ from the one
// written. So each struct's size is checked below; when one changes, add the member to its table
// and raise kSessionCacheVersion (session_cache.h).
#include "model/store/session.h"

#include <tuple>

namespace npuscope::cache {

// The members of T that the cache stores, in order. A type without a table is no row.
template <typename T>
struct Fields;

template <typename T, typename = void>
struct IsRow : std::false_type {};
template <typename T>
struct IsRow<T, std::void_t<decltype(Fields<T>::list)>> : std::true_type {};
template <typename T>
concept Row = IsRow<T>::value;

// The last value of an enumeration stored in a row: a byte past it cannot have been written.
template <typename E>
struct EnumLast;
template <>
struct EnumLast<Severity> {
    static constexpr Severity value = Severity::Error;
};
template <>
struct EnumLast<FileStatus> {
    static constexpr FileStatus value = FileStatus::NotRead;
};
template <>
struct EnumLast<TrackKind> {
    static constexpr TrackKind value = TrackKind::Other;
};

// A row type T of `bytes` bytes and its members, each named as &R::member. The size is that of the
// x86-64 GNU build the tables were written on: a member added or removed fails to compile there.
#if defined(__x86_64__) && defined(__GLIBCXX__)
#define NPUSCOPE_ROW_SIZE(T, bytes) static_assert(sizeof(T) == (bytes), #T " changed: update its row in row_fields.h")
#else
#define NPUSCOPE_ROW_SIZE(T, bytes) static_assert(true)
#endif
#define NPUSCOPE_ROW(T, bytes, ...)                                                                   \
    NPUSCOPE_ROW_SIZE(T, bytes);                                                                    \
    template <>                                                                                      \
    struct Fields<T> {                                                                               \
        using R = T;                                                                                 \
        static constexpr auto list = std::tuple{__VA_ARGS__};                                        \
    }

NPUSCOPE_ROW(Diagnostic, 96, &R::severity, &R::file, &R::line, &R::byteOffset, &R::reason, &R::count);

// FileRecord::roles is not stored: reading sets it from the kind (session_codec.cpp).
NPUSCOPE_ROW(FileRecord, 128, &R::path, &R::kind, &R::status, &R::note, &R::bytes, &R::records, &R::skipped);

NPUSCOPE_ROW(StepRow, 248, &R::step, &R::device, &R::type, &R::index, &R::computing, &R::commNotOverlapped,
    &R::overlapped, &R::communication, &R::free, &R::stage, &R::bubble, &R::commNotOverlappedExclReceive,
    &R::preparing);

NPUSCOPE_ROW(SizeBucket, 48, &R::sizeMB, &R::count, &R::timeMs);

NPUSCOPE_ROW(
    CommBandwidth, 64, &R::transport, &R::sizeMB, &R::timeMs, &R::bandwidthGBps, &R::largePacketRatio, &R::sizes);

NPUSCOPE_ROW(CommOp, 264, &R::step, &R::kind, &R::fullName, &R::opName, &R::group, &R::totalInfo, &R::rank, &R::start,
    &R::elapseMs, &R::transitMs, &R::waitMs, &R::syncMs, &R::idleMs, &R::waitRatio, &R::syncRatio, &R::bandwidth);

NPUSCOPE_ROW(CommLink, 64, &R::step, &R::kind, &R::fullName, &R::opName, &R::group, &R::src, &R::dst, &R::transport,
    &R::sizeMB, &R::timeMs, &R::bandwidthGBps, &R::count);

NPUSCOPE_ROW(ParallelGroup, 88, &R::name, &R::groupName, &R::ranks);

NPUSCOPE_ROW(StatRow, 104, &R::device, &R::kind, &R::name, &R::coreType, &R::count, &R::total, &R::min, &R::avg,
    &R::max, &R::ratio, &R::variance);

NPUSCOPE_ROW(Track, 72, &R::kind, &R::pid, &R::tid, &R::process, &R::thread, &R::processLabel, &R::device, &R::streamId,
    &R::processSort, &R::threadSort, &R::sliceBegin, &R::sliceEnd, &R::maxDepth);

NPUSCOPE_ROW(L2Row, 48, &R::device, &R::streamId, &R::taskId, &R::hitRate, &R::victimRate, &R::opName);

NPUSCOPE_ROW(OpAllocation, 136, &R::name, &R::bytes, &R::allocAt, &R::releaseAt, &R::activeReleaseAt, &R::duration,
    &R::allocTotalAllocated, &R::allocTotalReserved, &R::allocTotalActive, &R::releaseTotalAllocated,
    &R::releaseTotalReserved, &R::releaseTotalActive, &R::streamPtr, &R::device);

NPUSCOPE_ROW(OpDetailRow, 64, &R::name, &R::inputShapes, &R::callStack, &R::hostSelf, &R::hostTotal, &R::deviceSelf,
    &R::deviceTotal, &R::deviceSelfAiCore, &R::deviceTotalAiCore);

NPUSCOPE_ROW(DeviceInfo, 64, &R::device, &R::aiCoreNum, &R::aivNum, &R::aicFrequencyMHz, &R::chip, &R::hbmPeakGBps);

NPUSCOPE_ROW(Metadata, 232, &R::env, &R::groups, &R::profilerLevel, &R::exportType, &R::cannVersion,
    &R::torchNpuVersion, &R::profilerInfo, &R::profilerMetadata);

NPUSCOPE_ROW(SliceTable, 264, &R::start, &R::dur, &R::name, &R::category, &R::track, &R::taskId, &R::kernel, &R::args,
    &R::depth, &R::subtaskRow, &R::subtaskId);

// The lazy rows' reader is not stored: the entry's key pinned their files (session_codec.cpp).
NPUSCOPE_ROW(ArgTable, 168, &R::rows, &R::args, &R::keys, &R::files);

NPUSCOPE_ROW(ArgFile, 48, &R::path, &R::size, &R::mtimeNs);

NPUSCOPE_ROW(FlowTable, 240, &R::category, &R::name, &R::idNumber, &R::idText, &R::srcTs, &R::dstTs, &R::srcTrack,
    &R::dstTrack, &R::srcSlice, &R::dstSlice);

NPUSCOPE_ROW(CounterSeries, 80, &R::process, &R::name, &R::key, &R::pid, &R::device, &R::ts, &R::value);

NPUSCOPE_ROW(KernelTable, 624, &R::device, &R::step, &R::modelId, &R::streamId, &R::taskId, &R::contextId, &R::start,
    &R::dur, &R::wait, &R::blockDim, &R::mixBlockDim, &R::name, &R::type, &R::taskType, &R::opState, &R::inputShapes,
    &R::inputDtypes, &R::inputFormats, &R::outputShapes, &R::outputDtypes, &R::outputFormats, &R::metricNames,
    &R::metrics, &R::extraNames, &R::extra, &R::slice);

NPUSCOPE_ROW(
    StreamOverview, 152, &R::rank, &R::process, &R::thread, &R::kind, &R::tasks, &R::begin, &R::end, &R::busyPermille);

NPUSCOPE_ROW(ClusterData, 248, &R::stepTrace, &R::comm, &R::links, &R::groups, &R::overview, &R::strings);

// A Profile's tables; whether it was finalized follows them (session_codec.cpp).
NPUSCOPE_ROW(Profile, 2240, &R::name, &R::root, &R::layout, &R::rank, &R::devices, &R::strings, &R::tracks, &R::slices,
    &R::args, &R::flows, &R::counters, &R::kernels, &R::commOps, &R::commLinks, &R::steps, &R::stats, &R::l2,
    &R::opMemory, &R::opDetails, &R::deviceInfo, &R::meta, &R::join, &R::files, &R::diagnostics, &R::begin, &R::end);

#undef NPUSCOPE_ROW
#undef NPUSCOPE_ROW_SIZE

} // namespace npuscope::cache
