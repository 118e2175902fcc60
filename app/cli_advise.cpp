// Placeholder until the 'advise' verb lands.
#include "app/cli.h"
#include <cstdio>
namespace npuscope::cli {
int advise(const Args&) { std::fputs("npuscope advise: not available in this build\n", stderr); return 1; }
}
