#include "model/formats/side_json_dom.h"

namespace npuscope::readers::sidejson {

namespace {

// Builds a DOM like nlohmann::json::parse, except that a float under "Start Timestamp(us)" is
// stored as its raw text. On a parse error the partial DOM stays usable (truncated files keep
// every complete op).
class RawTimestampSax {
public:
    explicit RawTimestampSax(json& root) : m_root(root) {}

    bool null() { return put(json(nullptr)); }
    bool boolean(bool v) { return put(json(v)); }
    bool number_integer(json::number_integer_t v) { return put(json(v)); }
    bool number_unsigned(json::number_unsigned_t v) { return put(json(v)); }
    bool number_float(json::number_float_t v, const json::string_t& raw)
    {
        if (!m_stack.empty() && m_stack.back()->is_object() && m_key == kStartKey) {
            // The lexer writes the locale's decimal point into the token text: put '.' back.
            json::string_t text = raw;
            if (const auto p = text.find_first_not_of("+-0123456789eE"); p != json::string_t::npos)
                text[p] = '.';
            return put(json(std::move(text)));
        }
        return put(json(v));
    }
    bool string(json::string_t& v) { return put(json(std::move(v))); }
    bool binary(json::binary_t&) { return put(json(nullptr)); }
    bool start_object(std::size_t)
    {
        json* p = slot();
        *p = json::object();
        m_stack.push_back(p);
        return true;
    }
    bool key(json::string_t& k)
    {
        m_key = k;
        return true;
    }
    bool end_object()
    {
        m_stack.pop_back();
        return true;
    }
    bool start_array(std::size_t)
    {
        json* p = slot();
        *p = json::array();
        m_stack.push_back(p);
        return true;
    }
    bool end_array()
    {
        m_stack.pop_back();
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex)
    {
        m_errorAt = static_cast<std::int64_t>(position);
        m_error = ex.what();
        return false;
    }

    std::int64_t errorAt() const { return m_errorAt; }
    const std::string& error() const { return m_error; }

private:
    json* slot()
    {
        if (m_stack.empty())
            return &m_root;
        json& top = *m_stack.back();
        if (top.is_array()) {
            top.push_back(nullptr);
            return &top.back();
        }
        return &top[m_key];
    }
    bool put(json v)
    {
        *slot() = std::move(v);
        return true;
    }

    json& m_root;
    std::vector<json*> m_stack;
    std::string m_key;
    std::int64_t m_errorAt = -1;
    std::string m_error;
};

} // namespace

bool parseJson(std::string_view bytes, json& out, FileRecord& rec, const ReadContext& ctx, const Report& report)
{
    rec.path = ctx.file;
    rec.bytes = bytes.size();
    if (bytes.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        rec.status = FileStatus::Failed;
        rec.note = "empty file";
        report(Severity::Error, 0, "empty file");
        return false;
    }
    RawTimestampSax sax(out);
    json::sax_parse(bytes.begin(), bytes.end(), &sax);
    if (sax.errorAt() >= 0) {
        report(Severity::Warning, sax.errorAt(), "JSON parse error, kept what was complete: " + sax.error());
        rec.status = FileStatus::Partial;
        rec.note = "parse error at byte " + std::to_string(sax.errorAt());
        ++rec.skipped;
        if (!out.is_object() && !out.is_array()) {
            rec.status = FileStatus::Failed;
            return false;
        }
    }
    return true;
}

Report reportTo(Profile& p, const ReadContext& ctx)
{
    return [&p, &ctx](Severity s, std::int64_t off, std::string reason) {
        p.report(s, ctx.file, -1, off, std::move(reason));
    };
}

Report reportTo(std::vector<Diagnostic>& d, const ReadContext& ctx)
{
    return [&d, &ctx](Severity s, std::int64_t off, std::string reason) {
        d.push_back(Diagnostic{s, ctx.file, -1, off, std::move(reason), 1});
    };
}

std::string textOf(const json& v)
{
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_null())
        return {};
    return v.dump();
}

void finishRecord(FileRecord& rec)
{
    if (rec.status == FileStatus::Loaded && rec.records == 0)
        rec.note = "no records";
}

void finishRecord(FileRecord& rec, const UnreadableValues& bad)
{
    rec.skipped += bad.badKeys;
    if (bad.badKeys > 0 && rec.status == FileStatus::Loaded)
        rec.status = FileStatus::Partial;
    finishRecord(rec);
}

} // namespace npuscope::readers::sidejson
