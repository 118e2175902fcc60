// Profile::absorbSideTables: joins the tables of a Profile read on another thread (the CSV and
// JSON side files of a rank) into this one. Strings are mapped once per distinct id.
#include "model/store/profile.h"
#include "model/store/cancellable_rows.h"

#include <atomic>
#include <iterator>

namespace npuscope {

namespace {

template <typename T>
void appendMoved(std::vector<T>& into, std::vector<T>&& from)
{
    if (into.empty()) {
        into = std::move(from);
        return;
    }
    into.insert(into.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

class IdMap {
public:
    IdMap(const StringPool& from, StringPool& into) : m_from(from), m_into(into), m_map(from.size()) {}
    NameId operator()(NameId id)
    {
        if (!id.valid() || id.v >= m_map.size())
            return id;
        NameId& m = m_map[id.v];
        if (!m.valid())
            m = m_into.intern(m_from.view(id));
        return m;
    }
    void column(std::vector<NameId>& c)
    {
        for (auto& id : c)
            id = (*this)(id);
    }

private:
    const StringPool& m_from;
    StringPool& m_into;
    std::vector<NameId> m_map;
};

// False when cancelled: re-interning the string columns of millions of rows takes a while.
bool absorbKernels(KernelTable& into, KernelTable&& k, IdMap& map, const std::atomic<bool>* cancel)
{
    for (auto* c : {&k.name, &k.type, &k.taskType, &k.opState, &k.inputShapes, &k.inputDtypes, &k.inputFormats,
                    &k.outputShapes, &k.outputDtypes, &k.outputFormats}) {
        if (isCancelled(cancel))
            return false;
        map.column(*c);
    }
    for (auto& c : k.extra) {
        if (isCancelled(cancel))
            return false;
        map.column(c);
    }
    if (into.size() == 0 && into.metricNames.empty() && into.extraNames.empty()) {
        into = std::move(k);
        return true;
    }
    const std::size_t before = into.size(), added = k.size();
    appendMoved(into.device, std::move(k.device));
    appendMoved(into.step, std::move(k.step));
    appendMoved(into.modelId, std::move(k.modelId));
    appendMoved(into.streamId, std::move(k.streamId));
    appendMoved(into.taskId, std::move(k.taskId));
    appendMoved(into.contextId, std::move(k.contextId));
    appendMoved(into.start, std::move(k.start));
    appendMoved(into.dur, std::move(k.dur));
    appendMoved(into.wait, std::move(k.wait));
    for (auto [a, b] : {std::pair{&into.name, &k.name}, {&into.type, &k.type}, {&into.taskType, &k.taskType},
                        {&into.opState, &k.opState}, {&into.inputShapes, &k.inputShapes},
                        {&into.inputDtypes, &k.inputDtypes}, {&into.inputFormats, &k.inputFormats},
                        {&into.outputShapes, &k.outputShapes}, {&into.outputDtypes, &k.outputDtypes},
                        {&into.outputFormats, &k.outputFormats}})
        appendMoved(*a, std::move(*b));
    appendMoved(into.blockDim, std::move(k.blockDim));
    appendMoved(into.mixBlockDim, std::move(k.mixBlockDim));
    appendMoved(into.slice, std::move(k.slice));
    // Columns by name: a column only one side has is NaN / empty on the other side's rows.
    auto column = [&](auto& names, auto& cols, const std::string& n, auto missing) -> auto& {
        for (std::size_t c = 0; c < names.size(); ++c)
            if (names[c] == n)
                return cols[c];
        names.push_back(n);
        cols.emplace_back(before, missing);
        return cols.back();
    };
    for (std::size_t m = 0; m < k.metricNames.size(); ++m)
        column(into.metricNames, into.metrics, k.metricNames[m], kNaN).append(std::move(k.metrics[m]));
    for (std::size_t c = 0; c < k.extraNames.size(); ++c)
        appendMoved(column(into.extraNames, into.extra, k.extraNames[c], NameId(0)), std::move(k.extra[c]));
    for (auto& c : into.metrics)
        c.resize(before + added, kNaN);
    for (auto& c : into.extra)
        c.resize(before + added, NameId(0));
    return true;
}

} // namespace

bool Profile::absorbSideTables(Profile&& other, const std::atomic<bool>* cancel)
{
    IdMap map(other.strings, strings);
    if (!absorbKernels(kernels, std::move(other.kernels), map, cancel))
        return false;
    for (auto& r : other.stats) {
        r.name = map(r.name);
        r.coreType = map(r.coreType);
    }
    appendMoved(stats, std::move(other.stats));
    if (isCancelled(cancel))
        return false;
    for (auto& r : other.opDetails) {
        r.name = map(r.name);
        r.inputShapes = map(r.inputShapes);
        r.callStack = map(r.callStack);
    }
    appendMoved(opDetails, std::move(other.opDetails));
    for (auto& r : other.l2)
        r.opName = map(r.opName);
    appendMoved(l2, std::move(other.l2));
    for (auto& op : other.commOps)
        for (auto& b : op.bandwidth)
            b.transport = map(b.transport);
    appendMoved(commOps, std::move(other.commOps));
    for (auto& l : other.commLinks)
        for (NameId* n : {&l.step, &l.kind, &l.fullName, &l.opName, &l.group, &l.transport})
            *n = map(*n);
    appendMoved(commLinks, std::move(other.commLinks));
    appendMoved(steps, std::move(other.steps));
    appendMoved(deviceInfo, std::move(other.deviceInfo));
    appendMoved(diagnostics, std::move(other.diagnostics));

    Metadata& m = other.meta;
    for (auto& [k, v] : m.env)
        meta.env[k] = std::move(v);
    appendMoved(meta.groups, std::move(m.groups));
    for (auto [to, from] : {std::pair{&meta.profilerLevel, &m.profilerLevel}, {&meta.exportType, &m.exportType},
                            {&meta.cannVersion, &m.cannVersion}, {&meta.torchNpuVersion, &m.torchNpuVersion}})
        if (!from->empty())
            *to = std::move(*from);
    if (!m.profilerInfo.is_null())
        meta.profilerInfo = std::move(m.profilerInfo);
    if (!m.profilerMetadata.is_null())
        meta.profilerMetadata = std::move(m.profilerMetadata);
    if (rank < 0)
        rank = other.rank;
    return true;
}

} // namespace npuscope
