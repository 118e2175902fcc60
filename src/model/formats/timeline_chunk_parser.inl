// The simdjson On-Demand half of the timeline reader. Included by timeline_chunk_parser.cpp
// (portable kernel) and timeline_chunk_parser_avx2.cpp (compiled for AVX2), each inside its own
// namespace, with `od` naming simdjson::ondemand of that translation unit's kernel.
// Not a header: no include guard on purpose.



// A string value: a view of the chunk's bytes when the string holds no escape (nothing to
// unescape), else simdjson's unescaped copy. INCORRECT_TYPE when the value is not a string.
simdjson::error_code getText(od::value v, std::string_view& out)
{
    const std::string_view tok = trimToken(v.raw_json_token());
    if (tok.size() >= 2 && tok.front() == '"' && tok.back() == '"'
        && std::memchr(tok.data() + 1, '\\', tok.size() - 2) == nullptr) {
        out = tok.substr(1, tok.size() - 2);
        return simdjson::SUCCESS;
    }
    return v.get_string().get(out);
}

// The token of a value that is no string, object or array: NUMBER_ERROR unless it is a JSON number
// or literal.
simdjson::error_code bareToken(od::value v, std::string_view& out)
{
    out = trimToken(v.raw_json_token());
    return isBareScalar(out) ? simdjson::SUCCESS : simdjson::NUMBER_ERROR;
}

// A scalar's text without a string's quotes (ts, dur): NUMBER_ERROR for a bare token that is no
// JSON number or literal.
simdjson::error_code scalarText(od::value v, std::string_view& out)
{
    const std::string_view tok = trimToken(v.raw_json_token());
    out = unquote(tok);
    return out.data() != tok.data() || isBareScalar(tok) ? simdjson::SUCCESS : simdjson::NUMBER_ERROR;
}

// pid/tid: a string (unescaped) or the token of another value, read by readTraceId.
simdjson::error_code readId(od::value v, std::int64_t& num, std::string_view& text)
{
    od::json_type type;
    if (auto e = v.type().get(type))
        return e;
    std::string_view s;
    if (type == od::json_type::string) {
        if (auto e = v.get_string().get(s))
            return e;
    } else if (auto e = bareToken(v, s)) {
        return e;
    }
    readTraceId(type == od::json_type::string, s, num, text);
    return simdjson::SUCCESS;
}

simdjson::error_code readArgs(od::value v, TraceEvent& ev, std::vector<TraceArg>& out)
{
    od::object obj;
    if (auto e = v.get_object().get(obj))
        return e;
    // A repeated "args" member replaces the earlier one, as a JSON object reader would.
    out.resize(out.size() - ev.argc);
    ev.argBegin = static_cast<std::uint32_t>(out.size());
    ev.argc = 0;
    for (auto fr : obj) {
        od::field f;
        if (auto e = std::move(fr).get(f))
            return e;
        // Filled in place; after an error the caller drops the event's arguments.
        TraceArg& a = out.emplace_back();
        if (auto e = f.unescaped_key().get(a.key))
            return e;
        od::value val = f.value();
        od::json_type type;
        if (auto e = val.type().get(type))
            return e;
        switch (type) {
        case od::json_type::string:
            a.kind = TraceArg::Kind::String;
            if (auto e = getText(val, a.value))
                return e;
            break;
        case od::json_type::number:
            a.kind = TraceArg::Kind::Number;
            if (auto e = bareToken(val, a.value))
                return e;
            break;
        case od::json_type::object: {
            a.kind = TraceArg::Kind::Object;
            od::object o;
            if (auto e = val.get_object().get(o))
                return e;
            if (auto e = o.raw_json().get(a.value))
                return e;
            a.value = trimToken(a.value);
            break;
        }
        case od::json_type::array: {
            a.kind = TraceArg::Kind::Array;
            od::array arr;
            if (auto e = val.get_array().get(arr))
                return e;
            if (auto e = arr.raw_json().get(a.value))
                return e;
            a.value = trimToken(a.value);
            break;
        }
        default:
            a.kind = TraceArg::Kind::Literal;
            if (auto e = bareToken(val, a.value))
                return e;
            break;
        }
        ++ev.argc;
    }
    return simdjson::SUCCESS;
}

