#include "model/analysis/text_table.h"

#include "model/store/safe_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace npuscope::text {

namespace {

// Display width of UTF-8 text: count code points, not bytes ("µs" is 2 wide).
std::size_t width(const std::string& s)
{
    std::size_t n = 0;
    for (const char c : s)
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80)
            ++n;
    return n;
}

} // namespace

std::string fixed(double v, int digits)
{
    if (std::isnan(v) || std::isinf(v))
        return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string jsonString(const std::string& raw)
{
    const std::string s = validUtf8(raw);
    std::string out = "\"";
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += ch;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

std::string Table::toText() const
{
    // A terminal shows this: control characters escaped, invalid UTF-8 as U+FFFD.
    std::vector<std::vector<std::string>> shown;
    shown.reserve(rows.size());
    for (const auto& r : rows) {
        shown.emplace_back();
        for (const auto& cell : r)
            shown.back().push_back(forTerminal(cell));
    }
    std::vector<std::size_t> w(header.size(), 0);
    for (std::size_t c = 0; c < header.size(); ++c)
        w[c] = width(header[c]);
    for (const auto& r : shown)
        for (std::size_t c = 0; c < r.size() && c < w.size(); ++c)
            w[c] = std::max(w[c], width(r[c]));
    auto line = [&](const std::vector<std::string>& cells, bool isHeader) {
        std::string out;
        for (std::size_t c = 0; c < header.size(); ++c) {
            const std::string cell = c < cells.size() ? cells[c] : "";
            const std::string pad(w[c] - width(cell), ' ');
            const bool right = !isHeader && numeric[c];
            out += right ? pad + cell : cell + (c + 1 < header.size() ? pad : "");
            if (c + 1 < header.size())
                out += "  ";
        }
        while (!out.empty() && out.back() == ' ')
            out.pop_back();
        return out + "\n";
    };
    std::string out = line(header, true);
    for (const auto& r : shown)
        out += line(r, false);
    return out;
}

std::string Table::toCsv() const
{
    std::string out;
    for (std::size_t c = 0; c < header.size(); ++c)
        out += (c ? "," : "") + csvCell(header[c]);
    out += "\n";
    for (const auto& r : rows) {
        for (std::size_t c = 0; c < header.size(); ++c)
            out += (c ? "," : "") + csvCell(c < r.size() ? r[c] : "");
        out += "\n";
    }
    return out;
}

std::string Table::toJson() const
{
    std::string out = "[";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        out += i ? ",\n  {" : "\n  {";
        for (std::size_t c = 0; c < header.size(); ++c) {
            const std::string cell = c < rows[i].size() ? rows[i][c] : "";
            out += (c ? ", " : "") + jsonString(header[c]) + ": ";
            if (numeric[c])
                out += cell.empty() ? "null" : cell;
            else
                out += jsonString(cell);
        }
        out += "}";
    }
    out += rows.empty() ? "]\n" : "\n]\n";
    return out;
}

std::string Table::toMarkdown() const
{
    auto esc = [](const std::string& s) { return markdownCell(s); };
    std::string out = "|";
    for (const auto& h : header)
        out += " " + esc(h) + " |";
    out += "\n|";
    for (std::size_t c = 0; c < header.size(); ++c)
        out += numeric[c] ? "---:|" : "---|";
    out += "\n";
    for (const auto& r : rows) {
        out += "|";
        for (std::size_t c = 0; c < header.size(); ++c)
            out += " " + esc(c < r.size() ? r[c] : "") + " |";
        out += "\n";
    }
    return out;
}

std::string Table::render(const std::string& format) const
{
    if (format == "csv")
        return toCsv();
    if (format == "json")
        return toJson();
    if (format == "markdown")
        return toMarkdown();
    return toText();
}

} // namespace npuscope::text
