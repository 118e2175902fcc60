// Placeholder until the 'synth' verb lands.
#include "app/cli.h"
#include <cstdio>
namespace npuscope::cli {
int synth(const Args&) { std::fputs("npuscope synth: not available in this build\n", stderr); return 1; }
}
