// The communication side files (FORMATS.md §4): communication[_matrix].json and their cluster
// forms, kilobytes to a few megabytes. They are first read with simdjson On-Demand into a compact
// tree (comm_json_tree.h: keys and strings point into the file or the parser, file order kept),
// each op or link handed to its reader as soon as it is complete and dropped from the tree; a file
// it rejects for any reason (truncated, bad JSON, a duplicate key, ...) is parsed again into an
// nlohmann DOM (side_json_dom.h), which keeps what was complete and says where it stopped. One
// walker (comm_json_walk.h) reads both trees through a small node adapter (DomNode, FastNode).
#include "model/formats/comm_json_walk.h"

#include <algorithm>
#include <cmath>
#include <span>

namespace npuscope::readers {

using namespace sidejson;

namespace {

thread_local CommJsonParser t_commJsonParser = CommJsonParser::Auto;

// Reads the records of a communication file (a walk of kind W) into `out` through `visit`, which
// may intern names in `pool`, note values in `bad` and count rec.records. simdjson first, each
// record taken as soon as it is parsed; when simdjson rejects the file (t_commJsonParser
// permitting), what it took is undone and the nlohmann DOM reads what it can.
template <Walk W, typename T, typename Visit>
void readCommRecords(std::string_view bytes, FileRecord& rec, const ReadContext& ctx, const Report& report,
                     std::vector<T>& out,
                     StringPool& pool, UnreadableValues& bad, Visit&& visit)
{
    if (t_commJsonParser != CommJsonParser::DomOnly) {
        const std::size_t outMark = out.size(), poolMark = pool.size();
        const std::uint64_t recordsMark = rec.records;
        const UnreadableValues badMark = bad;
        // Room for the records at the generated and real files' density (ops ~1 KB, links ~120
        // bytes of JSON), so that the sink rarely grows; pages not written cost nothing.
        out.reserve(out.size() + bytes.size() / (W == Walk::Ops ? 512 : 64));
        bool parsed = false, nested = false;
        {
            FastTree tree;
            const FastTree::Collapse collapse = collapseInto<W>(tree, visit);
            parsed = tree.parse(bytes, ctx.readableAfterEnd, ctx.cancel, &collapse);
            nested = tree.nestedRecords();
        }
        if (!parsed) {
            out.erase(out.begin() + static_cast<std::ptrdiff_t>(outMark), out.end());
            pool.truncate(poolMark);
            bad = badMark;
            rec.records = recordsMark;
        }
        if (nested && !ctx.cancelled()) { // records within records: the whole tree, then the walk
            FastTree tree;
            if (tree.parse(bytes, ctx.readableAfterEnd, ctx.cancel)) {
                rec.path = ctx.file;
                rec.bytes = bytes.size();
                walkRecords<W>(FastNode(&tree, 0), visit);
                return;
            }
        }
        if (ctx.cancelled()) { // the load is being thrown away: no fallback, no records
            rec.path = ctx.file;
            rec.bytes = bytes.size();
            rec.status = FileStatus::Partial;
            rec.note = "cancelled";
            return;
        }
        if (parsed) {
            rec.path = ctx.file;
            rec.bytes = bytes.size();
            return;
        }
        if (t_commJsonParser == CommJsonParser::FastOnly) {
            rec.path = ctx.file;
            rec.bytes = bytes.size();
            rec.status = FileStatus::Failed;
            rec.note = "not taken by simdjson";
            return;
        }
    }
    json root;
    if (parseJson(bytes, root, rec, ctx, report)) {
        const DomNode node(&root);
        std::size_t n = 0;
        auto count = [&n](const auto&...) { ++n; };
        walkRecords<W>(node, count);
        out.reserve(out.size() + n);
        walkRecords<W>(node, visit);
    }
}

} // namespace

void setCommJsonParser(CommJsonParser parser)
{
    t_commJsonParser = parser;
}

FileRecord readCommunicationJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    UnreadableValues bad;
    readCommRecords<Walk::Ops>(bytes, rec, ctx, reportTo(sink, ctx), sink.commOps, sink.strings, bad,
                               [&](const auto& v, const KeyPath& p) {
                                   if (ctx.cancelled()) // the load is being thrown away: no more records
                                       return;
                                   CommOp op = makeOp(v, p.back(), sink.strings, bad);
                                   placeProfileOp(std::span(p).first(p.size() - 1), op.step, op.kind);
                                   sink.commOps.push_back(std::move(op));
                                   ++rec.records;
                               });
    bad.report(sink.diagnostics, ctx.file);
    finishRecord(rec, bad);
    return rec;
}

