#pragma once
// A whole file as bytes ("" when it cannot be read), for tests that compare what a reader or
// writer did with the file itself.
#include <QString>

#include <fstream>
#include <sstream>
#include <string>

inline std::string fileBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Writes `bytes` as the whole of `path`; false when it cannot.
inline bool writeBytes(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
    return static_cast<bool>(out.flush());
}

inline std::string fileBytes(const QString& path)
{
    return fileBytes(path.toStdString());
}
