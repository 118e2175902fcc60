#include "model/synth/json_out.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace npuscope::synth {

namespace {

void appendEscapedCodePoint(std::string& out, unsigned cp)
{
    char buf[16];
    if (cp >= 0x10000) { // a surrogate pair, as Python writes it
        cp -= 0x10000;
        std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
    } else {
        std::snprintf(buf, sizeof buf, "\\u%04x", cp);
    }
    out += buf;
}

void dump(const nlohmann::ordered_json& j, int indent, int depth, std::string& out)
{
    const auto newline = [&](int d) {
        out += '\n';
        out.append(static_cast<std::size_t>(indent * d), ' ');
    };
    const std::string_view item = indent < 0 ? ", " : ",";
    switch (j.type()) {
    case nlohmann::ordered_json::value_t::object: {
        if (j.empty()) {
            out += "{}";
            return;
        }
        out += '{';
        bool first = true;
        for (const auto& [k, v] : j.items()) {
            if (!first)
                out += item;
            first = false;
            if (indent >= 0)
                newline(depth + 1);
            out += '"';
            out += jsonEscape(k);
            out += "\": ";
            dump(v, indent, depth + 1, out);
        }
        if (indent >= 0)
            newline(depth);
        out += '}';
        return;
    }
    case nlohmann::ordered_json::value_t::array: {
        if (j.empty()) {
            out += "[]";
            return;
        }
        out += '[';
        bool first = true;
        for (const auto& v : j) {
            if (!first)
                out += item;
            first = false;
            if (indent >= 0)
                newline(depth + 1);
            dump(v, indent, depth + 1, out);
        }
        if (indent >= 0)
            newline(depth);
        out += ']';
        return;
    }
    case nlohmann::ordered_json::value_t::string:
        out += '"';
        out += jsonEscape(j.get_ref<const std::string&>());
        out += '"';
        return;
    case nlohmann::ordered_json::value_t::number_float:
        out += shortestText(j.get<double>());
        return;
    case nlohmann::ordered_json::value_t::boolean:
        out += j.get<bool>() ? "true" : "false";
        return;
    case nlohmann::ordered_json::value_t::null:
        out += "null";
        return;
    default: // integers
        out += j.dump();
        return;
    }
}

} // namespace

std::string jsonEscape(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 8);
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        switch (c) {
        case '"': out += "\\\""; continue;
        case '\\': out += "\\\\"; continue;
        case '\n': out += "\\n"; continue;
        case '\r': out += "\\r"; continue;
        case '\t': out += "\\t"; continue;
        case '\b': out += "\\b"; continue;
        case '\f': out += "\\f"; continue;
        default: break;
        }
        if (c < 0x20) {
            appendEscapedCodePoint(out, c);
        } else if (c < 0x80) {
            out += static_cast<char>(c);
        } else {
            // UTF-8 to a code point; a malformed byte is written as its own code point
            const int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
            unsigned cp = len == 1 ? c : c & (0x3F >> (len - 1));
            bool ok = len > 1 && i + static_cast<std::size_t>(len) <= text.size();
            for (int k = 1; ok && k < len; ++k) {
                const auto cc = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
                ok = (cc & 0xC0) == 0x80;
                cp = (cp << 6) | (cc & 0x3F);
            }
            if (!ok) {
                appendEscapedCodePoint(out, c);
                continue;
            }
            appendEscapedCodePoint(out, cp);
            i += static_cast<std::size_t>(len - 1);
        }
    }
    return out;
}

std::string pythonJson(const nlohmann::ordered_json& j, int indent)
{
    std::string out;
    dump(j, indent, 0, out);
    return out;
}

} // namespace npuscope::synth
