#pragma once
// Choosing an item of a combo box as a person does, for the view tests: a click opens its list, a
// click on the item chooses it.
#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QTest>

namespace npuscope::testing {

// Chooses `text` in `combo`; fails the calling test when it cannot.
inline void clickComboItem(QComboBox* combo, const QString& text)
{
    QVERIFY(combo && combo->isEnabled());
    const int i = combo->findText(text);
    QVERIFY2(i >= 0, qPrintable(text));
    QTest::mouseClick(combo, Qt::LeftButton);
    QAbstractItemView* list = combo->view();
    QTRY_VERIFY(list->isVisible());
    const QRect rect = list->visualRect(list->model()->index(i, combo->modelColumn()));
    QVERIFY(rect.isValid());
    // A person moves onto the item, then clicks. The open list takes no release for a
    // double-click interval after the opening press (a release of the opening click would
    // choose an item otherwise), which a move of more than a few pixels ends early. The wait
    // is followed by one more pass of the event loop, so that the interval's timer has fired
    // even when the loop's last pass inside the wait began before it was due (a loaded machine).
    QTest::mouseMove(list->viewport(), rect.center());
    QTest::qWait(QApplication::doubleClickInterval() + 50);
    QCoreApplication::processEvents();
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, rect.center());
    QTRY_VERIFY(!list->isVisible());
    QCOMPARE(combo->currentIndex(), i);
}

} // namespace npuscope::testing
