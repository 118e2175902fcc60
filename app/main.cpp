// Placeholder entry point until the CLI and the window land.
#include <cstdio>
int main() { std::puts("npuscope " NPUSCOPE_VERSION); return 0; }
