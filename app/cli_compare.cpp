// Placeholder until the 'compare' verb lands.
#include "app/cli.h"
#include <cstdio>
namespace npuscope::cli {
int compare(const Args&) { std::fputs("npuscope compare: not available in this build\n", stderr); return 1; }
}
