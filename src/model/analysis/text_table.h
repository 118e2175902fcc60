#pragma once
// A small text table shared by the CLI verbs and the GUI exports: rendered as aligned text, CSV,
// JSON or Markdown. No Qt (the compare view's Export… writes exactly what `npuscope compare` prints).
#include <string>
#include <vector>

namespace npuscope::text {

struct Table {
    std::vector<std::string> header;
    std::vector<bool> numeric;                 // per column: JSON number (or null when empty)
    std::vector<std::vector<std::string>> rows;

    void addColumn(std::string name, bool isNumber)
    {
        header.push_back(std::move(name));
        numeric.push_back(isNumber);
    }
    std::string toText() const;      // aligned columns, numbers right-aligned
    std::string toCsv() const;       // RFC 4180 quoting
    std::string toJson() const;      // array of objects with the header as keys, in order
    std::string toMarkdown() const;  // GFM table
    std::string render(const std::string& format) const;
};

std::string jsonString(const std::string& s);
// "%.{digits}f", or "" for NaN.
std::string fixed(double v, int digits);

} // namespace npuscope::text
