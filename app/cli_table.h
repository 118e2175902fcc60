#pragma once
// The CLI verbs' tables (model/analysis/text_table.h) and their output: a file written
// atomically, or stdout.
#include "model/analysis/text_table.h"

#include <string>

namespace npuscope::cli {

using text::Table;
using text::fixed;
using text::jsonString;

// Output to `path` ("-" or empty: stdout) atomically; on failure prints the reason and returns false.
bool writeOutput(const std::string& verb, const std::string& path, const std::string& text);

} // namespace npuscope::cli
