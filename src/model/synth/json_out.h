#pragma once
// JSON written in one of two spacings: Python's json.dump default (", " between members, ": "
// after a key), which is what torch_npu writes (trace_view.json, communication*.json, info.json),
// or compact ("," and ":"), which is what msprof writes.
#include "model/synth/out_file.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace npuscope::synth {

struct JsonStyle {
    std::string_view item = ", ";  // between members and between array items
    std::string_view colon = ": "; // between a key and its value
    static JsonStyle python() { return {", ", ": "}; }
    static JsonStyle compact() { return {",", ":"}; }
};

// One object, {"key": value, ...}, members in call order. Keys and string values are written as
// given: callers pass JSON-safe text (jsonEscape() makes it so).
class JsonObj {
public:
    JsonObj(OutFile& f, const JsonStyle& s) : m_f(f), m_s(s) { f.ch('{'); }
    JsonObj(const JsonObj&) = delete;
    JsonObj& operator=(const JsonObj&) = delete;

    // Writes the separator and `"k": `; the caller writes the value.
    OutFile& key(std::string_view k)
    {
        if (!m_first)
            m_f.str(m_s.item);
        m_first = false;
        return m_f.ch('"').str(k).ch('"').str(m_s.colon);
    }
    JsonObj& str(std::string_view k, std::string_view v)
    {
        key(k).ch('"').str(v).ch('"');
        return *this;
    }
    JsonObj& i64(std::string_view k, std::int64_t v)
    {
        key(k).i64(v);
        return *this;
    }
    JsonObj& u64(std::string_view k, std::uint64_t v)
    {
        key(k).u64(v);
        return *this;
    }
    // A float as Python's repr writes it.
    JsonObj& num(std::string_view k, double v)
    {
        key(k).shortest(v);
        return *this;
    }
    // ns as a quoted µs string with 3 decimals ("1780748105187895.870"): torch_npu's and msprof's ts.
    JsonObj& ts(std::string_view k, std::int64_t ns)
    {
        key(k).ch('"').us3(ns).ch('"');
        return *this;
    }
    void end() { m_f.ch('}'); }

private:
    OutFile& m_f;
    const JsonStyle& m_s;
    bool m_first = true;
};

// Text as a JSON string body: quotes, backslashes and control characters escaped; non-ASCII
// bytes as \uXXXX of their code point, as json.dump (ensure_ascii) writes them.
std::string jsonEscape(std::string_view text);

// A whole document in Python's default json.dump spacing (indent < 0) or json.dump(indent=N).
std::string pythonJson(const nlohmann::ordered_json& j, int indent = -1);

} // namespace npuscope::synth
