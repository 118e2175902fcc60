#pragma once
// The nlohmann DOM side of the small JSON side files (side_json.cpp, info_json.cpp): the parse
// that keeps "Start Timestamp(us)" as its token text (µs with 3 decimals and ~16 significant
// digits does not survive a double), the node adapter the walks read it through (DomNode; the
// simdjson tree's is FastNode, comm_json_tree.h), and what every one of those readers notes about
// values it cannot read.
#include "model/formats/number_text.h"
#include "model/formats/readers.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace npuscope::readers::sidejson {

// Key order matters (ops and links are listed as the profiler wrote them): ordered DOM.
using json = nlohmann::ordered_json;
using Report = std::function<void(Severity, std::int64_t, std::string)>;

inline constexpr std::string_view kStartKey = "Start Timestamp(us)";

using KeyPath = std::vector<std::string_view>;

// The walks over a communication file (walkOps, walkLinks) look for their records in the members
// of objects this deep and less (the root is 0), through objects only.
inline constexpr int kWalkDepth = 6;

enum class NumKind { None, Unsigned, Signed, Float }; // nlohmann's number types

// Parses bytes; reports a parse error (keeping the partial DOM). Returns false when nothing usable.
bool parseJson(std::string_view bytes, json& out, FileRecord& rec, const ReadContext& ctx, const Report& report);

Report reportTo(Profile& p, const ReadContext& ctx);
Report reportTo(std::vector<Diagnostic>& d, const ReadContext& ctx);

// A node of the nlohmann DOM; a default-constructed one is a missing value.
class DomNode {
public:
    DomNode() = default;
    explicit DomNode(const json* j) : m_j(j) {}

    bool exists() const { return m_j != nullptr; }
    bool isObject() const { return m_j && m_j->is_object(); }
    bool isArray() const { return m_j && m_j->is_array(); }
    bool isString() const { return m_j && m_j->is_string(); }
    bool isNull() const { return m_j && m_j->is_null(); }
    NumKind numKind() const
    {
        if (!m_j || !m_j->is_number())
            return NumKind::None;
        return m_j->is_number_unsigned() ? NumKind::Unsigned
               : m_j->is_number_integer() ? NumKind::Signed
                                          : NumKind::Float;
    }
    std::string_view text() const { return m_j->get_ref<const std::string&>(); }
    std::uint64_t asUnsigned() const { return m_j->get<std::uint64_t>(); }
    std::int64_t asSigned() const { return m_j->get<std::int64_t>(); }
    double asDouble() const { return m_j->get<double>(); }
    std::size_t size() const { return m_j->size(); }
    DomNode at(std::size_t i) const { return DomNode(&(*m_j)[i]); }
    // The member `key` of an object, or a missing node.
    DomNode find(std::string_view key) const
    {
        if (!isObject())
            return {};
        const auto it = m_j->find(key);
        return it == m_j->end() ? DomNode() : DomNode(&*it);
    }
    // f(key, value) for each member of an object, in file order.
    template <typename F>
    void forEachMember(F&& f) const
    {
        for (const auto& [k, v] : m_j->items())
            f(std::string_view(k), DomNode(&v));
    }

private:
    const json* m_j = nullptr;
};

// Values that are there but read as missing where a number belongs: text that is neither a
// number nor a spelling of "missing" (N/A, "-", ...), true/false, an object or a list. A file
// gets one warning with their count and the first one's key and record, so that a damaged file
// never turns into blanks without a word. An absent key and null are missing, and not counted.
struct UnreadableValues {
    std::string_view record; // the op or link being read
    std::uint64_t count = 0;
    std::string first;

    template <typename Node>
    void note(const Node& v, std::string_view key)
    {
        if (count++ > 0)
            return;
        first = "'" + std::string(key) + "' of '" + std::string(record) + "'";
        if (v.isString())
            first += ": \"" + std::string(v.text().substr(0, 40)) + "\"";
        else if (v.numKind() == NumKind::Unsigned)
            first += ": " + std::to_string(v.asUnsigned()) + ", out of range";
        else if (v.numKind() == NumKind::Signed)
            first += ": " + std::to_string(v.asSigned()) + ", out of range";
        else
            first += v.isObject() ? ": an object" : v.isArray() ? ": a list" : v.isNull() ? ": null" : ": true/false";
    }
    // Records whose key does not say where they belong (a link key that is not "<src>-<dst>",
    // a rank key that is not a number): skipped, and counted as the file's skipped records.
    std::uint64_t badKeys = 0;
    std::string firstBadKey;
    void noteBadKey(std::string_view what, std::string_view under)
    {
        if (badKeys++ == 0)
            firstBadKey = std::string(what) + " under '" + std::string(under) + "'";
    }

