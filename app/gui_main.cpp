// Placeholder until the main window lands.
#include "app/gui_main.h"
#include <cstdio>
namespace npuscope {
int runGui(int, char**) { std::puts("npuscope: the window is not available in this build"); return 0; }
}
