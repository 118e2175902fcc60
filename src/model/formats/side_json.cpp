// Small JSON side files (FORMATS.md §4): communication[_matrix].json, their cluster forms,
// info.json, profiler_info.json, profiler_metadata.json. They are kilobytes to a few megabytes.
// Only "Start Timestamp(us)" needs its number kept as text (µs with 3 decimals and ~16 significant
// digits does not survive a double). The communication files are first read with simdjson
// On-Demand into a compact tree (keys and strings point into the file or the parser, file order
// kept), each op or link handed to its reader as soon as it is complete and dropped from the tree;
// a file it rejects for any reason (truncated, bad JSON, a duplicate key, ...) is parsed again
// into an nlohmann DOM, which keeps what was complete and says where it stopped. The other files
// use only the DOM. One walker reads both trees through a small node adapter (DomNode, FastNode).
#include "model/formats/number_text.h"
#include "model/formats/readers.h"
#include "model/store/cancellable_rows.h"

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <span>

namespace npuscope::readers {

namespace {

// Key order matters (ops and links are listed as the profiler wrote them): ordered DOM.
using json = nlohmann::ordered_json;

constexpr std::string_view kStartKey = "Start Timestamp(us)";

thread_local CommJsonParser t_commJsonParser = CommJsonParser::Auto;

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

// Parses bytes; reports a parse error (keeping the partial DOM). Returns false when nothing usable.
bool parseJson(std::string_view bytes, json& out, FileRecord& rec, const ReadContext& ctx,
               const std::function<void(Severity, std::int64_t, std::string)>& report)
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

// ---- node adapters: the walker below reads either tree through these ----

using KeyPath = std::vector<std::string_view>;

// The walks over a communication file (walkOps, walkLinks) look for their records in the members
// of objects this deep and less (the root is 0), through objects only.
constexpr int kWalkDepth = 6;

enum class NumKind { None, Unsigned, Signed, Float }; // nlohmann's number types

// A node of the nlohmann DOM; a default-constructed one is a missing value.
class DomNode {
public:
    DomNode() = default;
    explicit DomNode(const json* j) : m_j(j) {}

    bool exists() const { return m_j != nullptr; }
    bool isObject() const { return m_j && m_j->is_object(); }
    bool isArray() const { return m_j && m_j->is_array(); }
    bool isString() const { return m_j && m_j->is_string(); }
    bool isNull() const { return m_j && m_j->is_null(); }
    NumKind numKind() const
    {
        if (!m_j || !m_j->is_number())
            return NumKind::None;
        return m_j->is_number_unsigned() ? NumKind::Unsigned
               : m_j->is_number_integer() ? NumKind::Signed
                                          : NumKind::Float;
    }
    std::string_view text() const { return m_j->get_ref<const std::string&>(); }
    std::uint64_t asUnsigned() const { return m_j->get<std::uint64_t>(); }
    std::int64_t asSigned() const { return m_j->get<std::int64_t>(); }
    double asDouble() const { return m_j->get<double>(); }
    std::size_t size() const { return m_j->size(); }
    DomNode at(std::size_t i) const { return DomNode(&(*m_j)[i]); }
    // The member `key` of an object, or a missing node.
    DomNode find(std::string_view key) const
    {
        if (!isObject())
            return {};
        const auto it = m_j->find(key);
        return it == m_j->end() ? DomNode() : DomNode(&*it);
    }
    // f(key, value) for each member of an object, in file order.
    template <typename F>
    void forEachMember(F&& f) const
    {
        for (const auto& [k, v] : m_j->items())
            f(std::string_view(k), DomNode(&v));
    }

private:
    const json* m_j = nullptr;
};

// A communication file as a compact tree, built by simdjson On-Demand in one pass in file order.
// Every value is checked (strings unescaped, numbers parsed, literals matched, nothing after the
// root), so a file accepted here is one the DOM parser accepts whole, and the tree reads the same:
// same number types and values, a float under "Start Timestamp(us)" kept as its token text.
// With a Collapse, each record (an op or a link) is handed over as soon as it is complete and its
// subtree dropped: the tree of a file then holds its upper levels and one record at a time.
class FastTree {
public:
    static constexpr std::uint32_t kNone = ~std::uint32_t(0);

    // `isTarget(node)` is asked of each object, once it is complete, that is a member's value a
    // walk from the root reaches (through objects, members of objects kWalkDepth deep and less);
    // `take(node, path)` gets each one that is, with the keys leading to it (its own last).
    struct Collapse {
        std::function<bool(std::uint32_t)> isTarget;
        std::function<void(std::uint32_t, const KeyPath&)> take;
    };
    enum class Type : std::uint8_t { Null, Bool, String, Number, Object, Array };
    struct Node { // 40 bytes: the tree of a 3 MB file is ~5 MB
        Type type = Type::Null;
        NumKind num = NumKind::None;
        std::uint32_t first = kNone; // first child (object, array)
        std::uint32_t next = kNone;  // next sibling
        std::uint32_t count = 0;     // children
        std::uint32_t keySize = 0, textSize = 0;
        const char* keyData = nullptr; // member name, in the file or the parser's string buffer
        union {
            const char* text; // string value (or the raw start timestamp)
            std::uint64_t u;  // Unsigned, Signed (cast back)
            double d;         // Float
        } value{nullptr};

        std::string_view key() const { return {keyData, keySize}; }
        std::string_view text() const { return {value.text, textSize}; }
        double asDouble() const
        {
            return num == NumKind::Float    ? value.d
                   : num == NumKind::Signed ? static_cast<double>(static_cast<std::int64_t>(value.u))
                                            : static_cast<double>(value.u);
        }
    };

