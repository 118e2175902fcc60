#pragma once
// A small text table shared by the CLI verbs: rendered as aligned text, CSV, JSON or Markdown,
// and written atomically to a file or to stdout.
#include <string>
#include <vector>

namespace npuscope::cli {

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
// Output to `path` ("-" or empty: stdout) atomically; on failure prints the reason and returns false.
bool writeOutput(const std::string& verb, const std::string& path, const std::string& text);
// "%.{digits}f", or "" for NaN.
std::string fixed(double v, int digits);

} // namespace npuscope::cli
