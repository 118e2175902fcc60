#include "model/analysis/atomic_file.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace npuscope {

bool writeFileAtomically(const std::string& path, const std::function<bool(std::FILE*)>& write, std::string* error)
{
    auto fail = [&](const std::string& why) {
        if (error)
            *error = path + ": " + why;
        return false;
    };
    const auto slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (base.empty())
        return fail("not a file name");
    std::string tmpl = dir + "/." + base + ".tmp-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    const int fd = ::mkstemp(buf.data());
    if (fd < 0)
        return fail(std::string("cannot create a file in ") + dir + ": " + std::strerror(errno));
    const std::string tmp(buf.data());
    // mkstemp creates 0600; give the result the usual permissions (umask applies).
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, 0666 & ~mask);
    std::FILE* f = ::fdopen(fd, "wb");
    if (!f) {
        ::close(fd);
        ::unlink(tmp.c_str());
        return fail(std::strerror(errno));
    }
    bool ok = write(f);
    ok = std::fflush(f) == 0 && ok;
    const int flushErr = errno;
    ok = ok && ::fsync(::fileno(f)) == 0;
    ok = std::fclose(f) == 0 && ok;
    if (!ok) {
        ::unlink(tmp.c_str());
        return fail(std::string("write failed: ") + std::strerror(flushErr));
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int e = errno;
        ::unlink(tmp.c_str());
        return fail(std::string("cannot replace the file: ") + std::strerror(e));
    }
    return true;
}

bool writeFileAtomically(const std::string& path, const std::string& contents, std::string* error)
{
    return writeFileAtomically(
        path, [&](std::FILE* f) { return std::fwrite(contents.data(), 1, contents.size(), f) == contents.size(); },
        error);
}

} // namespace npuscope
