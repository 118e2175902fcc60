#pragma once
// The walks over a communication file, over either tree (DomNode or FastNode): where its ops and
// links are, and how one becomes a CommOp or a CommLink.
#include "model/formats/comm_json_tree.h"

#include <charconv>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace npuscope::readers::sidejson {

// An op key "<op>@<group>" split at its first '@': (op, group); the group is empty without one.
inline std::pair<std::string_view, std::string_view> splitOpKey(std::string_view full)
{
    const auto at = full.find('@');
    return {full.substr(0, at), at == std::string_view::npos ? std::string_view() : full.substr(at + 1)};
}

template <typename Node>
bool isOpObject(const Node& v)
{
    return v.isObject() &&
           (v.find("Communication Time Info").exists() || v.find("Communication Bandwidth Info").exists());
}

template <typename Node>
CommOp makeOp(const Node& v, std::string_view fullName, StringPool& pool, UnreadableValues& bad)
{
    bad.record = fullName;
    CommOp op;
    op.fullName = fullName;
    op.totalInfo = fullName == "Total Op Info";
    const auto [opName, group] = splitOpKey(fullName);
    op.opName = opName;
    op.group = group;
    const Node ti = v.find("Communication Time Info");
    if (!ti.exists())
        bad.noteIfNearMiss(v, "Communication Time Info");
    op.start = microsText(ti, kStartKey, bad);
    op.elapseMs = num(ti, "Elapse Time(ms)", bad);
    op.transitMs = num(ti, "Transit Time(ms)", bad);
    op.waitMs = num(ti, "Wait Time(ms)", bad);
    op.syncMs = num(ti, "Synchronization Time(ms)", bad);
    op.idleMs = num(ti, "Idle Time(ms)", bad);
    op.waitRatio = num(ti, "Wait Time Ratio", bad);
    op.syncRatio = num(ti, "Synchronization Time Ratio", bad);
    const Node bi = v.find("Communication Bandwidth Info");
    if (!bi.exists())
        bad.noteIfNearMiss(v, "Communication Bandwidth Info");
    if (bi.isObject()) {
        bi.forEachMember([&](std::string_view transport, const Node& b) {
            CommBandwidth cb;
            cb.transport = pool.intern(transport);
            cb.sizeMB = num(b, "Transit Size(MB)", bad);
            cb.timeMs = num(b, "Transit Time(ms)", bad);
            cb.bandwidthGBps = num(b, "Bandwidth(GB/s)", bad);
            cb.largePacketRatio = num(b, "Large Packet Ratio", bad);
            // "Total Op Info" omits the bandwidth: MB/ms = GB/s; 0 when no time was spent.
            if (std::isnan(cb.bandwidthGBps) && !std::isnan(cb.sizeMB) && !std::isnan(cb.timeMs))
                cb.bandwidthGBps = cb.timeMs > 0 ? cb.sizeMB / cb.timeMs : 0.0;
            if (const Node sd = b.find("Size Distribution"); sd.isObject()) {
                sd.forEachMember([&](std::string_view size, const Node& pair) {
                    SizeBucket sb;
                    sb.sizeMB = size;
                    if (pair.isArray() && pair.size() >= 2 && pair.at(0).numKind() != NumKind::None &&
                        pair.at(1).numKind() != NumKind::None) {
                        sb.count = pair.at(0).asDouble();
                        sb.timeMs = pair.at(1).asDouble();
                    }
                    cb.sizes.push_back(std::move(sb));
                });
            }
            op.bandwidth.push_back(std::move(cb));
        });
    }
    return op;
}

// Visits every op object with the keys leading to it.
template <typename Node, typename F>
void walkOps(const Node& node, KeyPath& path, int depth, F&& visit)
{
    if (!node.isObject() || depth > kWalkDepth)
        return;
    node.forEachMember([&](std::string_view k, const Node& v) {
        path.push_back(k);
        if (isOpObject(v))
            visit(v, path);
        else
            walkOps(v, path, depth + 1, visit);
        path.pop_back();
    });
}

