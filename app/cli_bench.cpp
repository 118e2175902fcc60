// Placeholder until the 'bench' verb lands.
#include "app/cli.h"
#include <cstdio>
namespace npuscope::cli {
int bench(const Args&) { std::fputs("npuscope bench: not available in this build\n", stderr); return 1; }
}
