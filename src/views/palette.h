#pragma once
// One operator palette for every view (timeline, legend, ranking swatches, histogram, compare):
// 21 compute colours and 4 communication shades, every two of the 25 at least 20 apart in
// CIEDE2000, so any two keys shown together can be told apart. Communication keys take the
// red/rose/vermillion shades, so collectives read as one kind of thing at a glance.
//
// A hash alone gives two of 25 keys one colour by pigeonhole, so the keys a timeline shows are
// claimed together (claimPaletteSlots): each takes its preferred slot (a stable hash of its
// name) unless a heavier key has it, else the next free slot of its family. Every view asks
// colorFor(key) and gets the claimed slot, so the legend, the tables and the compare timelines
// agree; a key nobody claimed keeps its preferred slot.
#include <QColor>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace npuscope {

inline constexpr int kPaletteSize = 21;    // compute colours
inline constexpr int kCommPaletteSize = 4; // communication shades
inline constexpr int kPaletteColours = kPaletteSize + kCommPaletteSize;

// Stable (FNV-1a, not std::hash) so colours survive restarts and match the exported PDF.
std::uint64_t stableHash(std::string_view key);
// True for collective/point-to-point names and types (hcom_*, AllReduce, HCCL, Send, Notify_Wait, ...).
bool isCommunicationKey(std::string_view key);
// The key a colour is chosen by: a collective's instance name (hcom_allReduce__482_66_1, as msprof
// names each launch) stands for its operator type (hcom_allReduce_, its kernel row's Type), so that
// a run's hundreds of instances are one legend entry in one colour, not a flood of keys that takes
// the other operators' colours. Any other key is itself.
std::string_view colourKey(std::string_view key);
// The slot a key takes when it is free: [0, kPaletteSize) compute, then kCommPaletteSize comm shades.
int preferredPaletteIndex(std::string_view key);
// The slot claimed for the key, else its preferred slot.
int paletteIndexFor(std::string_view key);
QColor paletteColor(int index);
QColor colorFor(std::string_view key);
// Idle/free time: drawn hatched in this colour.
QColor freeColor();

struct PaletteKey {
    std::string key;
    double weight = 0; // the heavier key (more time) wins a contested slot
};
// Slots for `keys` that no two share while the family has a free one (a full family lends the
// other family's free slots before two keys share one), heaviest first, ties by name. Keys already
// claimed by a live claim keep their slots; keys only dead claims held give theirs back. The
// assignment lasts while the returned handle (or a copy) lives.
using PaletteClaim = std::shared_ptr<const void>;
PaletteClaim claimPaletteSlots(std::vector<PaletteKey> keys);

} // namespace npuscope
