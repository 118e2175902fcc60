// describeSlice (the selection panel's data) and the ranking of generic Chrome traces by slice
// name, on a small hand-written torch_npu-like timeline and on a real catapult trace whose
// counts, totals and self times the test recomputes from the JSON itself.
#include "test_main.h"
#include "model/analysis/op_stats.h"
#include "model/analysis/slice_detail.h"
#include "model/formats/loader.h"
#include "model/formats/readers.h"
#include "model/io/mapped_file.h"

#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace test_slice_detail {

using namespace npuscope;

namespace {

// Python host ops (train_step ⊃ aten::mm, aten::add), three device tasks on Stream 7 and one
// async_npu flow from aten::mm to MatMul. Times in µs.
const char* kTimeline = R"([
{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"Python"}},
{"ph":"M","name":"process_name","pid":2,"tid":0,"args":{"name":"Ascend Hardware"}},
{"ph":"M","name":"thread_name","pid":2,"tid":7,"args":{"name":"Stream 7"}},
{"ph":"X","name":"train_step","pid":1,"tid":10,"ts":"1000.000","dur":100,"cat":"python_function"},
{"ph":"X","name":"aten::mm","pid":1,"tid":10,"ts":"1010.000","dur":20,"cat":"cpu_op","args":{"Call stack":"model.py(12): forward;train.py(40): step","Sequence number":5}},
{"ph":"X","name":"aten::add","pid":1,"tid":10,"ts":"1040.000","dur":30,"cat":"cpu_op"},
{"ph":"X","name":"MatMul","pid":2,"tid":7,"ts":"1050.000","dur":8,"args":{"Task Id":11,"Task Type":"AI_CORE"}},
{"ph":"X","name":"Add","pid":2,"tid":7,"ts":"1060.000","dur":5,"args":{"Task Id":12,"Task Type":"AI_VECTOR_CORE"}},
{"ph":"X","name":"Cast","pid":2,"tid":7,"ts":"1070.000","dur":3,"args":{"Task Id":13,"Task Type":"AI_VECTOR_CORE"}},
{"ph":"s","id":"99","name":"async_npu","cat":"async_npu","pid":1,"tid":10,"ts":"1015.000"},
{"ph":"f","id":"99","name":"async_npu","cat":"async_npu","pid":2,"tid":7,"ts":"1050.000","bp":"e"}
])";

// `lazyArgs`: the arguments kept as the events' offsets in `file`, which then holds `json`.
Profile load(std::string_view json, const std::string& file, bool lazyArgs = false)
{
    Profile p;
    ReadContext ctx;
    ctx.file = file;
    ctx.lazyArgs = lazyArgs;
    readers::readTimelineJson(json, p, ctx);
    p.finalize();
    return p;
}

std::uint32_t find(const Profile& p, std::string_view name)
{
    for (std::uint32_t r = 0; r < p.slices.size(); ++r)
        if (p.str(p.slices.name[r]) == name)
            return r;
    return kNone;
}

std::string field(const std::vector<DetailField>& fs, const std::string& key)
{
    for (const auto& f : fs)
        if (f.key == key)
            return f.value;
    return "<absent>";
}

} // namespace