    // False when simdjson rejects the file, or when the DOM would read it differently (a
    // duplicate key, which the DOM merges into one member).
    // `cancel` (may be null) is polled every few thousand values; a cancelled parse returns false.
    // `readable`: bytes past the end of `bytes` that may be read; with SIMDJSON_PADDING of them
    // the file is parsed in place (simdjson reads them, their content does not matter), else
    // copied into a padded buffer.
    // `collapse` (may be null): records taken as they are parsed. When one record holds another,
    // found only once the outer one is complete (a walk takes the outer one alone), the parse
    // fails with nestedRecords() true; the file is then to be parsed whole.
    bool parse(std::string_view bytes, std::size_t readable, const std::atomic<bool>* cancel = nullptr,
               const Collapse* collapse = nullptr)
    {
        m_cancel = cancel;
        m_collapse = collapse;
        simdjson::padded_string_view input(bytes.data(), bytes.size(), bytes.size() + readable);
        if (readable < simdjson::SIMDJSON_PADDING) {
            m_input = simdjson::padded_string(bytes);
            input = simdjson::padded_string_view(m_input);
        }
        simdjson::ondemand::document doc;
        simdjson::ondemand::value root;
        if (m_parser.iterate(input).get(doc) || doc.get_value().get(root))
            return false;
        if (!collapse)
            m_nodes.reserve(bytes.size() / 16); // ~24 bytes of JSON per value in these files
        if (add(root, {}, false, 0, true) != simdjson::SUCCESS)
            return false;
        return doc.current_location().error() == simdjson::OUT_OF_BOUNDS; // nothing after the root
    }

    const Node& node(std::uint32_t i) const { return m_nodes[i]; }
    bool nestedRecords() const { return m_nestedRecords; }

private:
    using Error = simdjson::error_code;
    const std::atomic<bool>* m_cancel = nullptr;
    const Collapse* m_collapse = nullptr;
    KeyPath m_path;               // with a Collapse: the keys leading to the value added (its own last)
    std::uint64_t m_added = 0;    // values added
    std::uint64_t m_taken = 0;    // records taken
    bool m_nestedRecords = false;

    // Deeper documents go to the DOM path: simdjson On-Demand must not be led past its
    // max_depth (1024), and the communication files nest about six levels.
    static constexpr int kMaxDepth = 256;

    // A member's name: its bytes in the file when it holds no escape and no control character
    // (nearly every one), else unescaped into the parser's string buffer.
    static Error keyOf(simdjson::ondemand::field& f, std::string_view& key)
    {
        const char* const begin = f.key().raw();
        const char* p = begin;
        while (*p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20)
            ++p;
        if (*p == '"') {
            key = std::string_view(begin, static_cast<std::size_t>(p - begin));
            return simdjson::SUCCESS;
        }
        return f.unescaped_key().get(key);
    }

    // `reached`: a walk from the root gets to this value (see Collapse).
    Error add(simdjson::ondemand::value v, std::string_view key, bool underStartKey, int depth, bool reached)
    {
        namespace od = simdjson::ondemand;
        od::json_type type;
        if (Error e = v.type().get(type))
            return e;
        const auto self = static_cast<std::uint32_t>(m_nodes.size());
        if ((++m_added & 4095) == 0 && isCancelled(m_cancel))
            return simdjson::TAPE_ERROR; // the caller sees the cancel flag
        Node& added = m_nodes.emplace_back();
        added.keyData = key.data();
        added.keySize = static_cast<std::uint32_t>(key.size());
        switch (type) {
        case od::json_type::object: {
            m_nodes[self].type = Type::Object;
            if (depth >= kMaxDepth)
                return simdjson::DEPTH_ERROR;
            od::object o;
            if (Error e = v.get_object().get(o))
                return e;
            const bool reachMembers = m_collapse && reached && depth <= kWalkDepth;
            const std::uint64_t takenBefore = m_taken;
            std::uint32_t last = kNone;
            for (auto member : o) {
                od::field f;
                std::string_view k;
                if (Error e = std::move(member).get(f); e || (e = keyOf(f, k)))
                    return e;
                const auto child = static_cast<std::uint32_t>(m_nodes.size());
                if (reachMembers)
                    m_path.push_back(k);
                if (Error e = add(f.value(), k, k == kStartKey, depth + 1, reachMembers))
                    return e;
                if (reachMembers)
                    m_path.pop_back();
                link(self, last, child);
            }
            if (hasDuplicateKey(self))
                return simdjson::INCORRECT_TYPE;
            if (m_collapse && reached && depth > 0 && m_collapse->isTarget(self)) {
                if (m_taken != takenBefore) {
                    m_nestedRecords = true;
                    return simdjson::TAPE_ERROR;
                }
                m_collapse->take(self, m_path);
                ++m_taken;
                m_nodes.resize(self + 1); // an empty object, for its parent's duplicate check
                m_nodes[self].first = kNone;
                m_nodes[self].count = 0;
            }
            return simdjson::SUCCESS;
        }
        case od::json_type::array: {
            m_nodes[self].type = Type::Array;
            if (depth >= kMaxDepth)
                return simdjson::DEPTH_ERROR;
            od::array a;
            if (Error e = v.get_array().get(a))
                return e;
            std::uint32_t last = kNone;
            for (auto element : a) {
                od::value x;
                if (Error e = std::move(element).get(x))
                    return e;
                const auto child = static_cast<std::uint32_t>(m_nodes.size());
                if (Error e = add(x, {}, false, depth + 1, false))
                    return e;
                link(self, last, child);
            }
            return simdjson::SUCCESS;
        }
        case od::json_type::string: {
            m_nodes[self].type = Type::String;
            std::string_view text;
            if (Error e = v.get_string().get(text))
                return e;
            setText(self, text);
            return simdjson::SUCCESS;
        }
        case od::json_type::number: {
            const std::string_view token = trimText(v.raw_json_token());
            od::number n;
            if (Error e = v.get_number().get(n))
                return e;
            Node& x = m_nodes[self];
            x.type = Type::Number;
            // nlohmann: an integer token is unsigned unless it starts with '-', a float when it
            // does not fit 64 bits (simdjson: a double then too).
            switch (n.get_number_type()) {
            case od::number_type::signed_integer: {
                const std::int64_t i = n.get_int64();
                x.value.u = static_cast<std::uint64_t>(i);
                x.num = token.starts_with('-') ? NumKind::Signed : NumKind::Unsigned;
                break;
            }
            case od::number_type::unsigned_integer:
                x.value.u = n.get_uint64();
                x.num = NumKind::Unsigned;
                break;
            default:
                x.value.d = n.get_double();
                x.num = NumKind::Float;
                if (!std::isfinite(x.value.d))
                    return simdjson::NUMBER_ERROR; // the DOM parser calls it an overflow
                if (underStartKey) {
                    x.type = Type::String;
                    x.num = NumKind::None;
                    setText(self, token);
                }
                break;
            }
            return simdjson::SUCCESS;
        }
        case od::json_type::boolean: {
            m_nodes[self].type = Type::Bool;
            bool b = false;
            return v.get_bool().get(b);
        }
        case od::json_type::null: {
            bool isNull = false;
            if (Error e = v.is_null().get(isNull))
                return e;
            return isNull ? simdjson::SUCCESS : simdjson::N_ATOM_ERROR;
        }
        }
        return simdjson::TAPE_ERROR;
    }

