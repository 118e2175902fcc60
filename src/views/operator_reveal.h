#pragma once
// Jumping from a table row to the timeline: reveal the task joined to a kernel row, or, when the
// row has no timeline task, select (and show) its time span instead.
#include "model/store/profile.h"

#include <cstdint>
#include <vector>

namespace npuscope {

class SelectionController;

// `row` is a kernel-table row, or a slice row when `rowIsSlice` (profiles without kernel table).
void revealOperatorInstance(SelectionController* sel, const Profile& p, int rankIndex,
                            std::uint32_t row, bool rowIsSlice);

// The longest of `rows` (kernel rows, or slice rows when rowIsSlice); kNone when empty.
std::uint32_t longestInstance(const Profile& p, const std::vector<std::uint32_t>& rows, bool rowIsSlice);

} // namespace npuscope
