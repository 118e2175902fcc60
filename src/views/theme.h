#pragma once
// The application theme (Preferences → Theme): the platform's own style and palette, or the
// Fusion style with a light or a dark palette. Applied at startup and whenever the preference
// changes; every widget follows through QApplication's palette.
#include "views/app_settings.h"

#include <QPalette>

namespace npuscope {

// Call after the QApplication exists. The first call remembers the platform style and palette,
// which Theme::System restores.
void applyTheme(Theme t);
QPalette lightPalette();
QPalette darkPalette();

} // namespace npuscope
