#pragma once
// The text of the one time axis every time-based view shares (timeline ruler, utilisation plot
// axes, readouts) and of the times the command line takes. No Qt: the CLI and tests use it too.
#include "model/store/ids.h"

#include <string>
#include <string_view>

namespace npuscope {

// A "nice" tick step (1, 2 or 5 × 10^k ns) of at least minNs (1 ns at least).
TimeNs niceTimeStep(double minNs);
// A tick label for `offset` from the trace start on an axis whose ticks are `step` apart and
// whose largest label is `span`: every tick of one axis uses the unit of `span` (s, ms, µs,
// ns) with the decimals the step needs ("170.77 ms", never "170770 µs").
std::string formatTimeOffset(TimeNs offset, TimeNs step, TimeNs span);
// The ticks of an axis showing offsets [begin, end) from the trace start over widthPx pixels:
// one every kTickSpacingPx pixels or a little more, at multiples of the step.
constexpr double kTickSpacingPx = 90;
struct TimeTicks {
    TimeNs step = 1;  // between ticks
    TimeNs first = 0; // the last multiple of step at or before begin
    TimeNs span = 0;  // the largest offset shown: its unit labels every tick
};
TimeTicks timeTicks(TimeNs begin, TimeNs end, double widthPx);
// "12.1ms", "12.1 ms", "500us", "500µs", "3s", "800ns" -> ns (rounded). A number needs a unit;
// negative, empty, malformed or too large text is refused with the reason in *error.
bool parseTimeText(std::string_view text, TimeNs* ns, std::string* error);
// A START END pair (`--zoom 12.1ms 14.4ms`): both parse and START < END, else the reason,
// naming the option, in *error.
bool parseTimeRangeText(std::string_view option, std::string_view start, std::string_view end, TimeNs* begin,
                        TimeNs* finish, std::string* error);

} // namespace npuscope
