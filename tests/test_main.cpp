// The main of a test folder's executable: `<executable> test_x [QTest options]` runs the test
// registered as test_x (tests/test_main.h); without a known name it lists them and fails.
#include "test_main.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace npuscope::test_registry {

namespace {

std::map<std::string, RunTest>& tests()
{
    static std::map<std::string, RunTest> all;
    return all;
}

} // namespace

bool add(const char* file, RunTest run)
{
    std::string name = file;
    if (const auto slash = name.find_last_of('/'); slash != std::string::npos)
        name.erase(0, slash + 1);
    if (const auto dot = name.find('.'); dot != std::string::npos)
        name.erase(dot);
    tests().emplace(std::move(name), run);
    return true;
}

} // namespace npuscope::test_registry

int main(int argc, char** argv)
{
    const auto& tests = npuscope::test_registry::tests();
    const auto it = argc > 1 ? tests.find(argv[1]) : tests.end();
    if (it == tests.end()) {
        std::fprintf(stderr, "usage: %s TEST [QTest options]; the tests:\n", argv[0]);
        for (const auto& [name, run] : tests)
            std::fprintf(stderr, "  %s\n", name.c_str());
        return 2;
    }
    // QTest sees the program and the options after the test's name.
    std::vector<char*> args{argv[0]};
    args.insert(args.end(), argv + 2, argv + argc);
    int n = static_cast<int>(args.size());
    args.push_back(nullptr);
    return it->second(n, args.data());
}
