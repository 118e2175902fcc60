// operator_memory.csv (torch_npu, profile_memory=True): one row per block the caching allocator
// handed to an operator. Header (FORMATS.md §2):
//   Name,Size(KB),Allocation Time(us),Release Time(us),[Active Release Time(us),]Duration(us),
//   [Active Duration(us),]Allocation Total Allocated(MB),Allocation Total Reserved(MB),
//   [Allocation Total Active(MB),]Release Total Allocated(MB),Release Total Reserved(MB),
//   [Release Total Active(MB),Stream Ptr,]Device Type
// Release cells are empty for blocks still held when the capture ended. KB and MB are binary.
#include "model/formats/csv.h"
#include "model/formats/number_text.h"
#include "model/formats/readers.h"

namespace npuscope::readers {

namespace {

constexpr double kKiB = 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

// The column among `names` and the factor that turns its unit into bytes.
struct SizedColumn {
    int col = -1;
    double toBytes = 1;
};

SizedColumn sizedColumn(const CsvTable& t, std::string_view stem)
{
    const std::string s(stem);
    if (int c = t.column(s + "(KB)"); c >= 0)
        return {c, kKiB};
    if (int c = t.column(s + "(MB)"); c >= 0)
        return {c, kMiB};
    if (int c = t.column(s + "(B)"); c >= 0)
        return {c, 1};
    return {};
}

} // namespace

FileRecord readOperatorMemoryCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    return readCsvTable(bytes, ctx, profileReport(sink, ctx), [&](CsvTable& t, FileRecord& rec) {
        const int name = t.column("Name");
        const SizedColumn size = sizedColumn(t, "Size");
        const int alloc = t.column("Allocation Time(us)");
        const int release = t.column("Release Time(us)");
        const int activeRelease = t.column("Active Release Time(us)");
        const int duration = t.column("Duration(us)");
        const SizedColumn aAlloc = sizedColumn(t, "Allocation Total Allocated");
        const SizedColumn aRes = sizedColumn(t, "Allocation Total Reserved");
        const SizedColumn aAct = sizedColumn(t, "Allocation Total Active");
        const SizedColumn rAlloc = sizedColumn(t, "Release Total Allocated");
        const SizedColumn rRes = sizedColumn(t, "Release Total Reserved");
        const SizedColumn rAct = sizedColumn(t, "Release Total Active");
        const int stream = t.column("Stream Ptr");
        const int dev = t.column("Device_id");
        const int deviceText = t.column({"Device Type", "Device"});
        if (!t.require(name, "Name") || !t.require(size.col, "Size(KB)") || !t.require(alloc, "Allocation Time(us)"))
            return;
        UnreadableCells unreadable(t);
        UnreadableCells devices(t);
        auto amount = [&unreadable](const SizedColumn& c) {
            const auto v = unreadable.number(c.col);
            return v ? *v * c.toBytes : kNaN;
        };
        while (t.nextRow()) {
            const auto at = parseMicrosToNs(t.cell(alloc));
            if (!at) {
                t.skipRow("bad Allocation Time(us) '" + std::string(t.cell(alloc)) + "'");
                continue;
            }
            OpAllocation a;
            a.name = sink.strings.intern(t.cell(name));
            a.bytes = amount(size);
            a.allocAt = *at;
            a.releaseAt = unreadable.micros(release);
            a.activeReleaseAt = unreadable.micros(activeRelease);
            a.duration = unreadable.micros(duration);
            a.allocTotalAllocated = amount(aAlloc);
            a.allocTotalReserved = amount(aRes);
            a.allocTotalActive = amount(aAct);
            a.releaseTotalAllocated = amount(rAlloc);
            a.releaseTotalReserved = amount(rRes);
            a.releaseTotalActive = amount(rAct);
            a.streamPtr = stream >= 0 ? unreadable.integer(stream).value_or(-1) : -1;
            a.device = devices.device(dev >= 0 ? dev : deviceText);
            if (a.device < 0)
                a.device = ctx.device;
            sink.opMemory.push_back(a);
            ++rec.records;
        }
        unreadable.report(sink.diagnostics, ctx, "size, time or total cells");
        devices.reportDevices(sink.diagnostics, ctx);
        t.finish();
    });
}

} // namespace npuscope::readers