    void setText(std::uint32_t node, std::string_view text)
    {
        m_nodes[node].value.text = text.data();
        m_nodes[node].textSize = static_cast<std::uint32_t>(text.size()); // simdjson documents are < 4 GiB
    }

    void link(std::uint32_t parent, std::uint32_t& last, std::uint32_t child)
    {
        if (last == kNone)
            m_nodes[parent].first = child;
        else
            m_nodes[last].next = child;
        last = child;
        ++m_nodes[parent].count;
    }

    bool hasDuplicateKey(std::uint32_t object)
    {
        const std::uint32_t count = m_nodes[object].count;
        if (count < 2)
            return false;
        if (count <= 16) { // op and link objects: pairwise
            for (auto a = m_nodes[object].first; a != kNone; a = m_nodes[a].next)
                for (auto b = m_nodes[a].next; b != kNone; b = m_nodes[b].next)
                    if (m_nodes[a].keySize == m_nodes[b].keySize && m_nodes[a].key() == m_nodes[b].key())
                        return true;
            return false;
        }
        m_keys.clear();
        for (auto c = m_nodes[object].first; c != kNone; c = m_nodes[c].next)
            m_keys.push_back(m_nodes[c].key());
        std::sort(m_keys.begin(), m_keys.end());
        return std::adjacent_find(m_keys.begin(), m_keys.end()) != m_keys.end();
    }

    simdjson::padded_string m_input;
    simdjson::ondemand::parser m_parser;
    std::vector<Node> m_nodes;
    std::vector<std::string_view> m_keys;
};

// A node of a FastTree, with DomNode's interface.
class FastNode {
public:
    FastNode() = default;
    FastNode(const FastTree* tree, std::uint32_t index) : m_tree(tree), m_index(index) {}

    bool exists() const { return m_tree != nullptr; }
    bool isObject() const { return is(FastTree::Type::Object); }
    bool isArray() const { return is(FastTree::Type::Array); }
    bool isString() const { return is(FastTree::Type::String); }
    bool isNull() const { return is(FastTree::Type::Null); }
    NumKind numKind() const { return m_tree ? n().num : NumKind::None; }
    std::string_view text() const { return n().text(); }
    std::uint64_t asUnsigned() const { return n().value.u; }
    std::int64_t asSigned() const { return static_cast<std::int64_t>(n().value.u); }
    double asDouble() const { return n().asDouble(); }
    std::size_t size() const { return n().count; }
    FastNode at(std::size_t i) const
    {
        auto c = n().first;
        while (i-- > 0)
            c = m_tree->node(c).next;
        return {m_tree, c};
    }
    FastNode find(std::string_view key) const
    {
        if (!isObject())
            return {};
        for (auto c = n().first; c != FastTree::kNone; c = m_tree->node(c).next)
            if (m_tree->node(c).key() == key)
                return {m_tree, c};
        return {};
    }
    template <typename F>
    void forEachMember(F&& f) const
    {
        for (auto c = n().first; c != FastTree::kNone; c = m_tree->node(c).next)
            f(m_tree->node(c).key(), FastNode(m_tree, c));
    }

private:
    const FastTree::Node& n() const { return m_tree->node(m_index); }
    bool is(FastTree::Type t) const { return m_tree && n().type == t; }

    const FastTree* m_tree = nullptr;
    std::uint32_t m_index = 0;
};

// ---- the walk, over either adapter ----

// Values that are there but read as missing where a number belongs: text that is neither a
// number nor a spelling of "missing" (N/A, "-", ...), true/false, an object or a list. A file
// gets one warning with their count and the first one's key and record, so that a damaged file
// never turns into blanks without a word. An absent key and null are missing, and not counted.
struct UnreadableValues {
    std::string_view record; // the op or link being read
    std::uint64_t count = 0;
    std::string first;

