// A Session's tables as the payload of a cache entry, written and read from the field tables of
// row_fields.h: what a member's type is decides how it is stored (see there), so that the
// writer and the reader cannot disagree on a row.
#include "model/cache/cache_codec.h"
#include "model/cache/row_fields.h"

#include "model/formats/file_kinds.h"
#include "model/formats/lazy_args.h"

#include <map>
#include <optional>
#include <type_traits>

namespace npuscope::cache {

namespace {

template <typename T>
struct IsVector : std::false_type {};
template <typename T, typename A>
struct IsVector<std::vector<T, A>> : std::true_type {};

template <typename T>
struct IsMap : std::false_type {};
template <typename K, typename V, typename C, typename A>
struct IsMap<std::map<K, V, C, A>> : std::true_type {};

// A vector of plain values that are no row: stored as one block of their bytes.
template <typename T>
constexpr bool kIsColumn = false;
template <typename T>
constexpr bool kIsColumn<std::vector<T>> = std::is_trivially_copyable_v<T> && !Row<T>;

template <typename M>
struct MemberOf;
template <typename C, typename T>
struct MemberOf<T C::*> {
    using type = T;
};

using MaybeNs = OpDetailRow::MaybeNs;

// The fewest bytes a stored T takes: a count larger than the bytes left divided by it cannot
// have been written.
template <typename T>
constexpr std::size_t minBytes()
{
    if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, nlohmann::json> || IsVector<T>::value
        || IsMap<T>::value)
        return 8;
    else if constexpr (std::is_same_v<T, bool>)
        return 1;
    else if constexpr (std::is_same_v<T, std::optional<TimeNs>> || std::is_same_v<T, MaybeNs>)
        return 1 + sizeof(TimeNs);
    else if constexpr (std::is_same_v<T, StringPool>)
        return 16;
    else if constexpr (std::is_same_v<T, MetricColumn>)
        return 3 * 8 + 2;
    else if constexpr (Row<T>)
        return std::apply(
            [](auto... m) { return (std::size_t{0} + ... + minBytes<typename MemberOf<decltype(m)>::type>()); },
            Fields<T>::list);
    else
        return sizeof(T);
}

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

void put(BlockWriter& o, const StringPool& p)
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
void put(BlockWriter& o, const nlohmann::json& j)
{
    std::string text = j.dump();
    if (nlohmann::json::parse(text) != j)
        throw std::runtime_error("a metadata value does not survive being written as JSON");
    putString(o, text);
}

void put(BlockWriter& o, const MetricColumn& m)
{
    column(o, m.rawValues());
    column(o, m.codes());
    column(o, m.distinctValues());
    pod(o, static_cast<std::uint8_t>(m.wide()));
    pod(o, static_cast<std::uint8_t>(m.manyValues()));
}

template <typename T>
void put(BlockWriter& o, const T& v)
{
    if constexpr (std::is_same_v<T, std::string>)
        putString(o, v);
    else if constexpr (std::is_same_v<T, bool>)
        pod(o, static_cast<std::uint8_t>(v));
    else if constexpr (std::is_same_v<T, std::optional<TimeNs>>)
        optTime(o, v);
    else if constexpr (std::is_same_v<T, MaybeNs>)
        optTime(o, v.optional());
    else if constexpr (Row<T>)
        std::apply([&](auto... m) { (put(o, v.*m), ...); }, Fields<T>::list);
    else if constexpr (kIsColumn<T>)
        column(o, v);
    else if constexpr (IsVector<T>::value) {
        putU64(o, v.size());
        for (const auto& e : v)
            put(o, e);
    } else if constexpr (IsMap<T>::value) {
        putU64(o, v.size());
        for (const auto& [key, value] : v) {
            put(o, key);
            put(o, value);
        }
    } else
        pod(o, v);
}

void putProfile(BlockWriter& o, const Profile& p)
{
    put(o, p);
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

void get(ByteReader& in, StringPool& p)
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

void get(ByteReader& in, nlohmann::json& j)
{
    const std::string text = getString(in);
    try {
        j = nlohmann::json::parse(text);
    } catch (const std::exception&) {
        throw CorruptData("metadata that is not JSON");
    }
}

void get(ByteReader& in, MetricColumn& m)
{
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

// What a row read back must satisfy beyond its fields' own checks, lest it be read past its
// tables later.
template <typename T>
void checkRead(T&) { }

// A file's roles are not stored: they are its kind's row's (layout::kindRoles), as the loader
// set them, so an entry stays right when the table gives a kind other roles.
void checkRead(FileRecord& f)
{
    f.roles = layout::kindRoles(f.kind);
}

void checkRead(SliceTable& s)
{
    if (s.subtaskRow.size() != s.subtaskId.size())
        throw CorruptData("subtask columns of different lengths");
}

void checkRead(ArgTable& a)
{
    // The lazy rows' file is the one the entry's key pinned: its arguments are read from it.
    if (!a.files.empty())
        a.reader = makeTraceArgReader();
    for (const ArgTable::Range& r : a.rows)
        if ((r.count & ArgTable::kLazy) ? ((r.count & ~ArgTable::kLazy) >> 16) >= a.files.size()
                                        : std::uint64_t { r.begin } + r.count > a.args.size())
            throw CorruptData("an argument row out of range");
}

template <typename T>
void get(ByteReader& in, T& v)
{
    if constexpr (std::is_same_v<T, std::string>)
        v = getString(in);
    else if constexpr (std::is_same_v<T, bool>)
        v = flag(in);
    else if constexpr (std::is_same_v<T, std::optional<TimeNs>> || std::is_same_v<T, MaybeNs>)
        v = optTime(in);
    else if constexpr (std::is_enum_v<T>) {
        v = rd<T>(in);
        if (static_cast<unsigned>(v) > static_cast<unsigned>(EnumLast<T>::value))
            throw CorruptData("an out-of-range enumeration value");
    } else if constexpr (Row<T>) {
        std::apply([&](auto... m) { (get(in, v.*m), ...); }, Fields<T>::list);
        checkRead(v);
    } else if constexpr (kIsColumn<T>)
        column(in, v);
    else if constexpr (IsVector<T>::value) {
        v.resize(count(in, minBytes<typename T::value_type>()));
        for (auto& e : v)
            get(in, e);
    } else if constexpr (IsMap<T>::value) {
        const std::size_t n = count(in, minBytes<typename T::key_type>() + minBytes<typename T::mapped_type>());
        for (std::size_t i = 0; i < n; ++i) {
            typename T::key_type key;
            get(in, key);
            get(in, v[std::move(key)]);
        }
    } else
        v = rd<T>(in);
}

std::shared_ptr<Profile> getProfile(ByteReader& in)
{
    auto p = std::make_shared<Profile>();
    get(in, *p);
    const bool finalized = flag(in);
    // Rows that name a track, a slice or a string out of range would be read past their tables.
    const SliceTable& s = p->slices;
    const std::size_t n = s.start.size();
    if (s.dur.size() != n || s.name.size() != n || s.category.size() != n || s.track.size() != n || s.taskId.size() != n
        || s.kernel.size() != n || s.args.size() != n || s.depth.size() != n)
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
        putProfile(o, *p);
    put(o, s.cluster);
    put(o, s.files);
    put(o, s.diagnostics);
}

std::shared_ptr<Session> readSession(ByteReader& in)
{
    auto s = std::make_shared<Session>();
    s->root = getString(in);
    s->layout = getString(in);
    s->source = getString(in);
    const std::size_t ranks = count(in, minBytes<Profile>());
    for (std::size_t i = 0; i < ranks; ++i)
        s->ranks.push_back(getProfile(in));
    get(in, s->cluster);
    get(in, s->files);
    get(in, s->diagnostics);
    if (in.left() != 0)
        throw CorruptData("bytes left after the session");
    return s;
}

} // namespace npuscope::cache
