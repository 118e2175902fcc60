#include "model/synth/comm_json.h"

#include "model/synth/out_file.h"

#include <cmath>

namespace npuscope::synth {

const char* const kGroupHash = "13337953553061386482";

double commMs(std::int64_t ns)
{
    return static_cast<double>(ns) / 1e6;
}

double round4(double v)
{
    return std::round(v * 1e4) / 1e4;
}

namespace {

double ms(std::int64_t ns)
{
    return commMs(ns);
}

void zeroBlock(JsonObj& parent, const char* name, bool withBandwidth, const JsonStyle& s)
{
    JsonObj b(parent.key(name), s);
    if (withBandwidth)
        b.i64("Transit Size(MB)", 0).i64("Transit Time(ms)", 0).i64("Bandwidth(GB/s)", 0).i64("Large Packet Ratio", 0);
    else
        b.i64("Transit Time(ms)", 0).i64("Transit Size(MB)", 0);
    b.key("Size Distribution").str("{}");
    b.end();
}

} // namespace

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

void writeCommOp(OutFile& f, const Task& t, const JsonStyle& s)
{
    const std::int64_t idle = t.dur - t.transitNs - t.waitNs;
    JsonObj op(f, s);
    {
        JsonObj ti(op.key("Communication Time Info"), s);
        // a Python float of µs, as torch_npu computes it ("1736408883732241.5")
        ti.num("Start Timestamp(us)", static_cast<double>(t.start) / 1000.0);
        ti.num("Elapse Time(ms)", ms(t.dur)).num("Transit Time(ms)", ms(t.transitNs)).num("Wait Time(ms)", ms(t.waitNs));
        ti.num("Synchronization Time(ms)", ms(t.syncNs)).num("Idle Time(ms)", ms(idle));
        const double wr = t.waitNs + t.transitNs > 0 ? static_cast<double>(t.waitNs) / static_cast<double>(t.waitNs + t.transitNs) : 0;
        const double sr = t.syncNs + t.transitNs > 0 ? static_cast<double>(t.syncNs) / static_cast<double>(t.syncNs + t.transitNs) : 0;
        ti.num("Wait Time Ratio", round4(wr)).num("Synchronization Time Ratio", round4(sr));
        ti.end();
    }
    JsonObj bi(op.key("Communication Bandwidth Info"), s);
    zeroBlock(bi, "RDMA", true, s);
    const LinkSums sums = hccsOf(t);
    const double bw = sums.msTotal > 0 ? round4(sums.mb / sums.msTotal) : 0;
    for (const char* name : {"HCCS", "PCIE", "SDMA"}) {
        if (std::string_view(name) == "PCIE") {
            zeroBlock(bi, name, true, s);
            continue;
        }
        JsonObj b(bi.key(name), s);
        b.num("Transit Size(MB)", sums.mb).num("Transit Time(ms)", sums.msTotal).num("Bandwidth(GB/s)", bw);
        if (std::string_view(name) == "HCCS" && sums.count) {
            b.num("Large Packet Ratio", 0.0);
            JsonObj d(b.key("Size Distribution"), s);
            d.key(shortestText(sums.packetMB)).ch('[').i64(sums.count).str(s.item).shortest(sums.msTotal).ch(']');
            d.end();
        } else {
            b.i64("Large Packet Ratio", 0).key("Size Distribution").str("{}");
        }
        b.end();
    }
    zeroBlock(bi, "SIO", true, s);
    bi.end();
    op.end();
}

void writeCommTotal(OutFile& f, const CommTotals& c, const JsonStyle& s)
{
    JsonObj op(f, s);
    {
        JsonObj ti(op.key("Communication Time Info"), s);
        ti.num("Elapse Time(ms)", ms(c.elapse)).num("Transit Time(ms)", ms(c.transit)).num("Wait Time(ms)", ms(c.wait));
        ti.num("Synchronization Time(ms)", ms(c.sync)).num("Idle Time(ms)", ms(c.idle));
        const double wr = c.wait + c.transit > 0 ? static_cast<double>(c.wait) / static_cast<double>(c.wait + c.transit) : 0;
        const double sr = c.sync + c.transit > 0 ? static_cast<double>(c.sync) / static_cast<double>(c.sync + c.transit) : 0;
        ti.num("Wait Time Ratio", round4(wr)).num("Synchronization Time Ratio", round4(sr));
        ti.end();
    }
    JsonObj bi(op.key("Communication Bandwidth Info"), s);
    zeroBlock(bi, "RDMA", false, s);
    {
        JsonObj h(bi.key("HCCS"), s);
        h.num("Transit Time(ms)", c.hccsMs).num("Transit Size(MB)", c.hccsMB);
        JsonObj d(h.key("Size Distribution"), s);
        for (const auto& [key, v] : c.sizeDist)
            d.key(key).ch('[').i64(v.first).str(s.item).shortest(v.second).ch(']');
        d.end();
        h.end();
    }
    zeroBlock(bi, "PCIE", false, s);
    {
        JsonObj sd(bi.key("SDMA"), s);
        sd.num("Transit Time(ms)", c.hccsMs).num("Transit Size(MB)", c.hccsMB).key("Size Distribution").str("{}");
        sd.end();
    }
    zeroBlock(bi, "SIO", false, s);
    bi.end();
    op.end();
}

void writeCommLinks(OutFile& f, const Task& t, bool& first, const JsonStyle& s)
{
    for (const auto& l : t.links) {
        if (!first)
            f.str(s.item);
        first = false;
        const double lms = ms(l.ns);
        f.ch('"').i64(l.src).ch('-').i64(l.dst).ch('"').str(s.colon);
        JsonObj o(f, s);
        o.str("Transport Type", l.local ? "LOCAL" : "HCCS").num("Transit Size(MB)", l.mb).num("Transit Time(ms)", lms);
        o.num("Bandwidth(GB/s)", lms > 0 ? round4(l.mb / lms) : 0).end();
    }
}

} // namespace npuscope::synth
