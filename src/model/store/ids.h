#pragma once
// Typed 32-bit ids so a name id is never mistaken for a track id.
#include <cstdint>
#include <functional>
#include <limits>

namespace npuscope {

using TimeNs = std::int64_t; // every time inside npuscope is int64 nanoseconds

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
