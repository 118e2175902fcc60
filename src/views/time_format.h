#pragma once
// Counts and the ruler's times (UI.md "Look"): one place so the ruler, tooltips, summary strip
// and status bar agree. A duration is fmt::duration (views/format.h), the CLI's units.
#include "model/store/ids.h"

#include <QString>

namespace npuscope {

QString formatCount(std::uint64_t n); // "4,212,880"
// A "nice" ruler step (1, 2 or 5 × 10^k ns) of at least minNs.
TimeNs niceStep(double minNs);
// Axis label for an offset from the trace start: the unit of `span` (the largest offset the
// axis shows) for every tick, with the precision the step needs (model/analysis/time_axis.h).
QString formatOffset(TimeNs offset, TimeNs step, TimeNs span);

} // namespace npuscope
