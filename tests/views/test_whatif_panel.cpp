// The What-if dock on a generated profile: a factor typed into an op type's spin box and a cause
// ticked are replayed off the GUI thread, and the prediction shown is what whatif.h's replay of the
// same changes gives; the op types offered are the heaviest by the profile's own device time.
#include "test_main.h"
#include "model/analysis/whatif.h"
#include "model/formats/loader.h"
#include "model/synth/synth.h"
#include "views/format.h"
#include "views/selection_controller.h"
#include "views/whatif_panel.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include <map>

namespace test_whatif_panel {

using namespace npuscope;

class TestWhatIfPanel : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    SessionPtr m_session;

    static bool settled(const WhatIfPanel& w)
    {
        return QTest::qWaitFor([&w] { return !w.busy() && w.result().ok; }, 60000);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        synth::SynthOptions o;
        o.scenario = "llama2-baseline";
        o.steps = 3;
        const std::string out = m_dir.filePath(QStringLiteral("run")).toStdString();
        QVERIFY(synth::synthesize(out, o).ok);
        LoadResult l = loadSession(out);
        QVERIFY2(l.session && !l.session->ranks.empty(), l.error.c_str());
        m_session = l.session;
    }

    void offersTheHeaviestOpTypes()
    {
        SelectionController sel;
        WhatIfPanel w(&sel);
        sel.setSession(m_session);
        QVERIFY(settled(w));
        // The device time per op type, summed here from the stream tracks' slices.
        const Profile& p = *m_session->ranks.front();
        std::map<std::string, TimeNs> total;
        for (const Track& tr : p.tracks)
            if (tr.kind == TrackKind::Stream)
                for (std::uint32_t s = tr.sliceBegin; s < tr.sliceEnd; ++s) {
                    const std::uint32_t k = p.slices.kernel[s];
                    const bool typed = k != kNone && k < p.kernels.size() && !p.str(p.kernels.type[k]).empty();
                    total[std::string(typed ? p.str(p.kernels.type[k]) : p.str(p.slices.name[s]))] += p.slices.dur[s];
                }
        const QStringList offered = w.opTypes();
        QVERIFY(!offered.isEmpty());
        QVERIFY(offered.size() <= WhatIfPanel::kTopTypes);
        TimeNs heaviest = 0;
        for (const auto& [name, t] : total)
            heaviest = std::max(heaviest, t);
        QCOMPARE(total[offered.front().toStdString()], heaviest);
        for (qsizetype i = 1; i < offered.size(); ++i)
            QVERIFY(total[offered[i - 1].toStdString()] >= total[offered[i].toStdString()]);
        // No change: the prediction is the measured step.
        const WhatIfResult base = replayWhatIf(p, {});
        QVERIFY(base.ok);
        QCOMPARE(w.result().predictedStepNs, base.predictedStepNs);
        QCOMPARE(w.result().measuredStepNs, base.measuredStepNs);
    }

    void factorChangesThePrediction()
    {
        SelectionController sel;
        WhatIfPanel w(&sel);
        w.resize(400, 700);
        w.show();
        sel.setSession(m_session);
        QVERIFY(settled(w));
        const QString type = w.opTypes().front();
        QDoubleSpinBox* box = w.factorBox(type);
        QVERIFY(box);
        // Typed as a person would: select the value, type 0.5, Enter.
        box->setFocus();
        box->selectAll();
        QTest::keyClicks(box, QStringLiteral("0.5"));
        QTest::keyClick(box, Qt::Key_Return);
        QCOMPARE(box->value(), 0.5);
        QVERIFY(w.busy()); // debounced: replayed once the value stays
        QVERIFY(settled(w));
        const Profile& p = *m_session->ranks.front();
        WhatIfChanges c;
        c.scaleTypes.emplace_back(type.toStdString(), 0.5);
        const WhatIfResult want = replayWhatIf(p, c);
        QVERIFY(want.ok);
        QCOMPARE(w.result().predictedStepNs, want.predictedStepNs);
        QVERIFY(w.result().predictedStepNs < w.result().measuredStepNs);
        QVERIFY2(w.predictedText().contains(fmt::duration(want.predictedStepNs)), qPrintable(w.predictedText()));

        // A cause removed too: the changes compose.
        QCheckBox* dep = w.causeBox(QStringLiteral("dependency"));
        QVERIFY(dep);
        QTest::mouseClick(dep, Qt::LeftButton, {}, QPoint(6, dep->height() / 2));
        QVERIFY(dep->isChecked());
        QVERIFY(settled(w));
        c.removeCauses.push_back("dependency");
        const WhatIfResult both = replayWhatIf(p, c);
        QCOMPARE(w.result().predictedStepNs, both.predictedStepNs);
    }
};

NPUSCOPE_TEST_MAIN(TestWhatIfPanel)

} // namespace test_whatif_panel

#include "test_whatif_panel.moc"