    template <typename Node>
    void note(const Node& v, std::string_view key)
    {
        if (count++ > 0)
            return;
        first = "'" + std::string(key) + "' of '" + std::string(record) + "'";
        if (v.isString())
            first += ": \"" + std::string(v.text().substr(0, 40)) + "\"";
        else if (v.numKind() == NumKind::Unsigned)
            first += ": " + std::to_string(v.asUnsigned()) + ", out of range";
        else if (v.numKind() == NumKind::Signed)
            first += ": " + std::to_string(v.asSigned()) + ", out of range";
        else
            first += v.isObject() ? ": an object" : v.isArray() ? ": a list" : v.isNull() ? ": null" : ": true/false";
    }
    // Records whose key does not say where they belong (a link key that is not "<src>-<dst>",
    // a rank key that is not a number): skipped, and counted as the file's skipped records.
    std::uint64_t badKeys = 0;
    std::string firstBadKey;
    void noteBadKey(std::string_view what, std::string_view under)
    {
        if (badKeys++ == 0)
            firstBadKey = std::string(what) + " under '" + std::string(under) + "'";
    }

    // Keys looked for and missing, with a key one character off beside them (a damaged byte):
    // not read as them.
    std::uint64_t nearMisses = 0;
    std::string firstNearMiss;
    template <typename Node>
    void noteIfNearMiss(const Node& object, std::string_view key)
    {
        if (!object.isObject())
            return;
        bool found = false;
        object.forEachMember([&](std::string_view k, const Node&) {
            if (found || !oneEditApart(k, key))
                return;
            found = true;
            if (nearMisses++ == 0)
                firstNearMiss = "'" + std::string(k) + "' for '" + std::string(key) + "' of '" + std::string(record) + "'";
        });
    }

