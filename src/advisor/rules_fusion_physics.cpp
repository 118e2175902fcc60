// What fusing consecutive device tasks saves (fusion_physics.h).
#include "advisor/fusion_physics.h"

#include "advisor/rule_helpers.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

namespace npuscope::advisor {

namespace {

double dtypeSize(std::string t)
{
    t = lower(t);
    while (!t.empty() && (t.back() == ' ' || t.back() == '"'))
        t.pop_back();
    if (t.rfind("dt_", 0) == 0)
        t = t.substr(3);
    if (t == "float16" || t == "bfloat16" || t == "half" || t == "bf16" || t == "fp16" || t == "int16" || t == "uint16")
        return 2;
    if (t == "float" || t == "float32" || t == "int32" || t == "uint32" || t == "fp32")
        return 4;
    if (t == "double" || t == "float64" || t == "int64" || t == "uint64" || t == "complex64")
        return 8;
    if (t == "int8" || t == "uint8" || t == "bool" || t == "hifloat8" || t == "float8_e4m3fn" || t == "float8_e5m2")
        return 1;
    if (t == "complex128")
        return 16;
    return kNaN;
}

std::vector<std::string> splitOn(const std::string& s, char sep)
{
    std::vector<std::string> out;
    std::size_t b = 0;
    while (b <= s.size()) {
        const auto e = s.find(sep, b);
        out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
        if (e == std::string::npos)
            break;
        b = e + 1;
    }
    return out;
}

} // namespace

MteTime::MteTime(const KernelTable& kt)
    : k(kt), mte2(metricCols(kt, {"aic_mte2_ratio", "aiv_mte2_ratio", "mte2_ratio"})),
      mte3(metricCols(kt, {"aic_mte3_ratio", "aiv_mte3_ratio", "mte3_ratio"})),
      fix(metricCols(kt, {"aic_fixpipe_ratio", "fixpipe_ratio"}))
{
}

double MteTime::operator()(const Task& t) const
{
    if (t.kernel == kNone)
        return 0.0;
    const double a = firstMetric(k, mte2, t.kernel), b = firstMetric(k, mte3, t.kernel), x = firstMetric(k, fix, t.kernel);
    const double r = (!isMissing(a) ? a : 0) + std::max(!isMissing(b) ? b : 0.0, !isMissing(x) ? x : 0.0);
    return static_cast<double>(t.dur) * std::min(1.0, r);
}

double outputBytes(const Profile& p, std::uint32_t row)
{
    const KernelTable& k = p.kernels;
    if (row == kNone || row >= k.size() || row >= k.outputShapes.size() || row >= k.outputDtypes.size())
        return kNaN;
    std::string shapes(p.str(k.outputShapes[row]));
    shapes.erase(std::remove(shapes.begin(), shapes.end(), '"'), shapes.end());
    const std::vector<std::string> types = splitOn(std::string(p.str(k.outputDtypes[row])), ';');
    if (shapes.empty() || types.empty())
        return kNaN;
    const std::vector<std::string> outs = splitOn(shapes, ';');
    double total = 0;
    for (std::size_t i = 0; i < outs.size(); ++i) {
        const double size = dtypeSize(types[std::min(i, types.size() - 1)]);
        if (isMissing(size))
            return kNaN;
        double n = 1;
        for (const std::string& d : splitOn(outs[i], ',')) {
            if (d.empty())
                continue;
            char* end = nullptr;
            const double v = std::strtod(d.c_str(), &end);
            if (!end || *end || !(v >= 0))
                return kNaN;
            n *= v;
        }
        total += n * size;
    }
    return total;
}

FusionPhysics::FusionPhysics(const Profile& p)
    : m_p(p), m_k(p.kernels), m_mte(p.kernels),
      m_aicR(metricCols(p.kernels, {"aic_main_mem_read_bw(GB/s)", "main_mem_read_bw(GB/s)"})),
      m_aicW(metricCols(p.kernels, {"aic_main_mem_write_bw(GB/s)", "main_mem_write_bw(GB/s)"})),
      m_aivR(metricCols(p.kernels, {"aiv_main_mem_read_bw(GB/s)"})),
      m_aivW(metricCols(p.kernels, {"aiv_main_mem_write_bw(GB/s)"}))
{
}

double FusionPhysics::achievedBandwidth(const Task& t) const
{
    if (t.kernel == kNone)
        return kNaN;
    auto v = [&](const std::vector<int>& cols) {
        const double x = firstMetric(m_k, cols, t.kernel);
        return isMissing(x) ? 0.0 : x;
    };
    const double bw = std::max(v(m_aicR) + v(m_aicW), v(m_aivR) + v(m_aivW));
    return bw > 0 ? bw : kNaN; // GB/s = bytes per ns
}

double FusionPhysics::cap(const Task& t) const
{
    return cap(t, m_mte(t));
}

double FusionPhysics::cap(const Task& t, double mte)
{
    return mte > 0 ? mte : static_cast<double>(t.dur);
}

double FusionPhysics::outputBytesOf(std::uint32_t row) const
{
    if (row >= m_k.size() || row >= m_k.outputShapes.size() || row >= m_k.outputDtypes.size())
        return outputBytes(m_p, row);
    const std::uint64_t key = (static_cast<std::uint64_t>(m_k.outputShapes[row].v) << 32) | m_k.outputDtypes[row].v;
    const auto [it, fresh] = m_bytesByStrings.try_emplace(key, 0.0);
    if (fresh)
        it->second = outputBytes(m_p, row);
    return it->second;
}

FusionPhysics::Boundary FusionPhysics::boundary(const Task& prod, const Task& cons) const
{
    Boundary b;
    double bytes = prod.kernel != kNone ? outputBytesOf(prod.kernel) : kNaN;
    if (isMissing(bytes) && prod.kernel != kNone) {
        // No output shapes: what the producer wrote (write bandwidth × duration).
        const double w = std::max(firstMetric(m_k, m_aicW, prod.kernel), firstMetric(m_k, m_aivW, prod.kernel));
        if (!isMissing(w) && w > 0)
            bytes = w * static_cast<double>(prod.dur);
    }
    if (isMissing(bytes) || !(bytes > 0))
        return b;
    b.bytes = bytes;
    // The producer no longer writes it, the consumer no longer reads it: each at its own
    // achieved bandwidth.
    const double bwP = achievedBandwidth(prod), bwC = achievedBandwidth(cons);
    if (!isMissing(bwP))
        b.prodNs = bytes / bwP;
    if (!isMissing(bwC))
        b.consNs = bytes / bwC;
    return b;
}

ChainSaving FusionPhysics::chain(const std::vector<const Task*>& c) const
{
    ChainSaving s;
    s.taskNs.assign(c.size(), 0.0);
    for (std::size_t j = 0; j + 1 < c.size(); ++j) {
        ++s.boundaries;
        s.gapNs += std::max<double>(0, static_cast<double>(c[j + 1]->start - c[j]->end()));
        const Boundary b = boundary(*c[j], *c[j + 1]);
        if (!b.known())
            continue;
        ++s.known;
        s.bytes += b.bytes;
        s.taskNs[j] += b.prodNs;
        s.taskNs[j + 1] += b.consNs;
    }
    double mte = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
        s.taskNs[i] = std::min(s.taskNs[i], cap(*c[i]));
        s.roundTripNs += s.taskNs[i];
        mte += m_mte(*c[i]);
    }
    // The fused kernel still reads the chain's inputs and writes its outputs: at most (n − 1)/n
    // of the chain's data-movement time goes.
    const double n = static_cast<double>(c.size());
    const double bound = (n - 1) / n * mte;
    if (mte > 0 && s.roundTripNs > bound) {
        const double k = bound / s.roundTripNs;
        for (double& x : s.taskNs)
            x *= k;
        s.roundTripNs = bound;
    }
    return s;
}

bool isElementwiseType(const std::string& t)
{
    static const std::set<std::string> ew = {
        "add",  "addv2", "adds", "biasadd", "mul",      "muls",       "sub",     "div",     "realdiv",
        "cast", "swish", "silu", "gelu",    "fastgelu", "fastgeluv2", "relu",    "sigmoid", "tanh",
        "neg",  "exp",   "sqrt", "rsqrt",   "pows",     "square",     "maximum", "minimum", "leakyrelu"};
    return ew.count(t) != 0;
}

} // namespace npuscope::advisor
