#include "model/store/string_pool.h"

namespace npuscope {

StringPool::StringPool()
{
    intern(std::string_view());
}

NameId StringPool::intern(std::string_view s)
{
    if (auto it = m_index.find(s); it != m_index.end())
        return NameId(it->second);
    const std::string& stored = m_storage.emplace_back(s);
    const auto id = static_cast<std::uint32_t>(m_views.size());
    m_views.emplace_back(stored);
    m_index.emplace(m_views.back(), id);
    m_bytes += stored.size() + sizeof(std::string) + sizeof(std::string_view) + 32;
    return NameId(id);
}

NameId StringPool::find(std::string_view s) const
{
    if (auto it = m_index.find(s); it != m_index.end())
        return NameId(it->second);
    return NameId();
}

std::string_view StringPool::view(NameId id) const
{
    return id.v < m_views.size() ? m_views[id.v] : std::string_view();
}

} // namespace npuscope
