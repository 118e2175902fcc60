// Placeholder until the 'analyze' verb lands.
#include "app/cli.h"
#include <cstdio>
namespace npuscope::cli {
int analyze(const Args&) { std::fputs("npuscope analyze: not available in this build\n", stderr); return 1; }
}
