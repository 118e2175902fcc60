#pragma once
// A roofline per operator (op type, input shapes and dtypes): the work each call does (FLOPs),
// the bytes it must move, their ratio (arithmetic intensity), and what it achieved against the
// chip's roofs: the cube or vector peak for its dtype and the HBM bandwidth. The roofs come from
// the SoC table in the thresholds ("soc"), with the profile's own core counts and clock when its
// info.json gives them; each number says where it came from.
#include "model/store/profile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace npuscope::advisor {

class Thresholds;
class ProfileFacts;

struct RooflineRoofs {
    int rank = -1;
    std::string soc;          // the chip the profile names, or "" when it names none
    std::string socEntry;     // the SoC table's entry used ("default" when the chip is not in it)
    bool known = false;       // false: the table's settable defaults stand in for an unknown SoC
    int aiCores = 0, vectorCores = 0;
    double mhz = 0;
    double cubeFp16 = 0, cubeInt8 = 0;     // FLOP/s (OP/s for INT8)
    double vectorFp16 = 0, vectorFp32 = 0; // FLOP/s
    double hbmBytesPerS = 0;
    std::vector<std::string> sources;      // one line per number: what it is and where it came from
    // The ridge point of a roof: the intensity (FLOP/byte) above which it is compute-bound.
    double ridge(double peak) const { return hbmBytesPerS > 0 ? peak / hbmBytesPerS : 0; }
};

struct RooflinePoint {
    int rank = -1;
    std::string opType, shapes, dtypes; // shapes and dtypes of the inputs, as written
    std::string unit;                   // "cube" or "vector": the roof it is held against
    std::size_t count = 0;
    double timeNs = 0;                  // Σ duration of its calls
    double flops = kNaN, bytes = kNaN;  // per call (means over the calls)
    std::string flopsFrom, bytesFrom;   // "shapes", "aic/aiv fops columns", "element count", "bandwidth × time"
    double intensity = kNaN;            // flops / bytes
    double achievedFlops = kNaN;        // FLOP/s: flops × count / time
    double achievedBytes = kNaN;        // bytes/s
    double peak = kNaN;                 // the compute roof for its unit and dtype (FLOP/s)
    double attainable = kNaN;           // min(peak, intensity × HBM bytes/s)
    std::string bound;                  // "memory", "compute", or "unknown" (no FLOPs or bytes)
    // Achieved more than its roof allows: no kernel can, so an estimate behind the point is off.
    // `aboveRoofWhy` names the likely ones (FLOPs or bytes estimate, dtype, core count or clock).
    bool aboveRoof = false;
    std::string aboveRoofWhy;
    double efficiency() const { return attainable > 0 ? achievedFlops / attainable : kNaN; }
};

// Tensor shapes as kernel_details / op_summary write them ("4096,12288;4608,12288", quotes and
// spaces allowed; an empty tensor is a scalar). nullopt when a dimension is not a number.
std::optional<std::vector<std::vector<std::int64_t>>> parseShapes(std::string_view text);
// Bytes per element of a dtype name ("FLOAT16", "DT_BF16", "INT8", ...); 0 when unknown.
double dtypeBytes(std::string_view dtype);
// FLOPs of one matrix multiply from its input and output shapes: 2 · |out| · K, K being the
// contracted dimension (|A| / (A's batch · M), whatever A's transposition). nullopt when the
// shapes do not describe a matrix multiply (B's size disagrees with K and N).
std::optional<double> matmulFlops(const std::vector<std::vector<std::int64_t>>& in,
                                  const std::vector<std::vector<std::int64_t>>& out);

// FLOPs of one FlashAttention call (forward, or its gradient with `grad`), 4 · B · N · Sq · Skv · D
// forward and 2.5 times that backward (five matrix products instead of two). B, N and Sq come
// from the softmax statistics tensor ([B, N, Sq, 8]: an output forward, an input backward), so
// q's layout (BSH, SBH, BNSD, BSND) follows from where they sit in q; D = |q| / (B · N · Sq);
// Skv from k in that layout, else from a 2-D attention mask [Sq, Skv], else |k| / (B · N · D)
// (as many K heads as Q heads). Every block is counted, masked or not: a
// causal mask with a sparse mode skips about half, so this is an upper bound. nullopt when the
// shapes give no statistics tensor or do not divide evenly.
struct AttentionShape {
    double b = 0, n = 0, sq = 0, skv = 0, d = 0; // batch, heads, query and key lengths, head dim
};
std::optional<AttentionShape> attentionShape(const std::vector<std::vector<std::int64_t>>& in,
                                             const std::vector<std::vector<std::int64_t>>& out, bool grad);
std::optional<double> attentionFlops(const std::vector<std::vector<std::int64_t>>& in,
                                     const std::vector<std::vector<std::int64_t>>& out, bool grad);

RooflineRoofs rooflineRoofs(const ProfileFacts& f, const Thresholds& th);

// One kernel row's FLOPs and bytes per call (from the fops columns or its shapes), their ratio,
// and the ridge of its cube roof: intensity below the ridge means memory-bound by its shape.
struct OpIntensity {
    double flops = 0, bytes = 0, intensity = 0, ridge = 0;
    double peak = 0; // the cube roof for its dtype (FLOP/s)
};
std::optional<OpIntensity> opIntensity(const ProfileFacts& f, std::uint32_t kernelRow, const RooflineRoofs& roofs);
// Every op type and shape of the rank's kernel table, costliest first.
std::vector<RooflinePoint> rooflinePoints(const ProfileFacts& f, const RooflineRoofs& roofs);

} // namespace npuscope::advisor