    // Keys looked for and missing, with a key one character off beside them (a damaged byte):
    // not read as them.
    std::uint64_t nearMisses = 0;
    std::string firstNearMiss;
    template <typename Node>
    void noteIfNearMiss(const Node& object, std::string_view key)
    {
        if (!object.isObject())
            return;
        bool found = false;
        object.forEachMember([&](std::string_view k, const Node&) {
            if (found || !oneEditApart(k, key))
                return;
            found = true;
            if (nearMisses++ == 0)
                firstNearMiss = "'" + std::string(k) + "' for '" + std::string(key) + "' of '" + std::string(record) + "'";
        });
    }

    void report(std::vector<Diagnostic>& out, const std::string& file) const
    {
        if (nearMisses > 0)
            out.push_back(Diagnostic{Severity::Warning, file, -1, -1,
                                     std::to_string(nearMisses)
                                         + " key(s) one character off a key looked for, not read as it (first: "
                                         + firstNearMiss + ")",
                                     nearMisses});
        if (badKeys > 0)
            out.push_back(Diagnostic{Severity::Warning, file, -1, -1,
                                     firstBadKey
                                         + (badKeys > 1 ? " (first of " + std::to_string(badKeys) + ")" : ""),
                                     badKeys});
        if (count > 0)
            out.push_back(Diagnostic{Severity::Warning, file, -1, -1,
                                     std::to_string(count) + " value(s) where a number belongs read as missing (first: "
                                         + first + ")",
                                     count});
    }
};

template <typename Node>
double num(const Node& o, std::string_view key, UnreadableValues& bad)
{
    const Node v = o.find(key);
    if (v.numKind() != NumKind::None)
        return v.asDouble();
    if (!v.exists())
        bad.noteIfNearMiss(o, key);
    if (!v.exists() || v.isNull())
        return kNaN;
    if (v.isString()) {
        if (const auto d = parseDouble(v.text()))
            return *d;
        if (isMissingText(v.text()))
            return kNaN;
    }
    bad.note(v, key);
    return kNaN;
}

inline double num(const json& o, std::string_view key, UnreadableValues& bad)
{
    return num(DomNode(&o), key, bad);
}

template <typename Node>
std::optional<TimeNs> microsText(const Node& o, std::string_view key, UnreadableValues& bad)
{
    const Node v = o.find(key);
    if (!v.exists())
        bad.noteIfNearMiss(o, key);
    if (v.isString()) {
        const auto t = parseMicrosToNs(v.text());
        if (!t && !isMissingText(v.text()))
            bad.note(v, key);
        return t;
    }
    if (v.exists() && !v.isNull() && v.numKind() == NumKind::None)
        bad.note(v, key);
    constexpr TimeNs kLimit = std::numeric_limits<TimeNs>::max() / 1000; // beyond ±292 years in ns: not a time
    switch (v.numKind()) {
    case NumKind::Unsigned: {
        const auto us = v.asUnsigned();
        if (us > static_cast<std::uint64_t>(kLimit)) {
            bad.note(v, key);
            return std::nullopt;
        }
        return static_cast<TimeNs>(us) * 1000;
    }
    case NumKind::Signed: {
        const auto us = v.asSigned();
        if (us > kLimit || us < -kLimit) {
            bad.note(v, key);
            return std::nullopt;
        }
        return us * 1000;
    }
    case NumKind::Float:
        return microsDoubleToNs(v.asDouble());
    case NumKind::None:
        break;
    }
    return std::nullopt;
}

// Every DOM-only side file's opening: its record and its DOM, problems going to the Profile.
// `read(root, rec)` reads it when the parse left something usable (a parse error keeps what was
// complete, and the record says where it stopped). Returns the record.
template <typename Read>
FileRecord readJsonDom(std::string_view bytes, Profile& sink, const ReadContext& ctx, Read&& read)
{
    FileRecord rec;
    json root;
    if (parseJson(bytes, root, rec, ctx, reportTo(sink, ctx)))
        read(root, rec);
    return rec;
}

// As readJsonDom, for a file whose root must be an object: any other root fails the record.
template <typename Read>
FileRecord readJsonObject(std::string_view bytes, Profile& sink, const ReadContext& ctx, Read&& read)
{
    return readJsonDom(bytes, sink, ctx, [&](json& root, FileRecord& rec) {
        if (!root.is_object()) {
            rec.status = FileStatus::Failed;
            rec.note = "not a JSON object";
            return;
        }
        read(root, rec);
    });
}

std::string textOf(const json& v);

void finishRecord(FileRecord& rec);
// As above, with the records skipped for their keys counted.
void finishRecord(FileRecord& rec, const UnreadableValues& bad);

} // namespace npuscope::readers::sidejson
