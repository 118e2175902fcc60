#include "bench/reference_scanners.h"

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <cstring>
#include <memory>
#include <vector>

namespace npuscope::bench {

namespace {

bool isWs(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v)
{
    return (h ^ v) * 0x100000001b3ULL;
}

} // namespace

std::size_t lastEventBoundary(std::string_view json, std::size_t from, std::size_t limit)
{
    // Look backwards for '{' whose previous non-space byte is ',' and the one before that '}'.
    if (limit > json.size())
        limit = json.size();
    for (std::size_t i = limit; i > from + 1;) {
        --i;
        if (json[i] != '{')
            continue;
        std::size_t j = i;
        while (j > from && isWs(json[j - 1]))
            --j;
        if (j == from || json[j - 1] != ',')
            continue;
        const std::size_t comma = j - 1;
        std::size_t k = comma;
        while (k > from && isWs(json[k - 1]))
            --k;
        if (k > from && json[k - 1] == '}')
            return comma;
    }
    return std::string_view::npos;
}

std::string simdjsonKernel()
{
    const auto& impl = simdjson::get_active_implementation();
    return impl->name() + " (" + impl->description() + ")";
}

ScanStats simdjsonFloorScan(std::string_view json, std::size_t chunkBytes)
{
    ScanStats st;
    std::size_t pos = json.find('[');
    if (pos == std::string_view::npos) {
        st.ok = false;
        st.error = "no top-level array";
        return st;
    }
    ++pos;
    std::size_t end = json.rfind(']');
    if (end == std::string_view::npos || end < pos)
        end = json.size();

    simdjson::ondemand::parser parser;
    std::vector<char> buf; // reused, padded
    while (pos < end) {
        std::size_t limit = pos + chunkBytes;
        std::size_t cut = end;
        if (limit < end) {
            cut = lastEventBoundary(json, pos, limit);
            if (cut == std::string_view::npos)
                cut = end; // one event larger than a chunk: take the rest
        }
        const std::size_t len = cut - pos;
        const std::size_t need = len + 2 + simdjson::SIMDJSON_PADDING;
        if (buf.size() < need)
            buf.resize(need);
        buf[0] = '[';
        std::memcpy(buf.data() + 1, json.data() + pos, len);
        buf[len + 1] = ']';
        simdjson::padded_string_view view(buf.data(), len + 2, buf.size());
        auto doc = parser.iterate(view);
        if (doc.error()) {
            st.ok = false;
            st.error = simdjson::error_message(doc.error());
            return st;
        }
        auto arr = doc.get_array();
        if (arr.error()) {
            st.ok = false;
            st.error = simdjson::error_message(arr.error());
            return st;
        }
        for (auto value : arr.value_unsafe()) {
            auto obj = value.get_object();
            if (obj.error()) {
                st.ok = false;
                st.error = simdjson::error_message(obj.error());
                return st;
            }
            std::uint64_t h = st.checksum;
            for (auto field : obj.value_unsafe()) {
                std::string_view key;
                if (field.unescaped_key().get(key))
                    continue;
                auto v = field.value();
                if (key == "ts") {
                    std::string_view raw;
                    if (!v.raw_json_token().get(raw))
                        h = mix(h, raw.size());
                } else if (key == "dur") {
                    double d = 0;
                    if (!v.get_double().get(d))
                        h = mix(h, static_cast<std::uint64_t>(d * 1000.0));
                } else if (key == "name") {
                    std::string_view s;
                    if (!v.get_string().get(s))
                        h = mix(h, s.size());
                } else if (key == "pid" || key == "tid") {
                    std::int64_t n = 0;
                    if (!v.get_int64().get(n))
                        h = mix(h, static_cast<std::uint64_t>(n));
                    else {
                        std::string_view raw;
                        if (!v.raw_json_token().get(raw))
                            h = mix(h, raw.size());
                    }
                } else if (key == "ph") {
                    std::string_view s;
                    if (!v.get_string().get(s) && !s.empty())
                        h = mix(h, static_cast<unsigned char>(s[0]));
                }
            }
            st.checksum = h;
            ++st.events;
        }
        pos = cut + 1;
    }
    return st;
}

namespace {

struct CountingSax : nlohmann::json_sax<nlohmann::json> {
    ScanStats* st = nullptr;
    int depth = 0;
    std::string m_key;
    std::uint64_t h = 0;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t v) override
    {
        if (depth == 2 && (m_key == "pid" || m_key == "tid"))
            h = mix(h, static_cast<std::uint64_t>(v));
        return true;
    }
    bool number_unsigned(number_unsigned_t v) override
    {
        if (depth == 2 && (m_key == "pid" || m_key == "tid"))
            h = mix(h, v);
        return true;
    }
    bool number_float(number_float_t v, const string_t& text) override
    {
        if (depth == 2 && m_key == "dur")
            h = mix(h, static_cast<std::uint64_t>(v * 1000.0));
        if (depth == 2 && m_key == "ts")
            h = mix(h, text.size());
        return true;
    }
    bool string(string_t& s) override
    {
        if (depth == 2) {
            if (m_key == "ts" || m_key == "name")
                h = mix(h, s.size());
            else if (m_key == "ph" && !s.empty())
                h = mix(h, static_cast<unsigned char>(s[0]));
        }
        return true;
    }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override
    {
        ++depth;
        return true;
    }
    bool key(string_t& k) override
    {
        if (depth == 2)
            m_key = k;
        return true;
    }
    bool end_object() override
    {
        if (depth == 2)
            ++st->events;
        --depth;
        return true;
    }
    bool start_array(std::size_t) override
    {
        ++depth;
        return true;
    }
    bool end_array() override
    {
        --depth;
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override
    {
        st->ok = false;
        st->error = "at byte " + std::to_string(position) + ": " + ex.what();
        return false;
    }
};

} // namespace

ScanStats nlohmannSaxScan(std::string_view json)
{
    ScanStats st;
    CountingSax sax;
    sax.st = &st;
    nlohmann::json::sax_parse(json.begin(), json.end(), &sax);
    st.checksum = sax.h;
    return st;
}

} // namespace npuscope::bench
