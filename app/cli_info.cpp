// Placeholder until the 'info' verb lands.
#include "app/cli.h"
#include <cstdio>
namespace npuscope::cli {
int info(const Args&) { std::fputs("npuscope info: not available in this build\n", stderr); return 1; }
}