    void report(std::vector<Diagnostic>& out, const std::string& file) const
    {
        if (nearMisses > 0)
            out.push_back(Diagnostic{Severity::Warning, file, -1, -1,
                                     std::to_string(nearMisses)
                                         + " key(s) one character off a key looked for, not read as it (first: "
                                         + firstNearMiss + ")",
                                     nearMisses});
        if (badKeys > 0)
            out.push_back(Diagnostic{Severity::Warning, file, -1, -1,
                                     firstBadKey
                                         + (badKeys > 1 ? " (first of " + std::to_string(badKeys) + ")" : ""),
                                     badKeys});
        if (count > 0)
            out.push_back(Diagnostic{Severity::Warning, file, -1, -1,
                                     std::to_string(count) + " value(s) where a number belongs read as missing (first: "
                                         + first + ")",
                                     count});
    }
};

template <typename Node>
double num(const Node& o, std::string_view key, UnreadableValues& bad)
{
    const Node v = o.find(key);
    if (v.numKind() != NumKind::None)
        return v.asDouble();
    if (!v.exists())
        bad.noteIfNearMiss(o, key);
    if (!v.exists() || v.isNull())
        return kNaN;
    if (v.isString()) {
        if (const auto d = parseDouble(v.text()))
            return *d;
        if (isMissingText(v.text()))
            return kNaN;
    }
    bad.note(v, key);
    return kNaN;
}

double num(const json& o, std::string_view key, UnreadableValues& bad)
{
    return num(DomNode(&o), key, bad);
}

template <typename Node>
std::optional<TimeNs> microsText(const Node& o, std::string_view key, UnreadableValues& bad)
{
    const Node v = o.find(key);
    if (!v.exists())
        bad.noteIfNearMiss(o, key);
    if (v.isString()) {
        const auto t = parseMicrosToNs(v.text());
        if (!t && !isMissingText(v.text()))
            bad.note(v, key);
        return t;
    }
    if (v.exists() && !v.isNull() && v.numKind() == NumKind::None)
        bad.note(v, key);
    constexpr TimeNs kLimit = std::numeric_limits<TimeNs>::max() / 1000; // beyond ±292 years in ns: not a time
    switch (v.numKind()) {
    case NumKind::Unsigned: {
        const auto us = v.asUnsigned();
        if (us > static_cast<std::uint64_t>(kLimit)) {
            bad.note(v, key);
            return std::nullopt;
        }
        return static_cast<TimeNs>(us) * 1000;
    }
    case NumKind::Signed: {
        const auto us = v.asSigned();
        if (us > kLimit || us < -kLimit) {
            bad.note(v, key);
            return std::nullopt;
        }
        return us * 1000;
    }
    case NumKind::Float:
        return microsDoubleToNs(v.asDouble());
    case NumKind::None:
        break;
    }
    return std::nullopt;
}

// An op key "<op>@<group>" split at its first '@': (op, group); the group is empty without one.
std::pair<std::string_view, std::string_view> splitOpKey(std::string_view full)
{
    const auto at = full.find('@');
    return {full.substr(0, at), at == std::string_view::npos ? std::string_view() : full.substr(at + 1)};
}

template <typename Node>
bool isOpObject(const Node& v)
{
    return v.isObject() &&
           (v.find("Communication Time Info").exists() || v.find("Communication Bandwidth Info").exists());
}

template <typename Node>
CommOp makeOp(const Node& v, std::string_view fullName, StringPool& pool, UnreadableValues& bad)
{
    bad.record = fullName;
    CommOp op;
    op.fullName = fullName;
    op.totalInfo = fullName == "Total Op Info";
    const auto [opName, group] = splitOpKey(fullName);
    op.opName = opName;
    op.group = group;
    const Node ti = v.find("Communication Time Info");
    if (!ti.exists())
        bad.noteIfNearMiss(v, "Communication Time Info");
    op.start = microsText(ti, kStartKey, bad);
    op.elapseMs = num(ti, "Elapse Time(ms)", bad);
    op.transitMs = num(ti, "Transit Time(ms)", bad);
    op.waitMs = num(ti, "Wait Time(ms)", bad);
    op.syncMs = num(ti, "Synchronization Time(ms)", bad);
    op.idleMs = num(ti, "Idle Time(ms)", bad);
    op.waitRatio = num(ti, "Wait Time Ratio", bad);
    op.syncRatio = num(ti, "Synchronization Time Ratio", bad);
    const Node bi = v.find("Communication Bandwidth Info");
    if (!bi.exists())
        bad.noteIfNearMiss(v, "Communication Bandwidth Info");
    if (bi.isObject()) {
        bi.forEachMember([&](std::string_view transport, const Node& b) {
            CommBandwidth cb;
            cb.transport = pool.intern(transport);
            cb.sizeMB = num(b, "Transit Size(MB)", bad);
            cb.timeMs = num(b, "Transit Time(ms)", bad);
            cb.bandwidthGBps = num(b, "Bandwidth(GB/s)", bad);
            cb.largePacketRatio = num(b, "Large Packet Ratio", bad);
            // "Total Op Info" omits the bandwidth: MB/ms = GB/s; 0 when no time was spent.
            if (std::isnan(cb.bandwidthGBps) && !std::isnan(cb.sizeMB) && !std::isnan(cb.timeMs))
                cb.bandwidthGBps = cb.timeMs > 0 ? cb.sizeMB / cb.timeMs : 0.0;
            if (const Node sd = b.find("Size Distribution"); sd.isObject()) {
                sd.forEachMember([&](std::string_view size, const Node& pair) {
                    SizeBucket sb;
                    sb.sizeMB = size;
                    if (pair.isArray() && pair.size() >= 2 && pair.at(0).numKind() != NumKind::None &&
                        pair.at(1).numKind() != NumKind::None) {
                        sb.count = pair.at(0).asDouble();
                        sb.timeMs = pair.at(1).asDouble();
                    }
                    cb.sizes.push_back(std::move(sb));
                });
            }
            op.bandwidth.push_back(std::move(cb));
        });
    }
    return op;
}

// Visits every op object with the keys leading to it.
template <typename Node, typename F>
void walkOps(const Node& node, KeyPath& path, int depth, F&& visit)
{
    if (!node.isObject() || depth > kWalkDepth)
        return;
    node.forEachMember([&](std::string_view k, const Node& v) {
        path.push_back(k);
        if (isOpObject(v))
            visit(v, path);
        else
            walkOps(v, path, depth + 1, visit);
        path.pop_back();
    });
}

bool isLinkKey(std::string_view k, int& src, int& dst)
{
    const auto dash = k.find('-');
    if (dash == std::string_view::npos || dash == 0 || dash + 1 >= k.size())
        return false;
    auto r1 = std::from_chars(k.data(), k.data() + dash, src);
    auto r2 = std::from_chars(k.data() + dash + 1, k.data() + k.size(), dst);
    return r1.ec == std::errc() && r1.ptr == k.data() + dash && r2.ec == std::errc() &&
           r2.ptr == k.data() + k.size();
}

// A link object, keyed "<src>-<dst>". src and dst are -1 when an object with a link's fields
// has a key that is not two ranks (a damaged key): the readers skip and count it.
template <typename Node>
bool isLink(std::string_view k, const Node& v, int& src, int& dst)
{
    if (!v.isObject() || !(v.find("Transport Type").exists() || v.find("Transit Size(MB)").exists()))
        return false;
    if (!isLinkKey(k, src, dst))
        src = dst = -1;
    return true;
}

// Visits every "<src>-<dst>" link object with the keys above it (op name last).
template <typename Node, typename F>
void walkLinks(const Node& node, KeyPath& path, int depth, F&& visit)
{
    if (!node.isObject() || depth > kWalkDepth)
        return;
    node.forEachMember([&](std::string_view k, const Node& v) {
        int src = -1, dst = -1;
        if (isLink(k, v, src, dst)) {
            visit(v, path, src, dst);
            return;
        }
        path.push_back(k);
        walkLinks(v, path, depth + 1, visit);
        path.pop_back();
    });
}

bool isKindKey(std::string_view k)
{
    return k == "p2p" || k == "collective";
}

// Profile files: [step, kind, op], [kind, op], [step, op] or [op] (msprof analyze/).
void placeProfileOp(std::span<const std::string_view> levels, std::string& step, std::string& kind)
{
    for (const auto& l : levels) {
        if (isKindKey(l))
            kind = l;
        else if (step.empty())
            step = l;
    }
}

// A link's names from its op key, "<op>@<group>".
void nameLink(CommLink& l, std::string_view full, StringPool& pool)
{
    const auto [opName, group] = splitOpKey(full);
    l.fullName = pool.intern(full);
    l.opName = pool.intern(opName);
    l.group = pool.intern(group);
}

template <typename Node>
CommLink makeLink(const Node& v, int src, int dst, std::string_view record, StringPool& pool, UnreadableValues& bad)
{
    bad.record = record;
    CommLink l;
    l.src = src;
    l.dst = dst;
    const Node transport = v.find("Transport Type");
    l.transport = transport.isString() ? pool.intern(transport.text()) : NameId(0);
    if (!transport.exists())
        bad.noteIfNearMiss(v, "Transport Type");
    l.sizeMB = num(v, "Transit Size(MB)", bad);
    l.timeMs = num(v, "Transit Time(ms)", bad);
    l.bandwidthGBps = num(v, "Bandwidth(GB/s)", bad);
    return l;
}

std::function<void(Severity, std::int64_t, std::string)> profileReport(Profile& p, const ReadContext& ctx)
{
    return [&p, &ctx](Severity s, std::int64_t off, std::string reason) {
        p.report(s, ctx.file, -1, off, std::move(reason));
    };
}

std::function<void(Severity, std::int64_t, std::string)> vectorReport(std::vector<Diagnostic>& d,
                                                                      const ReadContext& ctx)
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

// As above, with the records skipped for their keys counted.
void finishRecord(FileRecord& rec, const UnreadableValues& bad)
{
    rec.skipped += bad.badKeys;
    if (bad.badKeys > 0 && rec.status == FileStatus::Loaded)
        rec.status = FileStatus::Partial;
    finishRecord(rec);
}

enum class Walk { Ops, Links };

// The walk of kind W over `root`, handing each record to `visit` (node, path, and for links src
// and dst).
template <Walk W, typename Node, typename Visit>
void walkRecords(const Node& root, Visit& visit)
{
    KeyPath path;
    if constexpr (W == Walk::Ops)
        walkOps(root, path, 0, visit);
    else
        walkLinks(root, path, 0, visit);
}

// The records of a walk of kind W, taken from `tree` while it is parsed, in the walk's order.
template <Walk W, typename Visit>
FastTree::Collapse collapseInto(const FastTree& tree, Visit& visit)
{
    if constexpr (W == Walk::Ops) {
        return {[&tree](std::uint32_t i) { return isOpObject(FastNode(&tree, i)); },
                [&tree, &visit](std::uint32_t i, const KeyPath& path) { visit(FastNode(&tree, i), path); }};
    } else {
        return {[&tree](std::uint32_t i) {
                    int src = -1, dst = -1;
                    return isLink(tree.node(i).key(), FastNode(&tree, i), src, dst);
                },
                [&tree, &visit, above = KeyPath()](std::uint32_t i, const KeyPath& path) mutable {
                    int src = -1, dst = -1;
                    isLinkKey(tree.node(i).key(), src, dst);
                    above.assign(path.begin(), path.end() - 1); // a link's own key is not in its path
                    visit(FastNode(&tree, i), above, src, dst);
                }};
    }
}

// Reads the records of a communication file (a walk of kind W) into `out` through `visit`, which
// may intern names in `pool`, note values in `bad` and count rec.records. simdjson first, each
// record taken as soon as it is parsed; when simdjson rejects the file (t_commJsonParser
// permitting), what it took is undone and the nlohmann DOM reads what it can.
template <Walk W, typename T, typename Visit>
void readCommRecords(std::string_view bytes, FileRecord& rec, const ReadContext& ctx,
                     const std::function<void(Severity, std::int64_t, std::string)>& report, std::vector<T>& out,
                     StringPool& pool, UnreadableValues& bad, Visit&& visit)
{
    if (t_commJsonParser != CommJsonParser::DomOnly) {
        const std::size_t outMark = out.size(), poolMark = pool.size();
        const std::uint64_t recordsMark = rec.records;
        const UnreadableValues badMark = bad;
        // Room for the records at the generated and real files' density (ops ~1 KB, links ~120
        // bytes of JSON), so that the sink rarely grows; pages not written cost nothing.
        out.reserve(out.size() + bytes.size() / (W == Walk::Ops ? 512 : 64));
        bool parsed = false, nested = false;
        {
            FastTree tree;
            const FastTree::Collapse collapse = collapseInto<W>(tree, visit);
            parsed = tree.parse(bytes, ctx.readableAfterEnd, ctx.cancel, &collapse);
            nested = tree.nestedRecords();
        }
        if (!parsed) {
            out.erase(out.begin() + static_cast<std::ptrdiff_t>(outMark), out.end());
            pool.truncate(poolMark);
            bad = badMark;
            rec.records = recordsMark;
        }
        if (nested && !ctx.cancelled()) { // records within records: the whole tree, then the walk
            FastTree tree;
            if (tree.parse(bytes, ctx.readableAfterEnd, ctx.cancel)) {
                rec.path = ctx.file;
                rec.bytes = bytes.size();
                walkRecords<W>(FastNode(&tree, 0), visit);
                return;
            }
        }
        if (ctx.cancelled()) { // the load is being thrown away: no fallback, no records
            rec.path = ctx.file;
            rec.bytes = bytes.size();
            rec.status = FileStatus::Partial;
            rec.note = "cancelled";
            return;
        }
        if (parsed) {
            rec.path = ctx.file;
            rec.bytes = bytes.size();
            return;
        }
        if (t_commJsonParser == CommJsonParser::FastOnly) {
            rec.path = ctx.file;
            rec.bytes = bytes.size();
            rec.status = FileStatus::Failed;
            rec.note = "not taken by simdjson";
            return;
        }
    }
    json root;
    if (parseJson(bytes, root, rec, ctx, report)) {
        const DomNode node(&root);
        std::size_t n = 0;
        auto count = [&n](const auto&...) { ++n; };
        walkRecords<W>(node, count);
        out.reserve(out.size() + n);
        walkRecords<W>(node, visit);
    }
}

} // namespace

void setCommJsonParser(CommJsonParser parser)
{
    t_commJsonParser = parser;
}

FileRecord readCommunicationJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    rec.kind = "communication";
    UnreadableValues bad;
    readCommRecords<Walk::Ops>(bytes, rec, ctx, profileReport(sink, ctx), sink.commOps, sink.strings, bad,
                               [&](const auto& v, const KeyPath& p) {
                                   if (ctx.cancelled()) // the load is being thrown away: no more records
                                       return;
                                   CommOp op = makeOp(v, p.back(), sink.strings, bad);
                                   placeProfileOp(std::span(p).first(p.size() - 1), op.step, op.kind);
                                   sink.commOps.push_back(std::move(op));
                                   ++rec.records;
                               });
    bad.report(sink.diagnostics, ctx.file);
    finishRecord(rec, bad);
    return rec;
}

