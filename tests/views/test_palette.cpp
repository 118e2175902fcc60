// The operator palette: every two of its colours at least 20 apart in CIEDE2000 (computed here by
// a separate implementation, itself checked against Sharma, Wu and Dalal's published test pairs),
// distinct colours for keys shown together however their names hash, the same colour in the
// timeline legend and the ranking's swatches on the real level-1 run, and links readable on the
// dark theme.
#include "test_main.h"
#include "model/formats/loader.h"
#include "views/operator_ranking_model.h"
#include "views/palette.h"
#include "views/selection_controller.h"
#include "views/theme.h"
#include "views/timeline_layout.h"
#include "views/timeline_view.h"
#include "colour_distance.h"

#include <QLabel>
#include <QTest>

#include <array>
#include <cmath>
#include <set>

namespace test_palette {

using namespace npuscope;
using namespace npuscope::testing;

namespace {

struct SharmaPair {
    Lab x, y;
    double de;
};

// Table 1 of Sharma, Wu and Dalal, "The CIEDE2000 color-difference formula" (2005): all 34 pairs.
constexpr std::array<SharmaPair, 34> kSharma = {{
        {{50.0000, 2.6772, -79.7751}, {50.0000, 0.0000, -82.7485}, 2.0425},
        {{50.0000, 3.1571, -77.2803}, {50.0000, 0.0000, -82.7485}, 2.8615},
        {{50.0000, 2.8361, -74.0200}, {50.0000, 0.0000, -82.7485}, 3.4412},
        {{50.0000, -1.3802, -84.2814}, {50.0000, 0.0000, -82.7485}, 1.0000},
        {{50.0000, -1.1848, -84.8006}, {50.0000, 0.0000, -82.7485}, 1.0000},
        {{50.0000, -0.9009, -85.5211}, {50.0000, 0.0000, -82.7485}, 1.0000},
        {{50.0000, 0.0000, 0.0000}, {50.0000, -1.0000, 2.0000}, 2.3669},
        {{50.0000, -1.0000, 2.0000}, {50.0000, 0.0000, 0.0000}, 2.3669},
        {{50.0000, 2.4900, -0.0010}, {50.0000, -2.4900, 0.0009}, 7.1792},
        {{50.0000, 2.4900, -0.0010}, {50.0000, -2.4900, 0.0010}, 7.1792},
        {{50.0000, 2.4900, -0.0010}, {50.0000, -2.4900, 0.0011}, 7.2195},
        {{50.0000, 2.4900, -0.0010}, {50.0000, -2.4900, 0.0012}, 7.2195},
        {{50.0000, -0.0010, 2.4900}, {50.0000, 0.0009, -2.4900}, 4.8045},
        {{50.0000, -0.0010, 2.4900}, {50.0000, 0.0010, -2.4900}, 4.8045},
        {{50.0000, -0.0010, 2.4900}, {50.0000, 0.0011, -2.4900}, 4.7461},
        {{50.0000, 2.5000, 0.0000}, {50.0000, 0.0000, -2.5000}, 4.3065},
        {{50.0000, 2.5000, 0.0000}, {73.0000, 25.0000, -18.0000}, 27.1492},
        {{50.0000, 2.5000, 0.0000}, {61.0000, -5.0000, 29.0000}, 22.8977},
        {{50.0000, 2.5000, 0.0000}, {56.0000, -27.0000, -3.0000}, 31.9030},
        {{50.0000, 2.5000, 0.0000}, {58.0000, 24.0000, 15.0000}, 19.4535},
        {{50.0000, 2.5000, 0.0000}, {50.0000, 3.1736, 0.5854}, 1.0000},
        {{50.0000, 2.5000, 0.0000}, {50.0000, 3.2972, 0.0000}, 1.0000},
        {{50.0000, 2.5000, 0.0000}, {50.0000, 1.8634, 0.5757}, 1.0000},
        {{50.0000, 2.5000, 0.0000}, {50.0000, 3.2592, 0.3350}, 1.0000},
        {{60.2574, -34.0099, 36.2677}, {60.4626, -34.1751, 39.4387}, 1.2644},
        {{63.0109, -31.0961, -5.8663}, {62.8187, -29.7946, -4.0864}, 1.2630},
        {{61.2901, 3.7196, -5.3901}, {61.4292, 2.2480, -4.9620}, 1.8731},
        {{35.0831, -44.1164, 3.7933}, {35.0232, -40.0716, 1.5901}, 1.8645},
        {{22.7233, 20.0904, -46.6940}, {23.0331, 14.9730, -42.5619}, 2.0373},
        {{36.4612, 47.8580, 18.3852}, {36.2715, 50.5065, 21.2231}, 1.4146},
        {{90.8027, -2.0831, 1.4410}, {91.1528, -1.6435, 0.0447}, 1.4441},
        {{90.9257, -0.5406, -0.9208}, {88.6381, -0.8985, -0.7239}, 1.5381},
        {{6.7747, -0.2908, -2.4247}, {5.8714, -0.0985, -2.2286}, 0.6377},
        {{2.0776, 0.0795, -1.1350}, {0.9033, -0.0636, -0.5514}, 0.9082},
}};

const std::string kLevel1 = NPUSCOPE_SAMPLES "/msinsight/test/data/pytorch/text/level1/rank0_ascend_pt";

} // namespace

class TestPalette : public QObject {
    Q_OBJECT
private slots:
    void ciede2000MatchesSharma()
    {
        for (const SharmaPair& p : kSharma) {
            QVERIFY2(std::abs(deltaE2000(p.x, p.y) - p.de) < 1e-4, qPrintable(QString::number(deltaE2000(p.x, p.y))));
            QVERIFY(std::abs(deltaE2000(p.y, p.x) - p.de) < 1e-4); // symmetric
        }
    }

