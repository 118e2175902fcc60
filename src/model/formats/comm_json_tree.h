#pragma once
// A communication file as a compact tree, parsed by simdjson On-Demand (side_json.cpp reads with
// it first), and its node adapter FastNode, with DomNode's interface (side_json_dom.h).
#include "model/formats/side_json_dom.h"
#include "model/store/cancellable_rows.h"

#include <simdjson.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

namespace npuscope::readers::sidejson {

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

} // namespace npuscope::readers::sidejson
