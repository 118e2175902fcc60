#pragma once
// The tests of one folder (tests/model, tests/advisor, tests/views) are one executable. Each test
// file wraps its code in a namespace named after the file and ends with one of the macros below
// instead of QTEST_MAIN, QTEST_GUILESS_MAIN or QTEST_APPLESS_MAIN: the macro registers the test
// under the file's name, and `<executable> test_x [QTest options]` runs test_x alone, in a
// process of its own, as ctest does (tests/test_main.cpp).
#include <QtTest>

namespace npuscope::test_registry {

using RunTest = int (*)(int argc, char** argv);
// Registers `run` under the stem of `file` ("…/test_x.cpp" -> "test_x"); always true.
bool add(const char* file, RunTest run);

} // namespace npuscope::test_registry

// What QTEST_MAIN_WRAPPER does in main(), as a registered function.
#define NPUSCOPE_TEST_WRAPPER(TestObject, ...) \
    int npuscopeRunTest(int argc, char* argv[]) \
    { \
        QT_PREPEND_NAMESPACE(QTest::Internal::callInitMain)<TestObject>(); \
        __VA_ARGS__ \
        TestObject tc; \
        QTEST_SET_MAIN_SOURCE_PATH \
        return QTest::qExec(&tc, argc, argv); \
    } \
    const bool npuscopeTestRegistered = ::npuscope::test_registry::add(__FILE__, &npuscopeRunTest);

#define NPUSCOPE_TEST_MAIN(TestObject) NPUSCOPE_TEST_WRAPPER(TestObject, QTEST_MAIN_SETUP())
#define NPUSCOPE_TEST_GUILESS_MAIN(TestObject) NPUSCOPE_TEST_WRAPPER(TestObject, QTEST_QAPP_SETUP(QCoreApplication))
#define NPUSCOPE_TEST_APPLESS_MAIN(TestObject) NPUSCOPE_TEST_WRAPPER(TestObject)
// A test with a main of its own: `run` is that main.
#define NPUSCOPE_TEST_FUNCTION(run) const bool npuscopeTestRegistered = ::npuscope::test_registry::add(__FILE__, &run);
