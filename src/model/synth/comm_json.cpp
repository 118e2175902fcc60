#include "model/synth/comm_json.h"

#include "model/synth/out_file.h"

#include <cmath>

namespace npuscope::synth {

const char* const kGroupHash = "13337953553061386482";

namespace {

double ms(std::int64_t ns)
{
    return static_cast<double>(ns) / 1e6;
}

double round4(double v)
{
    return std::round(v * 1e4) / 1e4;
}

void zeroBlock(OutFile& f, const char* name, bool withBandwidth)
{
    f.str("\"").str(name).str("\":{");
    if (withBandwidth)
        f.str("\"Transit Size(MB)\":0,\"Transit Time(ms)\":0,\"Bandwidth(GB/s)\":0,\"Large Packet Ratio\":0,"
              "\"Size Distribution\":{}}");
    else
        f.str("\"Transit Time(ms)\":0,\"Transit Size(MB)\":0,\"Size Distribution\":{}}");
}

struct LinkSums {
    double mb = 0, msTotal = 0;
    std::int64_t count = 0;
    double packetMB = 0;
};

LinkSums hccsOf(const Task& t)
{
    LinkSums s;
    for (const auto& l : t.links) {
        if (l.local)
            continue;
        s.mb += l.mb;
        s.msTotal += ms(l.ns);
        ++s.count;
        s.packetMB = l.mb;
    }
    return s;
}

} // namespace

std::string commOpName(const Task& t)
{
    return "hcom_allReduce__482_" + std::to_string(t.commIndex) + "_1";
}

std::string commOpKey(const Task& t)
{
    return commOpName(t) + "@" + kGroupHash;
}

void CommTotals::add(const Task& t)
{
    elapse += t.dur;
    transit += t.transitNs;
    wait += t.waitNs;
    sync += t.syncNs;
    idle += t.dur - t.transitNs - t.waitNs;
    const LinkSums s = hccsOf(t);
    hccsMB += s.mb;
    hccsMs += s.msTotal;
    if (s.count) {
        auto& d = sizeDist[shortestText(s.packetMB)];
        d.first += s.count;
        d.second += s.msTotal;
    }
}

void writeCommOp(OutFile& f, const Task& t)
{
    const std::int64_t idle = t.dur - t.transitNs - t.waitNs;
    f.str("{\"Communication Time Info\":{\"Start Timestamp(us)\":").us3(t.start);
    f.str(",\"Elapse Time(ms)\":").shortest(ms(t.dur));
    f.str(",\"Transit Time(ms)\":").shortest(ms(t.transitNs));
    f.str(",\"Wait Time(ms)\":").shortest(ms(t.waitNs));
    f.str(",\"Synchronization Time(ms)\":").shortest(ms(t.syncNs));
    f.str(",\"Idle Time(ms)\":").shortest(ms(idle));
    const double wr = t.waitNs + t.transitNs > 0 ? static_cast<double>(t.waitNs) / static_cast<double>(t.waitNs + t.transitNs) : 0;
    const double sr = t.syncNs + t.transitNs > 0 ? static_cast<double>(t.syncNs) / static_cast<double>(t.syncNs + t.transitNs) : 0;
    f.str(",\"Wait Time Ratio\":").shortest(round4(wr));
    f.str(",\"Synchronization Time Ratio\":").shortest(round4(sr));
    f.str("},\"Communication Bandwidth Info\":{");
    zeroBlock(f, "RDMA", true);
    const LinkSums s = hccsOf(t);
    const double bw = s.msTotal > 0 ? round4(s.mb / s.msTotal) : 0;
    for (const char* name : {"HCCS", "PCIE", "SDMA"}) {
        f.ch(',');
        if (std::string_view(name) == "PCIE") {
            zeroBlock(f, name, true);
            continue;
        }
        f.str("\"").str(name).str("\":{\"Transit Size(MB)\":").shortest(s.mb);
        f.str(",\"Transit Time(ms)\":").shortest(s.msTotal);
        f.str(",\"Bandwidth(GB/s)\":").shortest(bw);
        f.str(",\"Large Packet Ratio\":");
        if (std::string_view(name) == "HCCS" && s.count) {
            f.str("0.0,\"Size Distribution\":{\"").shortest(s.packetMB).str("\":[").i64(s.count).ch(',');
            f.shortest(s.msTotal).str("]}}");
        } else {
            f.str("0,\"Size Distribution\":{}}");
        }
    }
    f.ch(',');
    zeroBlock(f, "SIO", true);
    f.str("}}");
}

void writeCommTotal(OutFile& f, const CommTotals& c)
{
    f.str("{\"Communication Time Info\":{\"Elapse Time(ms)\":").shortest(ms(c.elapse));
    f.str(",\"Transit Time(ms)\":").shortest(ms(c.transit));
    f.str(",\"Wait Time(ms)\":").shortest(ms(c.wait));
    f.str(",\"Synchronization Time(ms)\":").shortest(ms(c.sync));
    f.str(",\"Idle Time(ms)\":").shortest(ms(c.idle));
    const double wr = c.wait + c.transit > 0 ? static_cast<double>(c.wait) / static_cast<double>(c.wait + c.transit) : 0;
    const double sr = c.sync + c.transit > 0 ? static_cast<double>(c.sync) / static_cast<double>(c.sync + c.transit) : 0;
    f.str(",\"Wait Time Ratio\":").shortest(round4(wr));
    f.str(",\"Synchronization Time Ratio\":").shortest(round4(sr));
    f.str("},\"Communication Bandwidth Info\":{");
    zeroBlock(f, "RDMA", false);
    f.str(",\"HCCS\":{\"Transit Time(ms)\":").shortest(c.hccsMs).str(",\"Transit Size(MB)\":").shortest(c.hccsMB);
    f.str(",\"Size Distribution\":{");
    bool first = true;
    for (const auto& [key, v] : c.sizeDist) {
        if (!first)
            f.ch(',');
        first = false;
        f.ch('"').str(key).str("\":[").i64(v.first).ch(',').shortest(v.second).ch(']');
    }
    f.str("}},");
    zeroBlock(f, "PCIE", false);
    f.str(",\"SDMA\":{\"Transit Time(ms)\":").shortest(c.hccsMs).str(",\"Transit Size(MB)\":").shortest(c.hccsMB);
    f.str(",\"Size Distribution\":{}},");
    zeroBlock(f, "SIO", false);
    f.str("}}");
}

void writeCommLinks(OutFile& f, const Task& t, bool& first)
{
    for (const auto& l : t.links) {
        if (!first)
            f.ch(',');
        first = false;
        const double lms = ms(l.ns);
        f.ch('"').i64(l.src).ch('-').i64(l.dst).str("\":{\"Transport Type\":\"").str(l.local ? "LOCAL" : "HCCS");
        f.str("\",\"Transit Size(MB)\":").shortest(l.mb).str(",\"Transit Time(ms)\":").shortest(lms);
        f.str(",\"Bandwidth(GB/s)\":").shortest(lms > 0 ? round4(l.mb / lms) : 0).ch('}');
    }
}

} // namespace npuscope::synth
