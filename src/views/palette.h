#pragma once
// One operator palette for every view (timeline, ranking, histogram, PDF): the same key always
// gets the same colour, chosen from colours that stay apart for colour-blind users
// (Okabe-Ito and Paul Tol "muted"). Communication keys share one red/rose hue family so
// collectives read as one kind of thing at a glance.
#include <QColor>

#include <cstdint>
#include <string_view>

namespace npuscope {

inline constexpr int kPaletteSize = 12;     // compute colours
inline constexpr int kCommPaletteSize = 4;  // communication shades

// Stable (FNV-1a, not std::hash) so colours survive restarts and match the exported PDF.
std::uint64_t stableHash(std::string_view key);
// True for collective/point-to-point names and types (hcom_*, AllReduce, HCCL, Send, ...).
bool isCommunicationKey(std::string_view key);
// Index into the combined palette: [0, kPaletteSize) compute, then kCommPaletteSize comm shades.
int paletteIndexFor(std::string_view key);
QColor paletteColor(int index);
QColor colorFor(std::string_view key);
// Idle/free time: drawn hatched in this colour.
QColor freeColor();

} // namespace npuscope