FileRecord readCommunicationMatrixJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    UnreadableValues bad;
    readCommRecords<Walk::Links>(
        bytes, rec, ctx, reportTo(sink, ctx), sink.commLinks, sink.strings, bad,
        [&](const auto& v, const KeyPath& p, int src, int dst) {
            if (ctx.cancelled())
                return;
            if (src < 0 || dst < 0)
                return bad.noteBadKey("a link key that is not '<src>-<dst>'", p.empty() ? "" : p.back());
            CommLink l = makeLink(v, src, dst, p.empty() ? std::string_view() : p.back(), sink.strings, bad);
            if (!p.empty()) {
                nameLink(l, p.back(), sink.strings);
                std::string step, kind;
                placeProfileOp(std::span(p).first(p.size() - 1), step, kind);
                l.step = sink.strings.intern(step);
                l.kind = sink.strings.intern(kind);
            }
            sink.commLinks.push_back(l);
            ++rec.records;
        });
    bad.report(sink.diagnostics, ctx.file);
    finishRecord(rec, bad);
    return rec;
}

FileRecord readClusterCommunicationJson(std::string_view bytes, ClusterData& sink, std::vector<Diagnostic>& diags,
                                        const ReadContext& ctx)
{
    FileRecord rec;
    UnreadableValues bad;
    // {"<group>": {"<step>": {"<op>": {"<rank>": OP}}}}
    readCommRecords<Walk::Ops>(bytes, rec, ctx, reportTo(diags, ctx), sink.comm, sink.strings, bad,
                               [&](const auto& v, const KeyPath& p) {
                                   if (p.size() < 2)
                                       return;
                                   const int rank = rankOf(parseInt64(p.back()).value_or(-1));
                                   if (rank < 0)
                                       return bad.noteBadKey("a rank key '" + std::string(p.back()) + "'",
                                                             p[p.size() - 2]);
                                   CommOp op = makeOp(v, p[p.size() - 2], sink.strings, bad);
                                   op.rank = rank;
                                   if (p.size() >= 4) {
                                       op.kind = p[p.size() - 4];
                                       op.step = p[p.size() - 3];
                                   } else if (p.size() == 3) {
                                       op.kind = p[0];
                                   }
                                   sink.comm.push_back(std::move(op));
                                   ++rec.records;
                               });
    bad.report(diags, ctx.file);
    finishRecord(rec, bad);
    return rec;
}

FileRecord readClusterCommunicationMatrixJson(std::string_view bytes, ClusterData& sink,
                                              std::vector<Diagnostic>& diags, const ReadContext& ctx)
{
    FileRecord rec;
    UnreadableValues bad;
    // {"<group>": {"<step>": {"<op>": {"<src>-<dst>": link}}}}
    readCommRecords<Walk::Links>(
        bytes, rec, ctx, reportTo(diags, ctx), sink.links, sink.strings, bad,
        [&](const auto& v, const KeyPath& p, int src, int dst) {
            if (src < 0 || dst < 0)
                return bad.noteBadKey("a link key that is not '<src>-<dst>'", p.empty() ? "" : p.back());
            CommLink l = makeLink(v, src, dst, p.empty() ? std::string_view() : p.back(), sink.strings, bad);
            if (!p.empty())
                nameLink(l, p.back(), sink.strings);
            if (p.size() >= 3) {
                l.kind = sink.strings.intern(p[p.size() - 3]);
                l.step = sink.strings.intern(p[p.size() - 2]);
            }
            sink.links.push_back(l);
            ++rec.records;
        });
    bad.report(diags, ctx.file);
    finishRecord(rec, bad);
    return rec;
}

} // namespace npuscope::readers
