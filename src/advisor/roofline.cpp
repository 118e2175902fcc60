#include "advisor/roofline.h"

#include "advisor/rule_context.h"
#include "advisor/rule_helpers.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <tuple>

namespace npuscope::advisor {

std::optional<std::vector<std::vector<std::int64_t>>> parseShapes(std::string_view text)
{
    std::vector<std::vector<std::int64_t>> out;
    std::vector<std::int64_t> cur;
    std::size_t i = 0;
    bool any = false;
    while (i <= text.size()) {
        const char c = i < text.size() ? text[i] : ';';
        if (c == ';') {
            out.push_back(std::move(cur));
            cur.clear();
            ++i;
            continue;
        }
        if (c == '"' || c == ' ' || c == ',' || c == '\n' || c == '\r' || c == '[' || c == ']') {
            ++i;
            continue;
        }
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
        if (ec != std::errc() || v < 0)
            return std::nullopt;
        cur.push_back(v);
        any = true;
        i = static_cast<std::size_t>(end - text.data());
    }
    if (!any)
        return std::nullopt;
    return out;
}

double dtypeBytes(std::string_view dtype)
{
    std::string t(dtype);
    for (auto& ch : t)
        ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (t.rfind("DT_", 0) == 0)
        t = t.substr(3);
    static const std::map<std::string, double, std::less<>> kBytes = {
        {"FLOAT16", 2}, {"FP16", 2}, {"HALF", 2}, {"BF16", 2}, {"BFLOAT16", 2}, {"FLOAT", 4}, {"FLOAT32", 4}, {"FP32", 4},
        {"DOUBLE", 8}, {"FLOAT64", 8}, {"INT8", 1}, {"UINT8", 1}, {"BOOL", 1}, {"INT16", 2}, {"UINT16", 2},
        {"INT32", 4}, {"UINT32", 4}, {"INT64", 8}, {"UINT64", 8}, {"INT4", 0.5}, {"HIFLOAT8", 1},
        {"FLOAT8_E4M3FN", 1}, {"FLOAT8_E5M2", 1}, {"COMPLEX64", 8}};
    const auto it = kBytes.find(t);
    return it == kBytes.end() ? 0 : it->second;
}

namespace {

double numel(const std::vector<std::int64_t>& dims)
{
    double n = 1;
    for (std::int64_t d : dims)
        n *= static_cast<double>(d);
    return n;
}

// The product of all but the last two dimensions (1 for a matrix).
double batchOf(const std::vector<std::int64_t>& dims)
{
    double n = 1;
    for (std::size_t i = 0; i + 2 < dims.size(); ++i)
        n *= static_cast<double>(dims[i]);
    return n;
}

} // namespace

std::optional<double> matmulFlops(const std::vector<std::vector<std::int64_t>>& in,
                                  const std::vector<std::vector<std::int64_t>>& out)
{
    if (in.size() < 2 || out.empty() || in[0].size() < 2 || in[1].size() < 2 || out[0].size() < 2)
        return std::nullopt;
    const auto& a = in[0];
    const auto& b = in[1];
    const auto& c = out[0];
    const double m = static_cast<double>(c[c.size() - 2]), n = static_cast<double>(c.back());
    const double batchA = batchOf(a), batchB = batchOf(b), batchC = batchOf(c);
    if (!(m > 0) || !(n > 0) || !(batchA > 0))
        return std::nullopt;
    const double k = numel(a) / (batchA * m);
    // B holds K × N per batch; A and B broadcast to C's batch.
    const bool consistent = std::abs(numel(b) - batchB * k * n) < 0.5 && (batchA == batchC || batchA == 1)
                            && (batchB == batchC || batchB == 1) && k >= 1 && std::abs(k - std::round(k)) < 1e-9;
    if (!consistent)
        return std::nullopt;
    return 2.0 * numel(c) * k;
}

namespace {

// A whole number of at least 1, or 0.
double wholeQuotient(double a, double b)
{
    if (!(b > 0))
        return 0;
    const double q = a / b;
    return q >= 1 && std::abs(q - std::round(q)) < 1e-9 ? std::round(q) : 0;
}

// Skv from k once q's layout is known: BNSD or BSND (4-D), BSH or SBH (3-D), told apart by
// where B, N and Sq sit in q; 0 when q matches none of them.
double kvLengthFromLayout(const std::vector<std::int64_t>& q, const std::vector<std::int64_t>& k, double b, double n, double sq)
{
    const auto at = [](const std::vector<std::int64_t>& v, std::size_t i) { return static_cast<double>(v[i]); };
    if (q.size() == 4 && k.size() == 4) {
        if (at(q, 0) == b && at(q, 1) == n && at(q, 2) == sq)
            return at(k, 2); // BNSD
        if (at(q, 0) == b && at(q, 1) == sq && at(q, 2) == n)
            return at(k, 1); // BSND
    }
    if (q.size() == 3 && k.size() == 3) {
        if (at(q, 0) == b && at(q, 1) == sq)
            return at(k, 1); // BSH
        if (at(q, 0) == sq && at(q, 1) == b)
            return at(k, 0); // SBH
    }
    return 0;
}

} // namespace

std::optional<AttentionShape> attentionShape(const std::vector<std::vector<std::int64_t>>& in,
                                             const std::vector<std::vector<std::int64_t>>& out, bool grad)
{
    if (in.size() < 2 || in[0].empty() || in[1].empty())
        return std::nullopt;
    const auto& stats = grad ? in : out;
    const auto st = std::find_if(stats.begin(), stats.end(), [](const auto& t) { return t.size() == 4 && t[3] == 8; });
    if (st == stats.end())
        return std::nullopt;
    const double b = static_cast<double>((*st)[0]), n = static_cast<double>((*st)[1]), sq = static_cast<double>((*st)[2]);
    const double d = wholeQuotient(numel(in[0]), b * n * sq);
    if (!(d > 0))
        return std::nullopt;
    double skv = kvLengthFromLayout(in[0], in[1], b, n, sq);
    for (std::size_t i = 2; i < in.size() && skv == 0; ++i)
        if (in[i].size() == 2 && static_cast<double>(in[i][0]) == sq)
            skv = static_cast<double>(in[i][1]);
    if (skv == 0)
        skv = wholeQuotient(numel(in[1]), b * n * d);
    if (!(skv > 0))
        return std::nullopt;
    return AttentionShape{b, n, sq, skv, d};
}

std::optional<double> attentionFlops(const std::vector<std::vector<std::int64_t>>& in,
                                     const std::vector<std::vector<std::int64_t>>& out, bool grad)
{
    const auto a = attentionShape(in, out, grad);
    if (!a)
        return std::nullopt;
    const double forward = 4.0 * a->b * a->n * a->sq * a->skv * a->d;
    return grad ? 2.5 * forward : forward;
}

namespace {

std::string sourceOf(const nlohmann::json& e, const char* key)
{
    const auto s = e.find("sources");
    if (s == e.end() || !s->is_object() || !s->contains(key) || !(*s)[key].is_string())
        return "no source given";
    return (*s)[key].get<std::string>();
}

} // namespace

RooflineRoofs rooflineRoofs(const ProfileFacts& f, const Thresholds& th)
{
    RooflineRoofs r;
    r.rank = f.rank;
    const DeviceInfo* d = f.p.info(-1);
    r.soc = d ? d->chip : std::string();
    std::string key;
    const nlohmann::json e = th.socEntry(r.soc, &key);
    r.socEntry = key;
    r.known = key != "default";
    const bool coresFromProfile = d && d->aiCoreNum > 0;
    const bool clockFromProfile = d && d->aicFrequencyMHz > 0;
    r.aiCores = coresFromProfile ? d->aiCoreNum : e.value("ai_cores", 0);
    r.vectorCores = d && d->aivNum > 0 ? d->aivNum : e.value("vector_cores", r.aiCores);
    r.mhz = clockFromProfile ? d->aicFrequencyMHz : e.value("mhz", 0.0);
    const double hz = r.mhz * 1e6;
    r.cubeFp16 = r.aiCores * e.value("cube_fp16_flop_per_cycle", 0.0) * hz;
    r.cubeInt8 = r.aiCores * e.value("cube_int8_op_per_cycle", 0.0) * hz;
    r.vectorFp16 = r.vectorCores * e.value("vector_fp16_flop_per_cycle", 0.0) * hz;
    r.vectorFp32 = r.vectorCores * e.value("vector_fp32_flop_per_cycle", 0.0) * hz;
    const bool hbmFromProfile = d && d->hbmPeakGBps > 0;
    r.hbmBytesPerS = (hbmFromProfile ? d->hbmPeakGBps : e.value("hbm_peak_gbps", 1200.0)) * 1e9;
    const std::string table = "the SoC table (thresholds.json \"soc\", entry \"" + key + "\")";
    if (!r.known)
        r.sources.push_back("SoC " + (r.soc.empty() ? std::string("not named by the profile") : "\"" + r.soc + "\" is not in the table")
                            + ": the roofs below use the table's settable defaults");
    r.sources.push_back(std::to_string(r.aiCores) + " AI cores and " + std::to_string(r.vectorCores) + " vector cores: "
                        + (coresFromProfile ? std::string("the profile's info.json") : table));
    r.sources.push_back(fmtNum(r.mhz, 0) + " MHz: " + (clockFromProfile ? std::string("the profile's info.json (aic_frequency)") : table));
    r.sources.push_back("cube " + fmtNum(r.cubeFp16 / 1e12, 1) + " TFLOP/s FP16/BF16, " + fmtNum(r.cubeInt8 / 1e12, 1)
                        + " TOP/s INT8 = cores × clock × per-cycle work: " + sourceOf(e, "cube"));
    r.sources.push_back("vector " + fmtNum(r.vectorFp16 / 1e12, 1) + " TFLOP/s FP16, " + fmtNum(r.vectorFp32 / 1e12, 1)
                        + " TFLOP/s FP32: " + sourceOf(e, "vector"));
    r.sources.push_back("HBM " + fmtNum(r.hbmBytesPerS / 1e9, 0) + " GB/s: "
                        + (hbmFromProfile ? std::string("the profile's info.json (hbm_peak_gbps)") : table + ": " + sourceOf(e, "hbm")));
    return r;
}

namespace {

struct Acc {
    RooflinePoint p;
    bool parsed = false;
    std::optional<std::vector<std::vector<std::int64_t>>> in, out;
    std::vector<std::string> inTypes, outTypes;
    Weighted measuredFlops, measuredBytes; // per call, weighted by count (w = 1)
    double shapeFlops = kNaN, shapeBytes = kNaN;
};

double tensorBytes(const std::optional<std::vector<std::vector<std::int64_t>>>& shapes, const std::vector<std::string>& types)
{
    if (!shapes || types.empty())
        return kNaN;
    double sum = 0;
    for (std::size_t i = 0; i < shapes->size(); ++i) {
        const double b = dtypeBytes(types[std::min(i, types.size() - 1)]);
        if (!(b > 0))
            return kNaN;
        sum += numel((*shapes)[i]) * b;
    }
    return sum;
}

void shapeEstimates(Acc& a, bool cube)
{
    a.shapeBytes = isMissing(tensorBytes(a.in, a.inTypes)) || isMissing(tensorBytes(a.out, a.outTypes))
                       ? kNaN
                       : tensorBytes(a.in, a.inTypes) + tensorBytes(a.out, a.outTypes);
    if (isFlashAttention(a.p.opType)) {
        if (a.in && a.out)
            if (const auto fl = attentionFlops(*a.in, *a.out, containsCI(a.p.opType, "grad")))
                a.shapeFlops = *fl;
    } else if (cube) {
        if (a.in && a.out && containsCI(a.p.opType, "matmul"))
            if (const auto fl = matmulFlops(*a.in, *a.out))
                a.shapeFlops = *fl;
    } else if (a.out && !containsCI(a.p.opType, "attention") && !containsCI(a.p.opType, "conv")) {
        // One operation per output element; convolution and other attention kernels (MIX or
        // vector tasks) do far more, and get FLOPs only from the fops columns.
        double n = 0;
        for (const auto& t : *a.out)
            n += numel(t);
        a.shapeFlops = n > 0 ? n : kNaN;
    }
}

// Why a point can sit above its roof: the estimates behind the roof it broke, most likely first.
std::string aboveRoofWhy(const RooflinePoint& p, const RooflineRoofs& roofs, bool int8, bool fp32)
{
    std::vector<std::string> why;
    const bool cube = p.unit == "cube";
    if (p.achievedFlops > p.peak) {
        if (p.flopsFrom.find("attention") != std::string::npos)
            why.push_back("the FLOPs count every attention block, and a causal mask skips about half");
        else if (p.flopsFrom == "element count")
            why.push_back("the FLOPs are estimated as one per output element");
        else if (p.flopsFrom == "shapes")
            why.push_back("the FLOPs from the shapes may count work the kernel skips (padding, broadcast, sparsity)");
        else
            why.push_back("the fops counters may count more than the cube or vector did");
        why.push_back(std::string("the roof is the ") + (cube ? (int8 ? "INT8 cube" : "FP16 cube") : (fp32 ? "FP32 vector" : "FP16 vector"))
                      + " peak (dtypes " + (p.dtypes.empty() ? std::string("not given") : p.dtypes)
                      + "): a narrower dtype has a higher one");
    } else {
        if (p.bytesFrom == "shapes")
            why.push_back("the bytes from the shapes count every input and output as read from HBM, "
                          "but data served from L2 or read once for a broadcast moves less");
        else
            why.push_back("the measured bandwidth counts L2 hits as memory traffic");
    }
    const std::string cores = std::to_string(roofs.aiCores) + " AI cores, " + std::to_string(roofs.vectorCores)
                              + " vector cores at " + std::to_string(static_cast<long long>(roofs.mhz)) + " MHz and "
                              + std::to_string(static_cast<long long>(roofs.hbmBytesPerS / 1e9)) + " GB/s of HBM";
    why.push_back(roofs.known ? "the roofs assume " + cores
                              : "the chip is not in the SoC table, so settable defaults fill in what the profile does "
                                "not give: " + cores);
    std::string out = p.achievedFlops > p.peak ? "above the compute roof: " : "above the HBM roof: ";
    for (std::size_t i = 0; i < why.size(); ++i)
        out += (i ? "; " : "") + why[i];
    return out;
}

void finish(Acc& a, const RooflineRoofs& roofs)
{
    RooflinePoint& p = a.p;
    const bool cube = p.unit == "cube";
    if (a.measuredFlops.n > 0 && a.measuredFlops.mean() > 0) {
        p.flops = a.measuredFlops.mean();
        p.flopsFrom = "aic/aiv fops columns";
    } else if (!isMissing(a.shapeFlops)) {
        p.flops = a.shapeFlops;
        p.flopsFrom = isFlashAttention(p.opType) ? "shapes (attention, every block counted)"
                      : cube                                 ? "shapes"
                                                             : "element count";
    }
    if (!isMissing(a.shapeBytes) && a.shapeBytes > 0) {
        p.bytes = a.shapeBytes;
        p.bytesFrom = "shapes";
    } else if (a.measuredBytes.n > 0 && a.measuredBytes.mean() > 0) {
        p.bytes = a.measuredBytes.mean();
        p.bytesFrom = "bandwidth × time";
    }
    // The cube works in the dtype of its first operand (A of a matrix product, q of attention):
    // a BOOL or UINT8 mask among the other inputs does not make the op INT8.
    const bool int8 = !a.inTypes.empty() && dtypeBytes(a.inTypes.front()) == 1;
    bool fp32 = false;
    for (const auto& t : a.inTypes)
        fp32 = fp32 || dtypeBytes(t) == 4;
    p.peak = cube ? (int8 ? roofs.cubeInt8 : roofs.cubeFp16) : (fp32 ? roofs.vectorFp32 : roofs.vectorFp16);
    if (p.timeNs > 0) {
        p.achievedFlops = p.flops * static_cast<double>(p.count) / (p.timeNs * 1e-9);
        p.achievedBytes = p.bytes * static_cast<double>(p.count) / (p.timeNs * 1e-9);
    }
    if (!isMissing(p.flops) && !isMissing(p.bytes) && p.bytes > 0 && p.peak > 0 && roofs.hbmBytesPerS > 0) {
        p.intensity = p.flops / p.bytes;
        p.attainable = std::min(p.peak, p.intensity * roofs.hbmBytesPerS);
        p.bound = p.intensity < roofs.ridge(p.peak) ? "memory" : "compute";
        p.aboveRoof = p.achievedFlops > p.attainable;
        if (p.aboveRoof)
            p.aboveRoofWhy = aboveRoofWhy(p, roofs, int8, fp32);
    } else {
        p.bound = "unknown";
    }
}

} // namespace

std::vector<RooflinePoint> rooflinePoints(const ProfileFacts& f, const RooflineRoofs& roofs)
{
    const KernelTable& k = f.p.kernels;
    if (!f.hasKernels)
        return {};
    const std::vector<int> fopCols = {k.metricIndex({"aic_cube_fops"}), k.metricIndex({"aic_vector_fops"}),
                                      k.metricIndex({"aiv_cube_fops"}), k.metricIndex({"aiv_vector_fops"})};
    const auto rd = metricCols(k, {"aic_main_mem_read_bw(GB/s)", "main_mem_read_bw(GB/s)", "aiv_main_mem_read_bw(GB/s)"});
    const auto wr = metricCols(k, {"aic_main_mem_write_bw(GB/s)", "main_mem_write_bw(GB/s)", "aiv_main_mem_write_bw(GB/s)"});
    std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>, Acc> groups;
    for (const Task& t : f.tasks) {
        if (t.kernel == kNone || (t.cls != TaskClass::Cube && t.cls != TaskClass::Vector))
            continue;
        const std::uint32_t row = t.kernel;
        Acc& a = groups[{t.type.v, k.inputShapes[row].v, k.inputDtypes[row].v, k.outputShapes[row].v}];
        if (!a.parsed) {
            a.parsed = true;
            a.p.rank = f.rank;
            a.p.opType = f.str(t.type);
            a.p.shapes = std::string(f.p.str(k.inputShapes[row]));
            a.p.dtypes = std::string(f.p.str(k.inputDtypes[row]));
            // FlashAttention's two matrix products run on the cube whatever its task type (MIX).
            a.p.unit = t.cls == TaskClass::Cube || isFlashAttention(a.p.opType) ? "cube" : "vector";
            a.in = parseShapes(a.p.shapes);
            a.out = parseShapes(f.p.str(k.outputShapes[row]));
            a.inTypes = dtypeTokens(a.p.dtypes);
            a.outTypes = dtypeTokens(f.p.str(k.outputDtypes[row]));
            shapeEstimates(a, t.cls == TaskClass::Cube);
        }
        ++a.p.count;
        a.p.timeNs += static_cast<double>(t.dur);
        double fl = 0;
        bool anyFops = false;
        for (int c : fopCols)
            if (c >= 0 && !isMissing(k.metric(c, row))) {
                fl += k.metric(c, row);
                anyFops = true;
            }
        if (anyFops)
            a.measuredFlops.add(1, fl);
        const double r = firstMetric(k, rd, row), w = firstMetric(k, wr, row);
        if (!isMissing(r) || !isMissing(w))
            a.measuredBytes.add(1, ((isMissing(r) ? 0 : r) + (isMissing(w) ? 0 : w)) * 1e9 * static_cast<double>(t.dur) * 1e-9);
    }
    std::vector<RooflinePoint> out;
    out.reserve(groups.size());
    for (auto& [key, a] : groups) {
        finish(a, roofs);
        out.push_back(std::move(a.p));
    }
    std::stable_sort(out.begin(), out.end(), [](const RooflinePoint& x, const RooflinePoint& y) {
        return x.timeNs != y.timeNs ? x.timeNs > y.timeNs : std::tie(x.opType, x.shapes) < std::tie(y.opType, y.shapes);
    });
    return out;
}

} // namespace npuscope::advisor