FileRecord readCommunicationMatrixJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    rec.kind = "communication_matrix";
    UnreadableValues bad;
    readCommRecords<Walk::Links>(
        bytes, rec, ctx, profileReport(sink, ctx), sink.commLinks, sink.strings, bad,
        [&](const auto& v, const KeyPath& p, int src, int dst) {
            if (ctx.cancelled())
                return;
            if (src < 0 || dst < 0)
                return bad.noteBadKey("a link key that is not '<src>-<dst>'", p.empty() ? "" : p.back());
            CommLink l = makeLink(v, src, dst, p.empty() ? std::string_view() : p.back(), sink.strings, bad);
            if (!p.empty()) {
                nameLink(l, p.back(), sink.strings);
                std::string step, kind;
                placeProfileOp(std::span(p).first(p.size() - 1), step, kind);
                l.step = sink.strings.intern(step);
                l.kind = sink.strings.intern(kind);
            }
            sink.commLinks.push_back(l);
            ++rec.records;
        });
    bad.report(sink.diagnostics, ctx.file);
    finishRecord(rec, bad);
    return rec;
}

FileRecord readClusterCommunicationJson(std::string_view bytes, ClusterData& sink, std::vector<Diagnostic>& diags,
                                        const ReadContext& ctx)
{
    FileRecord rec;
    rec.kind = "cluster_communication";
    UnreadableValues bad;
    // {"<group>": {"<step>": {"<op>": {"<rank>": OP}}}}
    readCommRecords<Walk::Ops>(bytes, rec, ctx, vectorReport(diags, ctx), sink.comm, sink.strings, bad,
                               [&](const auto& v, const KeyPath& p) {
                                   if (p.size() < 2)
                                       return;
                                   const int rank = rankOf(parseInt64(p.back()).value_or(-1));
                                   if (rank < 0)
                                       return bad.noteBadKey("a rank key '" + std::string(p.back()) + "'",
                                                             p[p.size() - 2]);
                                   CommOp op = makeOp(v, p[p.size() - 2], sink.strings, bad);
                                   op.rank = rank;
                                   if (p.size() >= 4) {
                                       op.kind = p[p.size() - 4];
                                       op.step = p[p.size() - 3];
                                   } else if (p.size() == 3) {
                                       op.kind = p[0];
                                   }
                                   sink.comm.push_back(std::move(op));
                                   ++rec.records;
                               });
    bad.report(diags, ctx.file);
    finishRecord(rec, bad);
    return rec;
}