inline bool isLinkKey(std::string_view k, int& src, int& dst)
{
    const auto dash = k.find('-');
    if (dash == std::string_view::npos || dash == 0 || dash + 1 >= k.size())
        return false;
    auto r1 = std::from_chars(k.data(), k.data() + dash, src);
    auto r2 = std::from_chars(k.data() + dash + 1, k.data() + k.size(), dst);
    return r1.ec == std::errc() && r1.ptr == k.data() + dash && r2.ec == std::errc() &&
           r2.ptr == k.data() + k.size();
}

// A link object, keyed "<src>-<dst>". src and dst are -1 when an object with a link's fields
// has a key that is not two ranks (a damaged key): the readers skip and count it.
template <typename Node>
bool isLink(std::string_view k, const Node& v, int& src, int& dst)
{
    if (!v.isObject() || !(v.find("Transport Type").exists() || v.find("Transit Size(MB)").exists()))
        return false;
    if (!isLinkKey(k, src, dst))
        src = dst = -1;
    return true;
}

// Visits every "<src>-<dst>" link object with the keys above it (op name last).
template <typename Node, typename F>
void walkLinks(const Node& node, KeyPath& path, int depth, F&& visit)
{
    if (!node.isObject() || depth > kWalkDepth)
        return;
    node.forEachMember([&](std::string_view k, const Node& v) {
        int src = -1, dst = -1;
        if (isLink(k, v, src, dst)) {
            visit(v, path, src, dst);
            return;
        }
        path.push_back(k);
        walkLinks(v, path, depth + 1, visit);
        path.pop_back();
    });
}

inline bool isKindKey(std::string_view k)
{
    return k == "p2p" || k == "collective";
}

// Profile files: [step, kind, op], [kind, op], [step, op] or [op] (msprof analyze/).
inline void placeProfileOp(std::span<const std::string_view> levels, std::string& step, std::string& kind)
{
    for (const auto& l : levels) {
        if (isKindKey(l))
            kind = l;
        else if (step.empty())
            step = l;
    }
}

// A link's names from its op key, "<op>@<group>".
inline void nameLink(CommLink& l, std::string_view full, StringPool& pool)
{
    const auto [opName, group] = splitOpKey(full);
    l.fullName = pool.intern(full);
    l.opName = pool.intern(opName);
    l.group = pool.intern(group);
}

template <typename Node>
CommLink makeLink(const Node& v, int src, int dst, std::string_view record, StringPool& pool, UnreadableValues& bad)
{
    bad.record = record;
    CommLink l;
    l.src = src;
    l.dst = dst;
    const Node transport = v.find("Transport Type");
    l.transport = transport.isString() ? pool.intern(transport.text()) : NameId(0);
    if (!transport.exists())
        bad.noteIfNearMiss(v, "Transport Type");
    l.sizeMB = num(v, "Transit Size(MB)", bad);
    l.timeMs = num(v, "Transit Time(ms)", bad);
    l.bandwidthGBps = num(v, "Bandwidth(GB/s)", bad);
    return l;
}

enum class Walk { Ops, Links };

// The walk of kind W over `root`, handing each record to `visit` (node, path, and for links src
// and dst).
template <Walk W, typename Node, typename Visit>
void walkRecords(const Node& root, Visit& visit)
{
    KeyPath path;
    if constexpr (W == Walk::Ops)
        walkOps(root, path, 0, visit);
    else
        walkLinks(root, path, 0, visit);
}

// The records of a walk of kind W, taken from `tree` while it is parsed, in the walk's order.
template <Walk W, typename Visit>
FastTree::Collapse collapseInto(const FastTree& tree, Visit& visit)
{
    if constexpr (W == Walk::Ops) {
        return {[&tree](std::uint32_t i) { return isOpObject(FastNode(&tree, i)); },
                [&tree, &visit](std::uint32_t i, const KeyPath& path) { visit(FastNode(&tree, i), path); }};
    } else {
        return {[&tree](std::uint32_t i) {
                    int src = -1, dst = -1;
                    return isLink(tree.node(i).key(), FastNode(&tree, i), src, dst);
                },
                [&tree, &visit, above = KeyPath()](std::uint32_t i, const KeyPath& path) mutable {
                    int src = -1, dst = -1;
                    isLinkKey(tree.node(i).key(), src, dst);
                    above.assign(path.begin(), path.end() - 1); // a link's own key is not in its path
                    visit(FastNode(&tree, i), above, src, dst);
                }};
    }
}

} // namespace npuscope::readers::sidejson
