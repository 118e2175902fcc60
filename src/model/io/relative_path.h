#pragma once
// Paths as the user knows them: relative to what they opened (a folder, or a file's folder),
// as `npuscope info` prints them and the window's Problems and Files docks show them. A path
// outside it stays whole.
#include <filesystem>
#include <string>
#include <system_error>

namespace npuscope {

class Relativizer {
public:
    explicit Relativizer(const std::string& root)
    {
        std::error_code ec;
        std::filesystem::path base(root);
        if (std::filesystem::is_regular_file(base, ec))
            base = base.parent_path();
        m_base = base.lexically_normal();
    }
    std::string operator()(const std::string& path) const
    {
        if (path.empty() || m_base.empty())
            return path;
        const std::filesystem::path rel = std::filesystem::path(path).lexically_normal().lexically_relative(m_base);
        const std::string s = rel.generic_string();
        if (s.empty() || s == "." || s.rfind("..", 0) == 0)
            return path;
        return s;
    }

private:
    std::filesystem::path m_base;
};

} // namespace npuscope
