#pragma once
// The real two-rank torch_npu run at profiler levels 0, 1 and 2
// (../shared/samples/real/msinsight/test/data/pytorch/text/level{0,1,2}/rank{0,1}_ascend_pt), for
// the tests that check one property on each of its six ranks, and the digit-exact reading of its
// trace's microsecond times that their independent oracles use.
#include "model/store/ids.h"

#include <QTest>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

namespace npuscope::testing {

inline std::string realRankDir(const std::string& level, int rank)
{
    return std::string(NPUSCOPE_SAMPLES) + "/msinsight/test/data/pytorch/text/" + level + "/rank" + std::to_string(rank)
           + "_ascend_pt";
}

// A QString column "dir" with one row per real rank ("level1 rank0", ...).
inline void addRealRankRows()
{
    QTest::addColumn<QString>("dir");
    for (const char* level : {"level0", "level1", "level2"})
        for (int rank : {0, 1})
            QTest::newRow((std::string(level) + " rank" + std::to_string(rank)).c_str())
                << QString::fromStdString(realRankDir(level, rank));
}

// A trace time in µs ("1736408883731508.790" or a number) -> ns, by its digits.
inline TimeNs usTextToNs(const nlohmann::json& v)
{
    if (!v.is_string())
        return static_cast<TimeNs>(std::llround(v.get<double>() * 1000.0));
    const std::string t = v.get<std::string>();
    const auto dot = t.find('.');
    std::string frac = dot == std::string::npos ? "" : t.substr(dot + 1);
    frac = (frac + "000").substr(0, 3);
    return std::stoll(t.substr(0, dot)) * 1000 + std::stoll(frac);
}

} // namespace npuscope::testing