    // Every two colours of the palette, compute and communication, at least 20 apart.
    void everyPairAtLeast20Apart()
    {
        QVERIFY(kPaletteColours >= 24);
        double closest = 1e9;
        for (int i = 0; i < kPaletteColours; ++i)
            for (int j = i + 1; j < kPaletteColours; ++j) {
                const double d = deltaE2000(toLab(paletteColor(i)), toLab(paletteColor(j)));
                QVERIFY2(d >= 20, qPrintable(QStringLiteral("%1 and %2: %3").arg(paletteColor(i).name(), paletteColor(j).name()).arg(d)));
                closest = std::min(closest, d);
            }
        QVERIFY(closest > 21.0 && closest < 21.1); // the value the table's comment gives
    }

    // Communication shades are reds (CIE hue 347° to 60°, chroma 25 or more), compute colours are not.
    void communicationHasItsOwnHues()
    {
        auto hue = [](const Lab& c) { return std::fmod(deg(std::atan2(c.b, c.a)) + 360, 360); };
        for (int i = 0; i < kPaletteColours; ++i) {
            const Lab c = toLab(paletteColor(i));
            const double h = hue(c), chroma = std::hypot(c.a, c.b);
            const bool red = chroma >= 25 && (h >= 347 || h < 60);
            QCOMPARE(red, i >= kPaletteSize);
        }
        QVERIFY(isCommunicationKey("hcom_allReduce__123_0_1"));
        QVERIFY(isCommunicationKey("Notify_Wait"));
        QVERIFY(!isCommunicationKey("MatMulV2"));
        QVERIFY(preferredPaletteIndex("Notify_Wait") >= kPaletteSize);
    }

