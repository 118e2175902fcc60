#pragma once
// The text policy at the output boundary. Strings enter the model byte-exact (a name is an
// identity: two names that differ in one invalid byte are two operators). Each writer makes
// them valid for its medium here, one rule per medium:
// - JSON: invalid UTF-8 becomes U+FFFD; the report counts the strings repaired.
// - HTML: valid UTF-8, markup characters escaped, control characters other than tab and newline
//   replaced by U+FFFD (they are not allowed in HTML text).
// - CSV and Markdown: valid UTF-8 and quoted; a text cell that a spreadsheet would run as a
//   formula (leading = + - @, tab or carriage return) gets a leading apostrophe.
// - Terminal messages (paths, names in stderr): valid UTF-8, control characters escaped.
// - PDF and GUI: QString::fromUtf8 shows invalid bytes as U+FFFD by itself.
#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace npuscope::text {

bool isValidUtf8(std::string_view s);
// `s` with every byte that does not start or continue a valid UTF-8 sequence replaced by U+FFFD
// (one replacement per invalid byte, as nlohmann's error_handler_t::replace does).
std::string validUtf8(std::string_view s);
// For a terminal or log line: valid UTF-8, and C0/C1 controls and DEL written as \n, \t, \r or
// \xNN, so a file name can neither break the line nor send escape sequences.
std::string forTerminal(std::string_view s);
// A plain-text report or file: valid UTF-8, control characters other than newline and tab
// written as \xNN.
std::string plainText(std::string_view s);
// HTML text or attribute value: valid UTF-8 with & < > " ' escaped.
std::string htmlEscape(std::string_view s);
// A CSV cell: valid UTF-8, quoted when it holds a separator, a quote or a line break; text that
// starts like a formula gets a leading apostrophe unless it is a plain number ("-3.5").
std::string csvCell(std::string_view s);
// A Markdown table cell: valid UTF-8, '|' and '\' escaped, line breaks as spaces, control
// characters dropped, a formula-like start guarded as in csvCell.
std::string markdownCell(std::string_view s);

// How many strings (keys and values) of `j` are not valid UTF-8, recursively.
std::size_t invalidStrings(const nlohmann::json& j);
std::size_t invalidStrings(const nlohmann::ordered_json& j);
// dump() that never throws on invalid UTF-8: such bytes come out as U+FFFD.
std::string dumpJson(const nlohmann::json& j, int indent = -1);
std::string dumpJson(const nlohmann::ordered_json& j, int indent = -1);

} // namespace npuscope::text