class TestSliceDetail : public QObject {
    Q_OBJECT
private slots:
    void hostOpSlice()
    {
        const Profile p = load(kTimeline, "trace_view.json");
        const std::uint32_t step = find(p, "train_step");
        QVERIFY(step != kNone);
        const SliceDetail d = describeSlice(p, step, p.begin);
        QVERIFY(d.valid);
        QCOMPARE(d.name, std::string("train_step"));
        QCOMPARE(d.track, std::string("Python · Thread 10"));
        QCOMPARE(d.start, TimeNs(0));
        QCOMPARE(d.dur, TimeNs(100'000));
        QCOMPARE(d.self, TimeNs(100'000 - 20'000 - 30'000)); // minus aten::mm and aten::add
        QCOMPARE(d.category, std::string("python_function"));
        QVERIFY(!d.hostOp);

        const SliceDetail mm = describeSlice(p, find(p, "aten::mm"), p.begin);
        QCOMPARE(mm.start, TimeNs(10'000));
        QCOMPARE(mm.self, TimeNs(20'000));
        QCOMPARE(mm.depth, 1);
        QCOMPARE(field(mm.args, "Sequence number"), std::string("5"));
        QCOMPARE(field(mm.args, "Call stack"), std::string("model.py(12): forward;train.py(40): step"));
        QCOMPARE(mm.callStack, (std::vector<std::string>{"model.py(12): forward", "train.py(40): step"}));
        QCOMPARE(mm.flowsOut.size(), std::size_t(1));
        QCOMPARE(mm.flowsOut[0].name, std::string("MatMul"));
        QCOMPARE(mm.flowsOut[0].label, std::string("async_npu"));
        QVERIFY(mm.flowsIn.empty());
        QVERIFY(mm.next && mm.next->name == "aten::add");
        QVERIFY(!mm.previous);
    }

    // The same detail when the arguments are read from the file again; none, and the reason
    // naming the file, once it changed.
    void hostOpSliceWithLazyArguments()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("trace_view.json").toStdString();
        std::ofstream(path, std::ios::binary) << kTimeline;
        const Profile p = load(kTimeline, path, true);
        QVERIFY(p.args.args.empty());
        const SliceDetail mm = describeSlice(p, find(p, "aten::mm"), p.begin);
        QCOMPARE(field(mm.args, "Sequence number"), std::string("5"));
        QCOMPARE(field(mm.args, "Call stack"), std::string("model.py(12): forward;train.py(40): step"));
        QCOMPARE(mm.callStack, (std::vector<std::string>{"model.py(12): forward", "train.py(40): step"}));
        QVERIFY(mm.argsError.empty());

        std::ofstream(path, std::ios::binary | std::ios::app) << "\n";
        const SliceDetail changed = describeSlice(p, find(p, "aten::mm"), p.begin);
        QVERIFY(changed.args.empty());
        QVERIFY(changed.callStack.empty());
        QVERIFY2(changed.argsError.find(path + " changed") == 0, changed.argsError.c_str());
    }

    void deviceTask()
    {
        const Profile p = load(kTimeline, "trace_view.json");
        const std::uint32_t mm = find(p, "MatMul");
        const SliceDetail d = describeSlice(p, mm, p.begin);
        QCOMPARE(d.trackKind, TrackKind::Stream);
        QCOMPARE(d.track, std::string("Ascend Hardware · Stream 7"));
        QCOMPARE(d.start, TimeNs(50'000));
        QCOMPARE(d.dur, TimeNs(8'000));
        QCOMPARE(d.self, TimeNs(8'000));
        QCOMPARE(field(d.args, "Task Id"), std::string("11"));
        QCOMPARE(d.flowsIn.size(), std::size_t(1));
        QCOMPARE(d.flowsIn[0].name, std::string("aten::mm"));
        QCOMPARE(d.flowsIn[0].slice, find(p, "aten::mm"));
        QCOMPARE(d.flowsIn[0].start, TimeNs(10'000));
        QVERIFY(d.hostOp);
        QCOMPARE(d.hostOp->name, std::string("aten::mm"));
        QCOMPARE(d.hostAncestors, std::vector<std::string>{"train_step"});
        QCOMPARE(d.callStack.size(), std::size_t(2));
        QVERIFY(!d.previous);
        QVERIFY(d.next && d.next->name == "Add" && d.next->start == 60'000);

        const SliceDetail add = describeSlice(p, find(p, "Add"), p.begin);
        QVERIFY(add.previous && add.previous->name == "MatMul");
        QVERIFY(add.next && add.next->name == "Cast");
        QVERIFY(add.flowsIn.empty() && !add.hostOp);
        QVERIFY(!describeSlice(p, static_cast<std::uint32_t>(p.slices.size()), p.begin).valid);
    }

    void kernelRowOnRealProfile()
    {
        // A device task of the level1 sample joined to its kernel_details.csv row: the panel
        // lists the row's shapes, block dim and every metric it has.
        const std::string root = std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt";
        const LoadResult lr = loadSession(root);
        QVERIFY(lr.session && lr.session->ranks.size() == 1);
        const Profile& p = *lr.session->ranks[0];
        std::uint32_t task = kNone;
        for (std::uint32_t r = 0; r < p.slices.size() && task == kNone; ++r) {
            const std::uint32_t k = p.slices.kernel[r];
            if (k != kNone && p.kernels.blockDim[k] > 0 && !p.str(p.kernels.inputShapes[k]).empty())
                task = r;
        }
        QVERIFY(task != kNone);
        const std::uint32_t k = p.slices.kernel[task];
        const SliceDetail d = describeSlice(p, task, p.begin);
        QCOMPARE(field(d.kernel, "Name"), std::string(p.str(p.kernels.name[k])));
        QCOMPARE(field(d.kernel, "Input Shapes"), std::string(p.str(p.kernels.inputShapes[k])));
        QCOMPARE(field(d.kernel, "Block Dim"), std::to_string(p.kernels.blockDim[k]));
        std::size_t metrics = 0;
        for (std::size_t m = 0; m < p.kernels.metrics.size(); ++m)
            metrics += !std::isnan(p.kernels.metrics[m][k]);
        QVERIFY(metrics > 0);
        QCOMPARE(d.kernel.size() >= metrics, true);
        const int mac = p.kernels.metricIndex({"aic_mac_ratio"});
        if (mac >= 0 && !std::isnan(p.kernels.metrics[mac][k]))
            QCOMPARE(std::stod(field(d.kernel, "aic_mac_ratio")), p.kernels.metrics[mac][k]);
        // The task's stream neighbours are the slices before and after it on its track.
        const Track& t = p.tracks[p.slices.track[task].v];
        if (task > t.sliceBegin)
            QCOMPARE(d.previous->slice, task - 1);
        if (task + 1 < t.sliceEnd)
            QCOMPARE(d.next->slice, task + 1);
        // In the level1 data every device task has an async_npu flow from its Python op.
        QVERIFY(!d.flowsIn.empty());
    }

    void genericTraceRankedByName()
    {
        const std::string path = std::string(NPUSCOPE_SAMPLES) + "/chrome-trace/catapult/tracing/test_data/big_trace.json";
        std::string err;
        auto m = MappedFile::open(path, &err);
        QVERIFY2(m, err.c_str());
        Profile p;
        ReadContext ctx;
        ctx.file = path;
        readers::readTimelineJson(m->bytes(), p, ctx);
        p.finalize();

        // Independently: pair B/E per thread with a stack; a slice's self time is its duration
        // minus its direct children's.
        std::ifstream in(path);
        std::stringstream ss;
        ss << in.rdbuf();
        const auto events = nlohmann::json::parse(ss.str());
        struct Open { std::string name; std::int64_t ts; std::int64_t children = 0; };
        std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Open>> stacks;
        std::map<std::string, std::uint64_t> count;
        std::map<std::string, std::int64_t> total, self;
        for (const auto& e : events) {
            auto& st = stacks[{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()}];
            const std::int64_t ts = e["ts"].get<std::int64_t>() * 1000;
            if (e["ph"] == "B") {
                st.push_back({e["name"].get<std::string>(), ts});
            } else if (e["ph"] == "E") {
                QVERIFY(!st.empty());
                const Open o = st.back();
                st.pop_back();
                const std::int64_t dur = ts - o.ts;
                ++count[o.name];
                total[o.name] += dur;
                self[o.name] += dur - o.children;
                if (!st.empty())
                    st.back().children += dur;
            }
        }
        QCOMPARE(count.size() > 10, true);

        OpStatsOptions o;
        o.rankGenericSlices = true;
        const OpStatsResult r = computeOpStats(p, o);
        QVERIFY(r.genericSlices);
        QCOMPARE(r.groups.size(), count.size());
        std::int64_t all = 0;
        for (const auto& [name, t] : total)
            all += t;
        QCOMPARE(r.deviceTotal, all);
        for (const OpGroupStats& g : r.groups) {
            QVERIFY2(count.count(g.key), g.key.c_str());
            QCOMPARE(g.count, count[g.key]);
            QCOMPARE(g.total, total[g.key]);
            QCOMPARE(g.self, self[g.key]);
        }
        // Sorted by total: the first group is the largest.
        QCOMPARE(r.groups.front().total, std::max_element(total.begin(), total.end(), [](auto& a, auto& b) {
                                             return a.second < b.second;
                                         })->second);
        // The advisor's view (default options) still sees no operators in a generic trace.
        const OpStatsResult plain = computeOpStats(p);
        QVERIFY2(plain.groups.empty(), plain.groups.empty() ? "" : (plain.groups[0].key + " " + std::to_string(plain.groups[0].count) + " " + trackKindName(p.tracks[p.slices.track[plain.groups[0].rows[0]].v].kind)).c_str());
    }
};

NPUSCOPE_TEST_MAIN(TestSliceDetail)

} // namespace test_slice_detail

#include "test_slice_detail.moc"