    // Names a 12-colour hash gave one colour get three once claimed together; a key keeps its
    // slot while a claim holds it, and a second claim's new keys take slots the first left free.
    void claimedKeysNeverShare()
    {
        std::vector<PaletteKey> keys = {{"MatMulV2", 9}, {"Swish", 8}, {"SoftmaxV2", 7}, {"Memcpy", 6},
                                        {"LayerNorm", 5}, {"Add", 4}, {"Notify_Wait", 3}, {"hcom_allReduce_", 2}};
        for (int i = 0; i < 13; ++i)
            keys.push_back({"Op" + std::to_string(i), 1.0 / (i + 1)});
        QCOMPARE(keys.size(), std::size_t(21));
        PaletteClaim first = claimPaletteSlots(keys);
        std::set<int> used;
        for (const PaletteKey& k : keys)
            used.insert(paletteIndexFor(k.key));
        QCOMPARE(used.size(), keys.size());
        QVERIFY(paletteIndexFor("Notify_Wait") >= kPaletteSize && paletteIndexFor("hcom_allReduce_") >= kPaletteSize);
        QCOMPARE(colorFor("Swish"), paletteColor(paletteIndexFor("Swish")));
        // The heaviest key always gets its own preferred slot.
        QCOMPARE(paletteIndexFor("MatMulV2"), preferredPaletteIndex("MatMulV2"));

        const int swish = paletteIndexFor("Swish");
        PaletteClaim second = claimPaletteSlots({{"Swish", 1}, {"FlashAttentionScore", 100}, {"RmsNorm", 50}});
        QCOMPARE(paletteIndexFor("Swish"), swish);
        QVERIFY(!used.count(paletteIndexFor("FlashAttentionScore")));
        QVERIFY(!used.count(paletteIndexFor("RmsNorm")));
        QVERIFY(paletteIndexFor("RmsNorm") != paletteIndexFor("FlashAttentionScore"));

        // With every claim gone a new claim starts afresh: the same keys, the same colours.
        std::map<std::string, int> before;
        for (const PaletteKey& k : keys)
            before[k.key] = paletteIndexFor(k.key);
        first.reset();
        second.reset();
        QCOMPARE(paletteIndexFor("RmsNorm"), preferredPaletteIndex("RmsNorm"));
        PaletteClaim again = claimPaletteSlots(keys);
        for (const PaletteKey& k : keys)
            QCOMPARE(paletteIndexFor(k.key), before[k.key]);
    }

    // A run's collective instances are one key: they never take the other operators' colours, so
    // a second timeline's new operators (the Compare tab's optimized run) still find free ones.
    void collectiveInstancesAreOneKey()
    {
        QVERIFY(colourKey("hcom_allReduce__482_66_1") == "hcom_allReduce_");
        QVERIFY(colourKey("hcom_allReduce_") == "hcom_allReduce_");
        QVERIFY(colourKey("hcom_send__x") == "hcom_send__x");
        QVERIFY(colourKey("MatMulV2__3") == "MatMulV2__3");
        std::vector<PaletteKey> baseline = {{"MatMulV2", 90}, {"BatchMatMul", 80}, {"LayerNorm", 70}, {"Cast", 60},
                                            {"SoftmaxV2", 50}, {"Add", 40}, {"Swish", 30}, {"Mul", 20}};
        for (int i = 0; i < 96; ++i)
            baseline.push_back({"hcom_allReduce__482_" + std::to_string(i) + "_1", 0.5});
        const PaletteClaim first = claimPaletteSlots(baseline);
        const std::vector<PaletteKey> optimized = {{"MatMulV2", 90}, {"FlashAttentionScore", 50}, {"AddRmsNorm", 40},
                                                   {"Swish", 30}, {"Mul", 20}, {"hcom_allReduce__482_147_1", 3}};
        const PaletteClaim second = claimPaletteSlots(optimized);
        std::set<int> colours;
        for (const PaletteKey& k : optimized)
            colours.insert(paletteIndexFor(k.key));
        QCOMPARE(colours.size(), optimized.size());
        std::set<int> all;
        for (const PaletteKey& k : baseline)
            all.insert(paletteIndexFor(k.key));
        QCOMPARE(all.size(), std::size_t(9)); // eight operators and one collective
        QCOMPARE(paletteIndexFor("hcom_allReduce__482_7_1"), paletteIndexFor("hcom_allReduce_"));
        QVERIFY(paletteIndexFor("hcom_allReduce_") >= kPaletteSize);
        QVERIFY(!all.count(paletteIndexFor("FlashAttentionScore")) && !all.count(paletteIndexFor("AddRmsNorm")));
    }