namespace npuscope::advisor {

std::optional<OpIntensity> opIntensity(const ProfileFacts& f, std::uint32_t kernelRow, const RooflineRoofs& roofs)
{
    const KernelTable& k = f.p.kernels;
    if (kernelRow >= k.size())
        return std::nullopt;
    Acc a;
    a.p.opType = f.str(k.type[kernelRow]);
    a.p.unit = "cube";
    a.in = parseShapes(f.p.str(k.inputShapes[kernelRow]));
    a.out = parseShapes(f.p.str(k.outputShapes[kernelRow]));
    a.inTypes = dtypeTokens(f.p.str(k.inputDtypes[kernelRow]));
    a.outTypes = dtypeTokens(f.p.str(k.outputDtypes[kernelRow]));
    shapeEstimates(a, true);
    a.p.count = 1;
    a.p.timeNs = static_cast<double>(k.dur[kernelRow]);
    finish(a, roofs);
    if (a.p.bound == "unknown")
        return std::nullopt;
    return OpIntensity{a.p.flops, a.p.bytes, a.p.intensity, roofs.ridge(a.p.peak), a.p.peak};
}

void addRoofline(AdvisorReport& rep, const std::vector<ProfileFacts>& facts, const Thresholds& th)
{
    for (const ProfileFacts& f : facts) {
        if (!f.hasKernels)
            continue;
        RooflineRoofs roofs = rooflineRoofs(f, th);
        auto points = rooflinePoints(f, roofs);
        if (points.empty())
            continue;
        rep.roofs.push_back(std::move(roofs));
        rep.roofline.insert(rep.roofline.end(), std::make_move_iterator(points.begin()), std::make_move_iterator(points.end()));
    }
}

} // namespace npuscope::advisor