bool readBool(od::value v)
{
    bool b = false;
    if (!v.get_bool().get(b))
        return b;
    return false;
}

enum class Key { Other, Ph, Ts, Dur, Name, Cat, Pid, Tid, Args, Id, Bp, BindId, FlowIn, FlowOut };

// The event member a key names, told apart by its first letter first.
Key keyOf(od::raw_json_string key)
{
    switch (key.raw()[0]) {
    case 'p': return key.unsafe_is_equal("ph") ? Key::Ph : key.unsafe_is_equal("pid") ? Key::Pid : Key::Other;
    case 't': return key.unsafe_is_equal("ts") ? Key::Ts : key.unsafe_is_equal("tid") ? Key::Tid : Key::Other;
    case 'd': return key.unsafe_is_equal("dur") ? Key::Dur : Key::Other;
    case 'n': return key.unsafe_is_equal("name") ? Key::Name : Key::Other;
    case 'c': return key.unsafe_is_equal("cat") ? Key::Cat : Key::Other;
    case 'a': return key.unsafe_is_equal("args") ? Key::Args : Key::Other;
    case 'i': return key.unsafe_is_equal("id") ? Key::Id : Key::Other;
    case 'b': return key.unsafe_is_equal("bp") ? Key::Bp : key.unsafe_is_equal("bind_id") ? Key::BindId : Key::Other;
    case 'f':
        return key.unsafe_is_equal("flow_in") ? Key::FlowIn : key.unsafe_is_equal("flow_out") ? Key::FlowOut : Key::Other;
    default: return Key::Other;
    }
}

// Reads one event object into `ev` (views into the parser's buffers, valid until the next parse).
simdjson::error_code readEvent(od::object obj, TraceEvent& ev, std::vector<TraceArg>& args)
{
    for (auto fr : obj) {
        od::field f;
        if (auto e = std::move(fr).get(f))
            return e;
        ++ev.fields;
        const Key key = keyOf(f.key());
        od::value v = f.value();
        simdjson::error_code e = simdjson::SUCCESS;
        std::string_view s;
        if (key == Key::Ph) {
            e = getText(v, s);
            ev.ph = s.empty() ? '?' : s[0];
        } else if (key == Key::Ts) {
            ev.hasTs = true;
            e = scalarText(v, s);
            ev.tsNs = parseMicrosToNs(s); // on the parsing thread, not in the builder
        } else if (key == Key::Dur) {
            ev.hasDur = true;
            e = scalarText(v, s);
            ev.durNs = parseMicrosToNs(s);
        } else if (key == Key::Name) {
            e = getText(v, ev.name);
            if (e == simdjson::INCORRECT_TYPE) // a number as a name: keep its text
                e = bareToken(v, ev.name);
        } else if (key == Key::Cat) {
            e = getText(v, ev.cat);
            if (e == simdjson::INCORRECT_TYPE)
                e = bareToken(v, ev.cat);
        } else if (key == Key::Pid) {
            e = readId(v, ev.pid, ev.pidText);
            ev.hasPid = true;
        } else if (key == Key::Tid) {
            e = readId(v, ev.tid, ev.tidText);
            ev.hasTid = true;
        } else if (key == Key::Args) {
            od::json_type type;
            e = v.type().get(type);
            if (!e && type == od::json_type::object)
                e = readArgs(v, ev, args);
        } else if (key == Key::Id) {
            // Kept exactly as written: ids > 2^53 and 64-bit hex strings must not go through a double.
            const std::string_view tok = trimToken(v.raw_json_token());
            ev.idIsString = !tok.empty() && tok.front() == '"';
            if (ev.idIsString)
                e = v.get_string().get(ev.id);
            else
                e = bareToken(v, ev.id);
            ev.hasId = true;
        } else if (key == Key::Bp) {
            e = v.get_string().get(ev.bp);
        } else if (key == Key::BindId) {
            const std::string_view tok = trimToken(v.raw_json_token());
            if (!tok.empty() && tok.front() == '"')
                e = v.get_string().get(ev.bindId);
            else
                e = bareToken(v, ev.bindId);
        } else if (key == Key::FlowIn) {
            ev.flowIn = readBool(v) ? 1 : 0;
        } else if (key == Key::FlowOut) {
            ev.flowOut = readBool(v) ? 1 : 0;
        }
        if (e)
            return e;
    }
    return simdjson::SUCCESS;
}

