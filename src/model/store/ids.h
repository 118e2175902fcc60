#pragma once
// Typed 32-bit ids so a name id is never mistaken for a track id.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

namespace npuscope {

using TimeNs = std::int64_t; // every time inside npuscope is int64 nanoseconds

// The largest time magnitude a parsed time may have: 4e18 ns (the year 2096 as ns since 1970),
// so that a start plus a duration, or the difference of two times, never overflows TimeNs.
inline constexpr TimeNs kMaxTimeNs = 4'000'000'000'000'000'000;

// A time or duration computed in double as the nearest TimeNs, clamped to +-kMaxTimeNs (an
// out-of-range double has no TimeNs value; this keeps sums of two within range); 0 for NaN.
inline TimeNs roundNs(double ns)
{
    if (ns != ns)
        return 0;
    if (ns >= static_cast<double>(kMaxTimeNs))
        return kMaxTimeNs;
    if (ns <= -static_cast<double>(kMaxTimeNs))
        return -kMaxTimeNs;
    return static_cast<TimeNs>(std::llround(ns));
}

// A device id or a rank read as a 64-bit integer, as the int the model keeps: -1 (unknown)
// when negative or beyond what a profiler writes (device ids 0..65535, ranks up to 2^31 - 1),
// so that a damaged id never wraps onto a real one.
inline constexpr std::int64_t kMaxDeviceId = 65535;
inline constexpr int deviceIdOf(std::int64_t v)
{
    return v >= 0 && v <= kMaxDeviceId ? static_cast<int>(v) : -1;
}
inline constexpr int rankOf(std::int64_t v)
{
    return v >= 0 && v <= std::numeric_limits<int>::max() ? static_cast<int>(v) : -1;
}

template <typename Tag>
struct TypedId {
    static constexpr std::uint32_t kInvalid = std::numeric_limits<std::uint32_t>::max();
    std::uint32_t v = kInvalid;
    constexpr TypedId() = default;
    constexpr explicit TypedId(std::uint32_t value) : v(value) {}
    constexpr bool valid() const { return v != kInvalid; }
    constexpr auto operator<=>(const TypedId&) const = default;
};

struct NameTag {};
struct TrackTag {};
using NameId = TypedId<NameTag>;   // index into the StringPool
using TrackId = TypedId<TrackTag>; // index into Profile::tracks

} // namespace npuscope

template <typename Tag>
struct std::hash<npuscope::TypedId<Tag>> {
    std::size_t operator()(const npuscope::TypedId<Tag>& id) const noexcept { return id.v; }
};
