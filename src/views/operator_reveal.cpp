#include "views/operator_reveal.h"

#include "views/selection_controller.h"

namespace npuscope {

void revealOperatorInstance(SelectionController* sel, const Profile& p, int rankIndex,
                            std::uint32_t row, bool rowIsSlice)
{
    if (!sel)
        return;
    if (rowIsSlice) {
        if (row < p.slices.size())
            sel->revealTask(TaskRef{rankIndex, row});
        return;
    }
    if (row >= p.kernels.size())
        return;
    const std::uint32_t slice = row < p.kernels.slice.size() ? p.kernels.slice[row] : kNone;
    if (slice != kNone && slice < p.slices.size()) {
        sel->revealTask(TaskRef{rankIndex, slice});
        return;
    }
    // No timeline task joined (kernel table without trace, or unmatched row): show its span, in
    // the time the rank is drawn in.
    const TimeNs b = p.kernels.start[row];
    sel->revealRange(rankIndex, TimeRange{b, b + p.kernels.dur[row]}, 1000);
}

std::uint32_t longestInstance(const Profile& p, const std::vector<std::uint32_t>& rows, bool rowIsSlice)
{
    std::uint32_t best = kNone;
    TimeNs bestDur = -1;
    for (auto r : rows) {
        const TimeNs d = rowIsSlice ? (r < p.slices.size() ? p.slices.dur[r] : -1)
                                    : (r < p.kernels.size() ? p.kernels.dur[r] : -1);
        if (d > bestDur) {
            bestDur = d;
            best = r;
        }
    }
    return best;
}

} // namespace npuscope
