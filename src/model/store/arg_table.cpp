// The arguments of slices (ArgTable): built while a file is read, kept inline when short, and
// read again from their file for a lazy row.
#include "model/store/profile.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

namespace npuscope {

std::uint16_t ArgTable::keyIndex(NameId key)
{
    if (const auto it = m_keyIndex.find(key.v); it != m_keyIndex.end())
        return it->second;
    if (keys.size() >= kKeyInText)
        return kKeyInText;
    const auto index = static_cast<std::uint16_t>(keys.size());
    m_keyIndex.emplace(key.v, index);
    keys.push_back(key);
    return index;
}

namespace {
// Copies n <= 9 bytes with fixed-size moves: two that overlap, or single bytes below 4. A
// memcpy of a variable size is a library call, and there is one per argument.
void copyShort(char* to, const char* from, std::size_t n)
{
    if (n >= 8) {
        std::memcpy(to, from, 8);
        std::memcpy(to + n - 8, from + n - 8, 8);
    } else if (n >= 4) {
        std::memcpy(to, from, 4);
        std::memcpy(to + n - 4, from + n - 4, 4);
    } else {
        for (std::size_t i = 0; i < n; ++i)
            to[i] = from[i];
    }
}

void setPooled(ArgTable::Arg& a, std::uint16_t index, NameId key, NameId value)
{
    a.key = index;
    if (index == ArgTable::kKeyInText) {
        std::memcpy(a.text, &key.v, sizeof key.v);
        std::memcpy(a.text + sizeof key.v, &value.v, sizeof value.v);
    } else {
        std::memcpy(a.text, &value.v, sizeof value.v);
    }
}
} // namespace

std::uint32_t ArgTable::addRow(const std::vector<std::pair<NameId, NameId>>& pairs)
{
    const std::size_t first = args.size();
    for (const auto& [k, v] : pairs)
        setPooled(args.emplace_back(), keyIndex(k), k, v);
    return endRow(first);
}

void ArgTable::addArg(std::uint16_t index, NameId key, std::string_view value, StringPool& pool)
{
    Arg& a = args.emplace_back();
    if (value.size() <= kInline && index != kKeyInText) {
        a.key = index;
        a.size = static_cast<std::uint8_t>(value.size());
        copyShort(a.text, value.data(), value.size());
    } else {
        setPooled(a, index, key, pool.intern(value));
    }
}
std::uint32_t ArgTable::endRow(std::size_t firstArg)
{
    rows.push_back(Range{static_cast<std::uint32_t>(firstArg), static_cast<std::uint32_t>(args.size() - firstArg)});
    return static_cast<std::uint32_t>(rows.size() - 1);
}

NameId ArgTable::key(std::size_t arg) const
{
    const Arg& a = args[arg];
    if (a.key != kKeyInText)
        return keys[a.key];
    NameId id;
    std::memcpy(&id.v, a.text, sizeof id.v);
    return id;
}

std::string_view ArgTable::value(std::size_t arg, const StringPool& pool) const
{
    const Arg& a = args[arg];
    if (a.size != kPooled)
        return std::string_view(a.text, a.size);
    NameId id;
    std::memcpy(&id.v, a.text + (a.key == kKeyInText ? sizeof id.v : 0), sizeof id.v);
    return pool.view(id);
}

std::uint32_t ArgTable::fileIndex(const ArgFile& file)
{
    for (std::size_t i = 0; i < files.size(); ++i)
        if (files[i] == file)
            return static_cast<std::uint32_t>(i);
    if (files.size() >= kMaxLazyFiles)
        return kNone;
    files.push_back(file);
    return static_cast<std::uint32_t>(files.size() - 1);
}

std::uint32_t ArgTable::addLazyRow(std::uint32_t file, std::uint64_t offset)
{
    rows.push_back(Range{static_cast<std::uint32_t>(offset),
                         kLazy | (file << 16) | static_cast<std::uint32_t>((offset >> 32) & 0xFFFF)});
    return static_cast<std::uint32_t>(rows.size() - 1);
}

namespace {

// Where a lazy row's event is: its file's index and its byte offset (ArgTable::Range).
struct LazyPlace {
    std::uint32_t file;
    std::uint64_t offset;
};
LazyPlace lazyPlace(ArgTable::Range r)
{
    return {(r.count & ~ArgTable::kLazy) >> 16, (static_cast<std::uint64_t>(r.count & 0xFFFF) << 32) | r.begin};
}

// Keeps in out[w] the value of the first argument whose key is wanted[w], as a lookup finds it
// (seen[w]: taken already).
void takeFirst(std::initializer_list<std::string_view> wanted, std::string_view k, std::string_view v, std::string* out,
               char* seen)
{
    std::size_t w = 0;
    for (const std::string_view key : wanted) {
        if (k == key && !seen[w]) {
            out[w] = v;
            seen[w] = 1;
        }
        ++w;
    }
}

} // namespace

bool ArgTable::forEach(std::uint32_t row, const StringPool& pool, const ArgReader::Visit& visit,
                       std::string* error) const
{
    if (row >= rows.size())
        return true;
    const Range r = rows[row];
    if (!(r.count & kLazy)) {
        for (std::uint32_t i = r.begin; i < r.begin + r.count; ++i)
            visit(pool.view(key(i)), value(i, pool));
        return true;
    }
    const auto [file, offset] = lazyPlace(r);
    std::string why;
    if (file >= files.size())
        why = "arguments of a file that is not listed";
    else if (!reader)
        why = files[file].path + ": its arguments cannot be read again";
    else if (reader->read(files[file], offset, [&](std::string_view k, std::string_view v) {
                 visit(StringPool::clip(k), StringPool::clip(v)); // as interned
             }, &why))
        return true;
    if (error)
        *error = why;
    return false;
}

std::string ArgTable::find(std::uint32_t row, std::string_view key, const StringPool& pool) const
{
    return std::move(find(row, {key}, pool).front());
}

std::vector<std::string> ArgTable::find(std::uint32_t row, std::initializer_list<std::string_view> wanted,
                                        const StringPool& pool) const
{
    std::vector<std::string> out(wanted.size());
    std::vector<char> seen(wanted.size(), 0);
    forEach(row, pool, [&](std::string_view k, std::string_view v) { takeFirst(wanted, k, v, out.data(), seen.data()); });
    return out;
}

bool ArgReader::readMany(const ArgFile& file, const std::vector<std::uint64_t>& offsets, const VisitAt& visit,
                         std::string* error) const
{
    bool ok = true;
    for (std::size_t i = 0; i < offsets.size(); ++i) {
        std::string why;
        if (!read(file, offsets[i], [&](std::string_view k, std::string_view v) { visit(i, k, v); }, &why)) {
            if (ok && error)
                *error = why;
            ok = false;
        }
    }
    return ok;
}

std::vector<std::vector<std::string>> ArgTable::findMany(const std::vector<std::uint32_t>& rows,
                                                         std::initializer_list<std::string_view> wanted,
                                                         const StringPool& pool) const
{
    std::vector<std::vector<std::string>> out(rows.size());
    std::vector<char> seen(rows.size() * wanted.size(), 0); // row i's key w at i · |wanted| + w
    auto take = [&](std::size_t i, std::string_view k, std::string_view v) {
        if (out[i].empty())
            out[i].resize(wanted.size());
        takeFirst(wanted, k, v, out[i].data(), &seen[i * wanted.size()]);
    };
    // The lazy rows by (file, offset); every other row as find() reads it.
    struct Lazy {
        std::uint32_t file;
        std::uint64_t offset;
        std::size_t i;
    };
    std::vector<Lazy> lazy;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const std::uint32_t row = rows[i];
        if (isLazy(row) && reader) {
            const auto [file, offset] = lazyPlace(this->rows[row]);
            lazy.push_back({file, offset, i});
        } else {
            forEach(row, pool, [&](std::string_view k, std::string_view v) { take(i, k, v); });
        }
    }
    std::sort(lazy.begin(), lazy.end(),
              [](const Lazy& a, const Lazy& b) { return a.file < b.file || (a.file == b.file && a.offset < b.offset); });
    for (std::size_t b = 0; b < lazy.size();) {
        std::size_t e = b;
        std::vector<std::uint64_t> offsets;
        for (; e < lazy.size() && lazy[e].file == lazy[b].file; ++e)
            offsets.push_back(lazy[e].offset);
        if (lazy[b].file < files.size())
            reader->readMany(files[lazy[b].file], offsets, [&](std::size_t k, std::string_view key, std::string_view v) {
                take(lazy[b + k].i, StringPool::clip(key), StringPool::clip(v)); // as interned
            }, nullptr);
        b = e;
    }
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (out[i].empty())
            out[i].resize(wanted.size()); // no arguments, or unreadable: empty values, as find() gives
    return out;
}

void ArgTable::rebuildKeyIndex()
{
    m_keyIndex.clear();
    for (std::size_t i = 0; i < keys.size() && i < kKeyInText; ++i)
        m_keyIndex.emplace(keys[i].v, static_cast<std::uint16_t>(i));
}

} // namespace npuscope
