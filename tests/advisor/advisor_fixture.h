#pragma once
// Hand-built profiles for the advisor tests: kernel rows with chosen metrics, step rows,
// communication ops, timeline slices. Times are given in µs (kernels) or ms (steps) for
// readability and stored as int64 ns.
#include "advisor/advisor.h"
#include "model/store/session.h"

#include <QtTest>

#include <cmath>
#include <memory>
#include <string>

namespace fixture {

using namespace npuscope;

inline TimeNs us(double v) { return static_cast<TimeNs>(std::llround(v * 1e3)); }
inline TimeNs ms(double v) { return static_cast<TimeNs>(std::llround(v * 1e6)); }

class Builder {
public:
    explicit Builder(int rank = 0, std::string layout = "torch_npu")
        : p(std::make_shared<Profile>())
    {
        p->name = "fixture_rank" + std::to_string(rank);
        p->root = "/tmp/fixture/rank" + std::to_string(rank) + "_ascend_pt";
        p->layout = std::move(layout);
        p->rank = rank;
    }

    int metric(const std::string& name)
    {
        auto& k = p->kernels;
        const int i = k.metricIndex(name);
        if (i >= 0)
            return i;
        k.metricNames.push_back(name);
        k.metrics.emplace_back(k.size(), kNaN);
        return static_cast<int>(k.metrics.size() - 1);
    }

    std::uint32_t kernel(const std::string& name, const std::string& type, const std::string& taskType, double startUs,
                         double durUs, std::int64_t stream = 2, const std::string& shapes = "",
                         const std::string& dtypes = "", std::int64_t blockDim = -1)
    {
        auto& k = p->kernels;
        auto& s = p->strings;
        k.device.push_back(0);
        k.step.push_back(-1);
        k.modelId.push_back(-1);
        k.streamId.push_back(stream);
        k.taskId.push_back(static_cast<std::int64_t>(k.start.size()));
        k.contextId.push_back(-1);
        k.start.push_back(us(startUs));
        k.dur.push_back(us(durUs));
        k.wait.push_back(0);
        k.name.push_back(s.intern(name));
        k.type.push_back(s.intern(type));
        k.taskType.push_back(s.intern(taskType));
        k.opState.push_back(s.intern(""));
        k.inputShapes.push_back(s.intern(shapes));
        k.inputDtypes.push_back(s.intern(dtypes));
        k.inputFormats.push_back(s.intern(""));
        k.outputShapes.push_back(s.intern(""));
        k.outputDtypes.push_back(s.intern(""));
        k.outputFormats.push_back(s.intern(""));
        k.blockDim.push_back(blockDim);
        k.mixBlockDim.push_back(-1);
        for (auto& m : k.metrics)
            m.push_back(kNaN);
        for (auto& e : k.extra)
            e.push_back(s.intern(""));
        k.slice.push_back(kNone);
        return static_cast<std::uint32_t>(k.start.size() - 1);
    }

    void set(std::uint32_t row, const std::string& metricName, double v)
    {
        const int m = metric(metricName);
        p->kernels.metrics[static_cast<std::size_t>(m)].set(row, v);
    }

    // One step_trace_time row (ms).
    void step(double computingMs, double commNoMs, double freeMs, const std::string& name = "")
    {
        StepRow r;
        r.step = name.empty() ? std::to_string(p->steps.size() + 1) : name;
        r.computing = ms(computingMs);
        r.commNotOverlapped = ms(commNoMs);
        r.free = ms(freeMs);
        r.overlapped = 0;
        r.communication = ms(commNoMs);
        p->steps.push_back(r);
    }

    CommOp& commOp(const std::string& name, double waitMs, double transitMs, const std::string& step = "step1")
    {
        CommOp op;
        op.step = step;
        op.kind = "collective";
        op.fullName = name + "@123";
        op.opName = name;
        op.group = "123";
        op.waitMs = waitMs;
        op.transitMs = transitMs;
        op.elapseMs = waitMs + transitMs;
        op.waitRatio = waitMs + transitMs > 0 ? waitMs / (waitMs + transitMs) : kNaN;
        p->commOps.push_back(op);
        return p->commOps.back();
    }

    void info(int aiCore = 24, int aiv = 48, double mhz = 1800)
    {
        DeviceInfo d;
        d.device = 0;
        d.aiCoreNum = aiCore;
        d.aivNum = aiv;
        d.aicFrequencyMHz = mhz;
        d.chip = "Ascend910B3";
        p->deviceInfo.push_back(d);
    }

    std::shared_ptr<Profile> p;
};

inline Session session(std::initializer_list<std::shared_ptr<Profile>> ranks)
{
    Session s;
    s.root = "/tmp/fixture";
    s.layout = "torch_npu";
    for (auto& r : ranks) {
        r->finalize();
        s.ranks.push_back(r);
    }
    return s;
}

inline advisor::Thresholds defaults() { return advisor::Thresholds::defaults(); }

inline const advisor::Finding* find(const advisor::AdvisorReport& r, const std::string& idOrRule)
{
    for (const auto& f : r.findings)
        if (f.id == idOrRule)
            return &f;
    for (const auto& f : r.findings)
        if (f.rule == idOrRule)
            return &f;
    return nullptr;
}

// What a report holds, for the message of a finding that is not there.
inline QString idsOf(const advisor::AdvisorReport& r)
{
    QStringList ids;
    for (const auto& f : r.findings)
        ids << QString::fromStdString(f.id);
    return ids.join(QLatin1String(", "));
}

} // namespace fixture

// The finding `idOrRule` of `report` as `var`, or this test fails here naming it and what the
// report does hold: a rule that was renamed or left unregistered fails its own tests instead of
// dereferencing null and taking the whole executable down.
#define FIXTURE_FINDING(var, report, idOrRule)                                                          \
    const ::npuscope::advisor::Finding* var = ::fixture::find(report, idOrRule);                         \
    QVERIFY2(var, qPrintable(QStringLiteral("no finding %1 in the report; it has: %2")                  \
                                 .arg(QString::fromStdString(std::string(idOrRule)), ::fixture::idsOf(report))))
