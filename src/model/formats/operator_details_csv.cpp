// operator_details.csv (torch_npu ASCEND_PROFILER_OUTPUT/): one row per host operator with its
// inputs, call stack and the host and device time under it. Header of every sample (FORMATS.md §8,
// AP/operator_details.csv and the level 0/1/2 folders):
//   Name,Input Shapes,Call Stack,Host Self Duration(us),Host Total Duration(us),
//   Device Self Duration(us),Device Total Duration(us),Device Self Duration With AICore(us),
//   Device Total Duration With AICore(us)
// Input Shapes and Call Stack are quoted cells spanning lines (";\n"-separated); both are empty
// when record_shapes / with_stack were off. No sample has an input type or kernel column; an
// "Input Type(s)" column, were it there, would be an unknown one and is not read.
#include "model/formats/csv.h"
#include "model/formats/number_text.h"
#include "model/formats/readers.h"

namespace npuscope::readers {

FileRecord readOperatorDetailsCsv(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    return readCsvTable(bytes, ctx, profileReport(sink, ctx), [&](CsvTable& t, FileRecord& rec) {
        const int name = t.column("Name");
        const int shapes = t.column("Input Shapes");
        const int stack = t.column("Call Stack");
        const int hostSelf = t.column("Host Self Duration(us)");
        const int hostTotal = t.column("Host Total Duration(us)");
        const int devSelf = t.column("Device Self Duration(us)");
        const int devTotal = t.column("Device Total Duration(us)");
        const int devSelfAic = t.column("Device Self Duration With AICore(us)");
        const int devTotalAic = t.column("Device Total Duration With AICore(us)");
        if (!t.require(name, "Name"))
            return;
        UnreadableCells unreadable(t);
        auto text = [&](int col) { return col >= 0 ? sink.strings.intern(t.cell(col)) : NameId(0); };
        // Rows vary (a call stack can take kilobytes), so the room for the whole file is guessed
        // once from the bytes the first rows took (4 M rows in a 10 GB profile).
        const std::size_t before = sink.opDetails.size();
        while (t.nextRow()) {
            if (rec.records == CsvTable::kSampleRows)
                sink.opDetails.reserve(before + t.rowsExpected(CsvTable::kSampleRows));
            OpDetailRow r;
            r.name = text(name);
            r.inputShapes = text(shapes);
            r.callStack = text(stack);
            r.hostSelf = unreadable.micros(hostSelf);
            r.hostTotal = unreadable.micros(hostTotal);
            r.deviceSelf = unreadable.micros(devSelf);
            r.deviceTotal = unreadable.micros(devTotal);
            r.deviceSelfAiCore = unreadable.micros(devSelfAic);
            r.deviceTotalAiCore = unreadable.micros(devTotalAic);
            sink.opDetails.push_back(r);
            ++rec.records;
        }
        unreadable.report(sink.diagnostics, ctx, "duration cells");
        t.finish();
    });
}

} // namespace npuscope::readers
