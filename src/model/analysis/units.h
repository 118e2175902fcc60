#pragma once
// Human-readable numbers for the CLI and the views. Three significant digits, the unit chosen
// so the number sits in [1, 1000). Byte units are decimal (kB = 1000 B), matching the MB of
// communication.json and the GB/s of the PMU bandwidth columns.
#include "model/store/ids.h"

#include <string>

namespace npuscope {

// 123 ns, 12.3 µs, 1.23 ms, 12.3 s (negative values keep their sign).
std::string formatDuration(TimeNs ns);
// 512 B, 1.50 kB, 12.3 MB, 4.00 GB, 1.20 TB.
std::string formatBytes(double bytes);
// Bytes per second: 1.23 GB/s.
std::string formatRate(double bytesPerSecond);
// A 0..1 fraction as a percentage with one decimal: "42.5 %"; "—" when NaN.
std::string formatPercent(double fraction);
// Exact decimal text of ns in µs with 3 fraction digits (1780748105187895870 -> "1780748105187895.870").
std::string nsToMicrosText(TimeNs ns);
// Exact decimal text of ns in ms with 6 fraction digits (1234567 -> "1.234567").
std::string nsToMillisText(TimeNs ns);

} // namespace npuscope