FileRecord readClusterCommunicationMatrixJson(std::string_view bytes, ClusterData& sink,
                                              std::vector<Diagnostic>& diags, const ReadContext& ctx)
{
    FileRecord rec;
    rec.kind = "cluster_communication_matrix";
    UnreadableValues bad;
    // {"<group>": {"<step>": {"<op>": {"<src>-<dst>": link}}}}
    readCommRecords<Walk::Links>(
        bytes, rec, ctx, vectorReport(diags, ctx), sink.links, sink.strings, bad,
        [&](const auto& v, const KeyPath& p, int src, int dst) {
            if (src < 0 || dst < 0)
                return bad.noteBadKey("a link key that is not '<src>-<dst>'", p.empty() ? "" : p.back());
            CommLink l = makeLink(v, src, dst, p.empty() ? std::string_view() : p.back(), sink.strings, bad);
            if (!p.empty())
                nameLink(l, p.back(), sink.strings);
            if (p.size() >= 3) {
                l.kind = sink.strings.intern(p[p.size() - 3]);
                l.step = sink.strings.intern(p[p.size() - 2]);
            }
            sink.links.push_back(l);
            ++rec.records;
        });
    bad.report(diags, ctx.file);
    finishRecord(rec, bad);
    return rec;
}

FileRecord readInfoJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    rec.kind = "info";
    json root;
    if (!parseJson(bytes, root, rec, ctx, profileReport(sink, ctx)))
        return rec;
    auto devices = root.is_object() ? root.find("DeviceInfo") : root.end();
    if (!root.is_object() || devices == root.end() || !devices->is_array()) {
        rec.status = FileStatus::Failed;
        rec.note = "no DeviceInfo array";
        sink.report(Severity::Error, ctx.file, -1, -1, "missing 'DeviceInfo' in " + ctx.file);
        return rec;
    }
    UnreadableValues bad;
    for (const auto& d : *devices) {
        if (!d.is_object())
            continue;
        DeviceInfo info;
        info.device = ctx.device;
        if (auto id = d.find("id"); id != d.end()) {
            if (id->is_number_integer())
                info.device = deviceIdOf(id->get<std::int64_t>());
            else if (id->is_string())
                info.device = deviceIdOf(parseInt64(id->get_ref<const std::string&>()).value_or(ctx.device));
        }
        // Core counts: -1 when absent or not a plausible count (NaN, negative, 1e300).
        auto count = [](double v) { return v >= 0 && v < 1e6 ? static_cast<int>(v) : -1; };
        bad.record = "DeviceInfo";
        info.aiCoreNum = count(num(d, "ai_core_num", bad));
        info.aivNum = count(num(d, "aiv_num", bad));
        info.aicFrequencyMHz = num(d, "aic_frequency", bad);
        // Not written by msprof: the HBM peak of a generated profile (npuscope synth), which the
        // SQLite export of the same profile would otherwise replace by its chip's default.
        if (d.contains("hbm_peak_gbps"))
            if (const double peak = num(d, "hbm_peak_gbps", bad); peak > 0)
                info.hbmPeakGBps = peak;
        for (const char* k : {"chip_name", "chip", "soc_version", "platform_name"}) {
            if (auto c = d.find(k); c != d.end() && c->is_string() && !c->get_ref<const std::string&>().empty()) {
                info.chip = c->get<std::string>();
                break;
            }
            if (auto c = root.find(k); c != root.end() && c->is_string() && !c->get_ref<const std::string&>().empty()) {
                info.chip = c->get<std::string>();
                break;
            }
        }
        sink.deviceInfo.push_back(std::move(info));
        ++rec.records;
    }
    bad.report(sink.diagnostics, ctx.file);
    finishRecord(rec, bad);
    return rec;
}

