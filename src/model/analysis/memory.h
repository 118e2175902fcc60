#pragma once
// Device memory of a rank: the allocator's curves (memory_record, per component), the modules'
// reserved memory (npu_module_mem), the peaks, and the operator allocations (operator_memory)
// alive at any moment.
//
// Components of memory_record: PTA (torch_npu's caching allocator), GE (the graph engine), PTA+GE
// (their sum) and APP (the whole process on the device: reserved only). The "framework" curve,
// whose peaks `info`, the advisor and the Memory tab report, is PTA+GE when present, else PTA,
// else GE, else the first component that has allocated values.
//
// Every amount is in bytes (the files' KB and MB are binary: 1 MB = 1,048,576 B).
#include "model/store/profile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npuscope::memory {

struct Series {
    std::vector<TimeNs> ts;   // sorted
    std::vector<double> value; // bytes
    bool empty() const { return ts.empty(); }
    // The value holding at t (the last sample at or before t), NaN before the first.
    double at(TimeNs t) const;
};

struct ComponentCurve {
    std::string component;    // "PTA+GE", "PTA", "GE", "APP", or an npu_module_mem module ("SLOG")
    int device = -1;
    Series allocated, reserved, active;
};

struct Peak {
    double bytes = kNaN;
    TimeNs at = 0;            // the first time the peak value was reached
    bool valid() const { return !isMissing(bytes); }
};

struct Summary {
    std::vector<ComponentCurve> components; // memory_record, per (component, device), by name
    std::vector<ComponentCurve> modules;    // npu_module_mem: reserved per (module, device)
    int framework = -1;                     // index in `components` of the framework curve, or -1
    Peak peakAllocated, peakReserved;       // of the framework curve
    Peak peakActive;
    Peak appReserved;                       // APP component's reserved (the process on the device)
    double capacityBytes = kNaN;            // device memory of the chip, when known
    std::string capacitySource;
    std::size_t allocations = 0;            // operator_memory rows with a positive size
    std::size_t unreleased = 0;             // ... of which never released in the capture
    bool hasData() const { return !components.empty() || !modules.empty() || allocations > 0; }
    const ComponentCurve* frameworkCurve() const
    {
        return framework >= 0 ? &components[static_cast<std::size_t>(framework)] : nullptr;
    }
};

Summary summarize(const Profile& p);

// Device memory capacity of a chip in bytes, NaN when unknown: Ascend910B1/B2/B3 64 GiB,
// Ascend910B4 32 GiB, Ascend910 (A) 32 GiB.
double chipCapacityBytes(const std::string& chip);

// The end of an allocation's life: its release, else the end of the capture (`captureEnd`).
inline TimeNs liveUntil(const OpAllocation& a, TimeNs captureEnd)
{
    return a.releaseAt ? *a.releaseAt : std::max(a.allocAt, captureEnd);
}
// True when `a` holds memory at t: allocAt <= t < release (never released: to the end).
inline bool aliveAt(const OpAllocation& a, TimeNs t)
{
    return a.allocAt <= t && (!a.releaseAt || t < *a.releaseAt);
}

// Rows of p.opMemory with a positive size alive at t, largest first (ties: earlier allocation).
std::vector<std::uint32_t> allocationsAliveAt(const Profile& p, TimeNs t);

// Rows of p.opMemory with a positive size, largest first (ties: earlier allocation, file order).
std::vector<std::uint32_t> allocationsBySize(const Profile& p);

struct OperatorBytes {
    std::string name;
    double bytes = 0;          // Σ sizes
    double maxBytes = 0;       // largest single allocation
    std::uint64_t count = 0;
    std::uint64_t unreleased = 0;
    double unreleasedBytes = 0;
    TimeNs heldNs = 0;         // Σ lifetimes (unreleased: to the end of the capture)
};
// Allocations per operator name, most bytes first.
std::vector<OperatorBytes> byOperator(const Profile& p);

// Where an allocation came from in the Python timeline: the innermost cpu_op slice containing
// its allocation time (one named like the allocation preferred) and the nearest "Call stack"
// argument of it or of a slice enclosing it. Empty when the profile has no such slice.
struct AllocationOrigin {
    std::uint32_t slice = kNone;
    std::string op;
    std::string callStack;
};
AllocationOrigin originOf(const Profile& p, const OpAllocation& a);

} // namespace npuscope::memory
