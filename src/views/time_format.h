#pragma once
// Units chosen for the magnitude with 3 significant digits (UI.md "Look"): one place so the
// ruler, tooltips, summary strip and status bar agree.
#include "model/store/ids.h"

#include <QString>

namespace npuscope {

QString formatDuration(TimeNs ns);   // "812 ns", "18.7 µs", "52.0 ms", "1.20 s"
QString formatDurationMs(double ms); // same, from milliseconds
QString formatCount(std::uint64_t n); // "4,212,880"
// A "nice" ruler step (1, 2 or 5 × 10^k ns) of at least minNs.
TimeNs niceStep(double minNs);
// Axis label for an offset from the trace start: the unit of `span` (the largest offset the
// axis shows) for every tick, with the precision the step needs (model/analysis/time_axis.h).
QString formatOffset(TimeNs offset, TimeNs step, TimeNs span);

} // namespace npuscope