class ChunkParser final : public EventChunkParser {
public:
    ChunkParser(std::string_view bytes, const ChunkParserOptions& options)
        : m_bytes(bytes), m_plainEvents(options.plainEvents), m_copyBytes(options.copyBytes)
    {
    }

    bool parse(const std::vector<ElementSpan>& spans, EventBatch& out) override
    {
        out.clear();
        if (spans.empty())
            return false;
        // A chunk that was not all plain events is likely followed by more such chunks: then the
        // plain reading is tried again only every 16th chunk, not to be thrown away each time.
        if (m_plainEvents && (m_lastPlain || ++m_sinceTried % 16 == 0)) {
            m_lastPlain = parsePlain(spans, out);
            if (m_lastPlain)
                return true;
        }
        out.clear();
        const std::uint64_t begin = spans.front().begin;
        const std::uint64_t end = spans.back().end;
        const std::size_t len = end - begin + 2; // '[' + events + ']'
        char* const buf = paddedBuffer(len);
        buf[0] = '[';
        std::memcpy(buf + 1, m_bytes.data() + begin, end - begin);
        buf[len - 1] = ']';
        m_begin = begin;

        out.events.reserve(spans.size());
        if (!parseArray(spans, len, out)) {
            // Unescaped strings of the events kept so far live in the parser's buffer, which the
            // per-event documents below reuse: parse the whole chunk again, one event at a time.
            out.clear();
            parseEach(spans, out);
        }
        out.bindArgs();
        return false;
    }

    bool parseRange(std::uint64_t begin, std::uint64_t end, EventBatch& out) override
    {
        out.clear();
        const std::size_t len = end - begin;
        const char* first = m_bytes.data() + begin; // the chunk's bytes: in the file's mapping or in a copy
        if (m_copyBytes) {
            char* const buf = paddedBuffer(len);
            (*m_copyBytes)(begin, buf, len);
            first = buf;
        }
        const std::string_view range(first, len);
        for (std::size_t at = skipSeparators(range, 0); at != len; at = skipSeparators(range, at)) {
            const char* const p = first + at;
            __builtin_prefetch(p + 1024); // read in place, the file's bytes come from memory
            TraceEvent& ev = out.events.emplace_back();
            ev.offset = begin + at;
            const char* const next = readPlainEventAt(p, first + len, ev, out.args);
            if (!next) {
                out.clear();
                return false;
            }
            at = static_cast<std::size_t>(next - first);
        }
        out.bindArgs();
        return true;
    }

private:
    // m_buf with room for `len` bytes, followed by simdjson's padding of blanks.
    char* paddedBuffer(std::size_t len)
    {
        if (m_buf.size() < len + simdjson::SIMDJSON_PADDING)
            m_buf.resize(len + len / 8 + simdjson::SIMDJSON_PADDING);
        std::memset(m_buf.data() + len, ' ', simdjson::SIMDJSON_PADDING);
        return m_buf.data();
    }

