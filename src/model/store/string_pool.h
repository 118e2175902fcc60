#pragma once
// Every string (operator name, type, stream name, shape text) is stored once; tables hold NameIds.
#include "model/store/ids.h"

#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace npuscope {

class StringPool {
public:
    StringPool();
    // Id 0 is always the empty string.
    NameId intern(std::string_view s);
    // Returns an invalid id when s was never interned.
    NameId find(std::string_view s) const;
    std::string_view view(NameId id) const;
    std::string str(NameId id) const { return std::string(view(id)); }
    std::size_t size() const { return m_views.size(); }
    std::size_t bytes() const { return m_bytes; }

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
    };
    std::deque<std::string> m_storage; // stable addresses for the views
    std::vector<std::string_view> m_views;
    std::unordered_map<std::string_view, std::uint32_t, Hash, std::equal_to<>> m_index;
    std::size_t m_bytes = 0;
};

} // namespace npuscope
