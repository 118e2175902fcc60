#pragma once
// What a real torch_npu rank folder says of itself, read here without the readers under test:
// its step split from step_trace_time.csv (text export) or analysis.db's StepTraceTime (db
// export), and its profiler level from profiler_info_N.json.
#include "../model/csv_records.h"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <QDir>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>

namespace real {

inline std::string readAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::int64_t usToNs(double us) { return static_cast<std::int64_t>(std::llround(us * 1000.0)); }

// One step's split, in ns; steps = the rows it was read from (0: none).
struct StepSplit {
    std::int64_t computing = 0, notOverlapped = 0, free = 0;
    int steps = 0;
    std::int64_t T() const { return computing + notOverlapped + free; }
};

// The first row of ASCEND_PROFILER_OUTPUT/step_trace_time.csv under `rankDir`.
inline StepSplit stepFromCsv(const std::string& rankDir)
{
    const auto rows = parseCsv(readAll(rankDir + "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv"));
    if (rows.size() < 2)
        return {};
    auto cell = [&](const char* name) {
        const auto it = std::find(rows[0].begin(), rows[0].end(), name);
        return it == rows[0].end() ? 0.0 : std::stod(rows[1][static_cast<std::size_t>(it - rows[0].begin())]);
    };
    return {usToNs(cell("Computing")), usToNs(cell("Communication(Not Overlapped)")), usToNs(cell("Free")),
            static_cast<int>(rows.size() - 1)};
}

// The first row of the StepTraceTime table of ASCEND_PROFILER_OUTPUT/analysis.db (µs), opened
// read-only: the samples must not change.
inline StepSplit stepFromAnalysisDb(const std::string& rankDir)
{
    StepSplit s;
    const std::string uri = "file:" + rankDir + "/ASCEND_PROFILER_OUTPUT/analysis.db?mode=ro&immutable=1";
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return s;
    }
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT computing, communication_not_overlapped, free FROM StepTraceTime", -1, &st, nullptr)
        == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            if (s.steps++ == 0) {
                s.computing = usToNs(sqlite3_column_double(st, 0));
                s.notOverlapped = usToNs(sqlite3_column_double(st, 1));
                s.free = usToNs(sqlite3_column_double(st, 2));
            }
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return s;
}

// The step split of a text or db rank folder, whichever export it holds.
inline StepSplit stepOf(const std::string& rankDir)
{
    return QDir(QString::fromStdString(rankDir + "/ASCEND_PROFILER_OUTPUT")).exists(QStringLiteral("analysis.db"))
               ? stepFromAnalysisDb(rankDir)
               : stepFromCsv(rankDir);
}

// "Level0", "Level1", "Level2" from the profiler_info_N.json of the folder, "" when absent.
inline std::string profilerLevel(const std::string& rankDir)
{
    const QStringList infos = QDir(QString::fromStdString(rankDir)).entryList({QStringLiteral("profiler_info*.json")}, QDir::Files);
    if (infos.isEmpty())
        return {};
    const nlohmann::json j = nlohmann::json::parse(readAll(rankDir + "/" + infos.front().toStdString()), nullptr, false);
    if (!j.is_object() || !j.contains("config"))
        return {};
    return j["config"].value("experimental_config", nlohmann::json::object()).value("_profiler_level", std::string());
}

} // namespace real
