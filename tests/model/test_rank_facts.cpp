// The op groups of RankFacts (opTypes, opShapes): on a hand-built profile whose groups are
// worked out in the comments, then on a real kernel_details.csv against counts and sums taken
// from the file with Python's csv module (class by Accelerator Core and op type, as rank_facts.h
// defines it).
#include "test_main.h"
#include "analysis_fixtures.h"
#include "model/analysis/rank_facts.h"
#include "model/formats/loader.h"

#include <QtTest>

#include <map>
#include <set>

namespace test_rank_facts {

using namespace npuscope;
using namespace npuscope::fixtures;

namespace {

const TaskGroup* find(const std::vector<TaskGroup>& groups, TaskClass cls, const std::string& key)
{
    for (const auto& g : groups)
        if (g.cls == cls && g.key == key)
            return &g;
    return nullptr;
}

void setShapes(Profile& p, std::uint32_t row, const std::string& shapes, const std::string& dtypes)
{
    p.kernels.inputShapes[row] = p.strings.intern(shapes);
    p.kernels.inputDtypes[row] = p.strings.intern(dtypes);
}

// Every Cube and Vector task with a kernel row is in exactly one group of `groups`, each group's
// tasks are in start order and of its class, its sumDur is their sum, and the groups are sorted
// by class, then key.
void checkPartition(const RankFacts& f, const std::vector<TaskGroup>& groups)
{
    std::set<const Task*> seen;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const TaskGroup& g = groups[i];
        if (i > 0)
            QVERIFY(std::make_pair(groups[i - 1].cls, groups[i - 1].key) < std::make_pair(g.cls, g.key));
        double sum = 0;
        for (std::size_t j = 0; j < g.tasks.size(); ++j) {
            QCOMPARE(g.tasks[j]->cls, g.cls);
            QCOMPARE(f.str(g.tasks[j]->type), g.type);
            if (j > 0)
                QVERIFY(g.tasks[j - 1]->start <= g.tasks[j]->start);
            QVERIFY(seen.insert(g.tasks[j]).second);
            sum += static_cast<double>(g.tasks[j]->dur);
        }
        QCOMPARE(g.sumDur, sum);
    }
    std::size_t expected = 0;
    for (const Task& t : f.tasks)
        if ((t.cls == TaskClass::Cube || t.cls == TaskClass::Vector) && t.kernel != kNone)
            ++expected;
    QCOMPARE(seen.size(), expected);
}

} // namespace

class TestRankFacts : public QObject {
    Q_OBJECT
private slots:
    void groupsOfAHandBuiltProfile()
    {
        Profile p;
        // MatMul: two of shape A (1 + 2 µs), one of shape B (4 µs); Add: 100 + 300 ns of one
        // shape; an AI CPU op and an HCCL op that no group takes.
        setShapes(p, addKernel(p, "MatMul_1", "MatMul", "AI_CORE", 10000, 1000), "8,8;8,8", "FLOAT16;FLOAT16");
        setShapes(p, addKernel(p, "MatMul_2", "MatMul", "AI_CORE", 20000, 2000), "8,8;8,8", "FLOAT16;FLOAT16");
        setShapes(p, addKernel(p, "MatMul_3", "MatMul", "AI_CORE", 30000, 4000), "16,8;8,8", "FLOAT;FLOAT");
        setShapes(p, addKernel(p, "Add_1", "Add", "AI_VECTOR_CORE", 40000, 100), "8", "");
        setShapes(p, addKernel(p, "Add_2", "Add", "AI_VECTOR_CORE", 50000, 300), "8", "");
        addKernel(p, "Where_1", "Where", "AI_CPU", 60000, 500);
        addKernel(p, "hcom_allReduce_1", "hcom_allReduce_", "HCCL", 70000, 900);
        p.finalize();
        const RankFacts f(p);

        QCOMPARE(f.opTypes.size(), std::size_t(2));
        const TaskGroup* mm = find(f.opTypes, TaskClass::Cube, "MatMul");
        QVERIFY(mm);
        QCOMPARE(mm->tasks.size(), std::size_t(3));
        QCOMPARE(mm->sumDur, 7000.0);
        const TaskGroup* add = find(f.opTypes, TaskClass::Vector, "Add");
        QVERIFY(add);
        QCOMPARE(add->sumDur, 400.0);
        QCOMPARE(f.opTypes.front().key, std::string("MatMul")); // Cube sorts before Vector

        QCOMPARE(f.opShapes.size(), std::size_t(3));
        const TaskGroup* a = find(f.opShapes, TaskClass::Cube, "MatMul [8,8;8,8 FLOAT16;FLOAT16]");
        QVERIFY(a);
        QCOMPARE(a->tasks.size(), std::size_t(2));
        QCOMPARE(a->sumDur, 3000.0);
        QCOMPARE(a->shapes, std::string("8,8;8,8 FLOAT16;FLOAT16"));
        QCOMPARE(a->dtypes, std::string("FLOAT16;FLOAT16"));
        const TaskGroup* b = find(f.opShapes, TaskClass::Cube, "MatMul [16,8;8,8 FLOAT;FLOAT]");
        QVERIFY(b);
        QCOMPARE(b->sumDur, 4000.0);
        const TaskGroup* v = find(f.opShapes, TaskClass::Vector, "Add [8]");
        QVERIFY(v);
        QCOMPARE(v->tasks.size(), std::size_t(2));
        checkPartition(f, f.opTypes);
        checkPartition(f, f.opShapes);
    }

    void groupsOfARealKernelTable()
    {
        const std::string dir = std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt";
        const LoadResult lr = loadSession(dir);
        QVERIFY2(lr.session, lr.error.c_str());
        const Profile& p = *lr.session->ranks.front();
        const RankFacts f(p);
        // From kernel_details.csv: 187 AI_CORE / AI_VECTOR_CORE / MIX_AIV / DSA_SQE rows (23 +
        // 149 + 13 + 2 DSAGenBitMask), of 33 op types (5 matrix ones) and 128 (type, input
        // shapes, input dtypes) triples (23 matrix ones).
        std::size_t tasks = 0, cubeTypes = 0, cubeShapes = 0;
        for (const auto& g : f.opTypes) {
            tasks += g.tasks.size();
            cubeTypes += g.cls == TaskClass::Cube;
        }
        for (const auto& g : f.opShapes)
            cubeShapes += g.cls == TaskClass::Cube;
        QCOMPARE(tasks, std::size_t(187));
        QCOMPARE(f.opTypes.size(), std::size_t(33));
        QCOMPARE(cubeTypes, std::size_t(5));
        QCOMPARE(f.opShapes.size(), std::size_t(128));
        QCOMPARE(cubeShapes, std::size_t(23));
        const TaskGroup* conv = find(f.opTypes, TaskClass::Cube, "Conv2D");
        QVERIFY(conv);
        QCOMPARE(conv->tasks.size(), std::size_t(5));
        QCOMPARE(conv->sumDur, 723434.0); // 723.434 µs
        const TaskGroup* add = find(f.opTypes, TaskClass::Vector, "ForeachAddList");
        QVERIFY(add);
        QCOMPARE(add->sumDur, 1959079.0);
        checkPartition(f, f.opTypes);
        checkPartition(f, f.opShapes);
    }
};

NPUSCOPE_TEST_APPLESS_MAIN(TestRankFacts)

} // namespace test_rank_facts

#include "test_rank_facts.moc"