    // Every event of the chunk read from the file's bytes (readPlainEvent), when all of them are
    // of the plain form; false at the first that is not, and the chunk goes to simdjson.
    bool parsePlain(const std::vector<ElementSpan>& spans, EventBatch& out)
    {
        out.events.reserve(spans.size());
        const char* const bytes = m_bytes.data();
        for (const ElementSpan& sp : spans) {
            TraceEvent& ev = out.events.emplace_back();
            ev.offset = sp.begin;
            if (!readPlainEvent(bytes + sp.begin, bytes + sp.end, ev, out.args))
                return false;
        }
        out.bindArgs();
        return true;
    }

    // The chunk as one array document. False at the first problem.
    bool parseArray(const std::vector<ElementSpan>& spans, std::size_t len, EventBatch& out)
    {
        od::document doc;
        if (m_parser.iterate(m_buf.data(), len, m_buf.size()).get(doc))
            return false;
        od::array arr;
        if (doc.get_array().get(arr))
            return false;
        std::size_t done = 0;
        for (auto er : arr) {
            if (done >= spans.size())
                return false;
            od::value v;
            od::object obj;
            if (std::move(er).get(v) || v.get_object().get(obj))
                return false;
            TraceEvent& ev = out.events.emplace_back();
            ev.offset = spans[done].begin;
            if (readEvent(obj, ev, out.args))
                return false;
            ++done;
        }
        return done == spans.size();
    }

    // Slow path: one document per event, each with its own copy of the unescaped strings; a bad
    // event is skipped and reported.
    void parseEach(const std::vector<ElementSpan>& spans, EventBatch& out)
    {
        m_strings.clear();
        for (std::size_t k = 0; k < spans.size(); ++k) {
            const auto& sp = spans[k];
            const char* p = m_buf.data() + 1 + (sp.begin - m_begin);
            const std::size_t n = sp.end - sp.begin;
            const std::size_t cap = m_buf.size() - static_cast<std::size_t>(p - m_buf.data());
            od::document doc;
            od::object obj;
            simdjson::error_code e = m_parser.iterate(p, n, cap).get(doc);
            if (!e)
                e = doc.get_object().get(obj);
            TraceEvent ev;
            ev.offset = sp.begin;
            const std::size_t argMark = out.args.size();
            if (!e)
                e = readEvent(obj, ev, out.args);
            if (e) {
                out.args.resize(argMark);
                const bool isObject = m_bytes[sp.begin] == '{';
                out.skips.push_back({out.events.size(), sp.begin,
                                     isObject ? std::string("malformed event skipped (") + simdjson::error_message(e) + ")"
                                              : std::string("array element that is not an event object skipped")});
                continue;
            }
            keepStrings(ev, out.args, argMark);
            out.events.push_back(ev);
        }
    }

    // The next iterate() overwrites the parser's string buffer: copy the event's views that may
    // point there into storage that lives as long as this parser's batch.
    void keepStrings(TraceEvent& ev, std::vector<TraceArg>& args, std::size_t argBegin)
    {
        auto keep = [this](std::string_view& s) {
            if (s.empty() || (s.data() >= m_buf.data() && s.data() < m_buf.data() + m_buf.size()))
                return; // a view into the chunk copy: stable
            s = m_strings.emplace_back(s);
        };
        for (std::string_view* s : {&ev.name, &ev.cat, &ev.id, &ev.bp, &ev.bindId, &ev.pidText,
                                    &ev.tidText})
            keep(*s);
        for (std::size_t i = argBegin; i < args.size(); ++i) {
            keep(args[i].key);
            keep(args[i].value);
        }
    }

    std::string_view m_bytes;
    bool m_plainEvents = true;
    bool m_lastPlain = true;        // the last chunk tried was all plain events
    const std::function<void(std::uint64_t, char*, std::size_t)>* m_copyBytes = nullptr;
    std::uint32_t m_sinceTried = 0; // chunks read with simdjson since
    od::parser m_parser;
    std::vector<char> m_buf; // reused: first-touch page faults cost more than parsing
    std::uint64_t m_begin = 0;
    std::deque<std::string> m_strings; // slow path: strings copied out of the parser's buffer
};