    // The real level-1 rank: no two legend keys on one colour, Notify Wait not in MatMulV2's
    // colour, and the ranking's swatches are the legend's colours.
    void realLevel1Legend()
    {
        const LoadResult lr = loadSession(kLevel1);
        QVERIFY(lr.session);
        SelectionController sel;
        TimelineView view(&sel);
        view.resize(1600, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        sel.setSession(lr.session);
        const auto& legend = view.layout().legend;
        QVERIFY(legend.size() >= 10);
        // The entries the legend has room for, as TimelineView::drawLegend lays them out: every
        // one of them, and every one of the heaviest 25, has a colour of its own.
        std::size_t onScreen = 0;
        for (int x = 6; onScreen < legend.size(); ++onScreen) {
            const int w = view.fontMetrics().horizontalAdvance(legend[onScreen].key) + 22;
            if (x + w > view.viewport()->width() - 1)
                break;
            x += w;
        }
        const std::size_t distinct = std::min<std::size_t>(legend.size(), kPaletteColours);
        QVERIFY2(onScreen >= 8 && onScreen <= distinct, qPrintable(QStringLiteral("%1 of %2 at %3 px").arg(onScreen).arg(legend.size()).arg(view.viewport()->width())));
        std::set<int> colours;
        std::map<QString, int> colourOf;
        for (std::size_t i = 0; i < legend.size(); ++i) {
            const LegendEntry& e = legend[i];
            if (i < distinct)
                colours.insert(e.color);
            colourOf[e.key] = e.color;
            QCOMPARE(paletteIndexFor(e.key.toStdString()), e.color);
        }
        QCOMPARE(colours.size(), distinct);
        QStringList keys;
        for (const LegendEntry& e : legend)
            keys << QStringLiteral("%1=%2").arg(e.key).arg(e.color);
        QVERIFY2(colourOf.count(QStringLiteral("MatMulV2")) && colourOf.count(QStringLiteral("Notify Wait")), qPrintable(keys.join(QLatin1Char(' '))));
        QVERIFY(colourOf[QStringLiteral("MatMulV2")] != colourOf[QStringLiteral("Notify Wait")]);
        QVERIFY(colourOf[QStringLiteral("Notify Wait")] >= kPaletteSize);

        OperatorRankingModel ranking;
        ranking.setProfile(lr.session->ranks.front());
        int matched = 0;
        for (int row = 0; row < ranking.rowCount(); ++row) {
            const QModelIndex i = ranking.index(row, OperatorRankingModel::Name);
            const auto it = colourOf.find(i.data().toString());
            if (it == colourOf.end())
                continue;
            QCOMPARE(i.data(Qt::DecorationRole).value<QColor>(), paletteColor(it->second));
            ++matched;
        }
        QVERIFY(matched >= 5);
    }

    // A link set under the light theme is drawn in the dark theme's light blue after a switch.
    void darkThemeLinkReadable()
    {
        applyTheme(Theme::Light);
        QLabel label;
        label.setTextFormat(Qt::RichText);
        label.setText(QStringLiteral("<a href=\"problems\">details details details</a>"));
        label.resize(300, 40);
        label.show();
        QVERIFY(QTest::qWaitForWindowExposed(&label));
        QVERIFY(!label.grab().isNull()); // laid out and drawn in the light theme first
        applyTheme(Theme::Dark);
        QCoreApplication::processEvents();
        const QImage img = label.grab().toImage();
        const QColor link = darkPalette().color(QPalette::Link), bg = darkPalette().color(QPalette::Window);
        int linkPixels = 0, darkBlue = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x) {
                const QColor c = img.pixelColor(x, y);
                linkPixels += std::abs(c.red() - link.red()) + std::abs(c.green() - link.green()) + std::abs(c.blue() - link.blue()) < 30;
                darkBlue += c.blue() > 150 && c.red() < 40 && c.green() < 40;
            }
        QVERIFY2(linkPixels > 20, qPrintable(QString::number(linkPixels)));
        QCOMPARE(darkBlue, 0);
        // WCAG contrast of the link on the window colour: at least 4.5 (readable body text).
        auto lum = [](const QColor& c) {
            auto ch = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
            return 0.2126 * ch(c.redF()) + 0.7152 * ch(c.greenF()) + 0.0722 * ch(c.blueF());
        };
        QVERIFY((lum(link) + 0.05) / (lum(bg) + 0.05) >= 4.5);
        applyTheme(Theme::Light);
    }
};

NPUSCOPE_TEST_MAIN(TestPalette)

} // namespace test_palette

#include "test_palette.moc"
