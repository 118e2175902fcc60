#pragma once
// communication.json / communication_matrix.json pieces for one collective, in the torch_npu
// and msprof-analyze key layout (FORMATS.md §4): OP = Communication Time Info + Bandwidth Info.
#include "model/synth/json_out.h"
#include "model/synth/synth_model.h"

#include <cstdint>
#include <map>
#include <string>

namespace npuscope::synth {

class OutFile;

// Sums of a step's (or a whole run's) collectives: the "Total Op Info" entry.
struct CommTotals {
    std::int64_t elapse = 0, transit = 0, wait = 0, sync = 0, idle = 0;
    double hccsMB = 0, hccsMs = 0;
    std::map<std::string, std::pair<std::int64_t, double>> sizeDist; // MB text -> count, ms
    void add(const Task& t);
};

// A collective's transfers over its non-local links (what the HCCS and SDMA blocks report).
struct LinkSums {
    double mb = 0, msTotal = 0;
    std::int64_t count = 0;
    double packetMB = 0; // the size of one transfer
};
LinkSums hccsOf(const Task& t);
double commMs(std::int64_t ns);
double round4(double v);

std::string commOpName(const Task& t);    // hcom_allReduce__482_<k>_1
std::string commOpKey(const Task& t);     // <name>@<group hash>
extern const char* const kGroupHash;

// {"Communication Time Info": {...}, "Communication Bandwidth Info": {...}}
void writeCommOp(OutFile& f, const Task& t, const JsonStyle& s);
// Same, without Start Timestamp, Bandwidth and Large Packet Ratio.
void writeCommTotal(OutFile& f, const CommTotals& c, const JsonStyle& s);
// "<src>-<dst>": {...}, ... (no surrounding braces); `first` tracks the separator.
void writeCommLinks(OutFile& f, const Task& t, bool& first, const JsonStyle& s);

} // namespace npuscope::synth