namespace {

// The member `key` of `object`, or null; when it is missing, a key one character off it is
// noted in `bad` (a damaged byte: not read as it).
const json* memberOrNearMiss(const json& object, std::string_view key, UnreadableValues& bad)
{
    if (!object.is_object())
        return nullptr;
    if (const auto it = object.find(key); it != object.end())
        return &*it;
    bad.noteIfNearMiss(DomNode(&object), key);
    return nullptr;
}

// The rank a JSON value holds (a whole number from 0 to INT_MAX), or -1 for anything else. A
// number past 2^63 is unsigned to the parser and is no rank (read as int64 it would wrap).
int rankValue(const json& v)
{
    if (v.is_number_unsigned())
        return v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<int>::max())
                   ? static_cast<int>(v.get<std::uint64_t>())
                   : -1;
    return v.is_number_integer() ? rankOf(v.get<std::int64_t>()) : -1;
}

} // namespace

FileRecord readProfilerInfoJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    rec.kind = "profiler_info";
    json root;
    if (!parseJson(bytes, root, rec, ctx, profileReport(sink, ctx)))
        return rec;
    if (!root.is_object()) {
        rec.status = FileStatus::Failed;
        rec.note = "not a JSON object";
        return rec;
    }
    // A damaged byte in a key or in the rank is said: the rank then comes from the file's name
    // (profiler_info_<N>.json), and a level or export type read as missing changes what the
    // advisor can check.
    UnreadableValues bad;
    bad.record = "profiler_info";
    if (const json* rank = memberOrNearMiss(root, "rank_id", bad)) {
        const bool single = rank->is_number_integer() && !rank->is_number_unsigned() && rank->get<std::int64_t>() == -1;
        if (const int value = rankValue(*rank); value >= 0 || single)
            sink.rank = value; // single-device runs write -1
        else
            bad.note(DomNode(rank), "rank_id");
    }
    const json* exp = nullptr;
    if (const json* c = memberOrNearMiss(root, "config", bad); c && c->is_object())
        if (const json* e = memberOrNearMiss(*c, "experimental_config", bad); e && e->is_object())
            exp = e;
    if (exp) {
        if (const json* l = memberOrNearMiss(*exp, "_profiler_level", bad))
            sink.meta.profilerLevel = textOf(*l);
        if (const json* t = memberOrNearMiss(*exp, "_export_type", bad)) {
            // Newer versions write a list (["text"]).
            sink.meta.exportType = t->is_array() && !t->empty() ? textOf(t->front()) : textOf(*t);
        }
    }
    for (const auto& [k, v] : root.items()) {
        if (k.find("cann") != std::string::npos && k.find("version") != std::string::npos)
            sink.meta.cannVersion = textOf(v);
        else if (k.find("torch_npu") != std::string::npos && k.find("version") != std::string::npos)
            sink.meta.torchNpuVersion = textOf(v);
    }
    sink.meta.profilerInfo = nlohmann::json(root);
    rec.records = 1;
    bad.report(sink.diagnostics, ctx.file);
    return rec;
}

FileRecord readProfilerMetadataJson(std::string_view bytes, Profile& sink, const ReadContext& ctx)
{
    FileRecord rec;
    rec.kind = "profiler_metadata";
    json root;
    if (!parseJson(bytes, root, rec, ctx, profileReport(sink, ctx)))
        return rec;
    if (!root.is_object()) {
        rec.status = FileStatus::Failed;
        rec.note = "not a JSON object";
        return rec;
    }
    // Every member is optional (level-0 files hold ENV_VARIABLES alone); a key one character off
    // one of them, or a rank that is not one, is said.
    UnreadableValues bad;
    bad.record = "profiler_metadata";
    if (const json* env = memberOrNearMiss(root, "ENV_VARIABLES", bad); env && env->is_object())
        for (const auto& [k, v] : env->items())
            sink.meta.env[k] = textOf(v);
    if (const json* g = memberOrNearMiss(root, "parallel_group_info", bad); g && g->is_object()) {
        for (const auto& [k, v] : g->items()) {
            ParallelGroup pg;
            pg.name = k;
            bad.record = k;
            if (v.is_object()) {
                if (const json* n = memberOrNearMiss(v, "group_name", bad))
                    pg.groupName = textOf(*n);
                if (const json* r = memberOrNearMiss(v, "global_ranks", bad); r && r->is_array())
                    for (const auto& x : *r) {
                        if (const int rank = rankValue(x); rank >= 0)
                            pg.ranks.push_back(rank);
                        else
                            bad.note(DomNode(&x), "global_ranks");
                    }
            }
            sink.meta.groups.push_back(std::move(pg));
        }
        bad.record = "profiler_metadata";
    }
    if (const json* d = memberOrNearMiss(root, "distributed_args", bad); d && d->is_object()) {
        bad.record = "distributed_args";
        if (const json* r = memberOrNearMiss(*d, "rank", bad)) {
            const int rank = rankValue(*r);
            if (rank < 0)
                bad.note(DomNode(r), "rank");
            else if (sink.rank < 0)
                sink.rank = rank;
        }
    }
    sink.meta.profilerMetadata = nlohmann::json(root);
    rec.records = 1;
    bad.report(sink.diagnostics, ctx.file);
    return rec;
}

} // namespace npuscope::readers
