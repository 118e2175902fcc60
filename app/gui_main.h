#pragma once
namespace npuscope {
// Starts the window on the paths among argv (or the demo profile with --demo). Without a
// display (no DISPLAY/WAYLAND_DISPLAY and no QT_QPA_PLATFORM) it runs headless instead and prints
// the demo's (or the paths') top operators and advisor summary.
int runGui(int argc, char** argv);
}
