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
    // The open list takes no release for a double-click interval after it shows (a release
    // of the opening click would choose an item otherwise): a person does not click faster.
    QTest::qWait(QApplication::doubleClickInterval() + 50);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, rect.center());
    QTRY_VERIFY(!list->isVisible());
    QCOMPARE(combo->currentIndex(), i);
}

} // namespace npuscope::testing
