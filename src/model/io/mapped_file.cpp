#include "model/io/mapped_file.h"

#include <boost/interprocess/exceptions.hpp>
#include <boost/interprocess/file_mapping.hpp>
#include <boost/interprocess/mapped_region.hpp>

#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

namespace npuscope {

namespace bip = boost::interprocess;

// Files up to this size are read into memory instead of mapped: a mapped file that another
// process truncates while it is scanned raises SIGBUS, a read one just ends early. Side files and
// small traces are below it; the copy costs at most 8 MiB per file being read.
constexpr off_t kReadLimit = 8 << 20;

struct MappedFile::Impl {
    bip::file_mapping mapping;
    bip::mapped_region region;
    bool empty = true; // Boost throws when mapping 0 bytes: an empty file has no region
    std::string data;  // the bytes of a small file, read instead of mapped
    bool read = false;
};

MappedFile::MappedFile(std::string path, std::unique_ptr<Impl> impl)
    : m_path(std::move(path)), m_impl(std::move(impl))
{
}

MappedFile::MappedFile(MappedFile&&) noexcept = default;
MappedFile& MappedFile::operator=(MappedFile&&) noexcept = default;
MappedFile::~MappedFile() = default;

std::string_view MappedFile::bytes() const
{
    if (m_impl && m_impl->read)
        return m_impl->data;
    if (!m_impl || m_impl->empty)
        return {};
    return {static_cast<const char*>(m_impl->region.get_address()), m_impl->region.get_size()};
}

std::optional<MappedFile> MappedFile::open(const std::string& path, std::string* error)
{
    auto fail = [&](const std::string& why) -> std::optional<MappedFile> {
        if (error)
            *error = "cannot open '" + path + "': " + why;
        return std::nullopt;
    };
    // stat first: it gives the errno text for a missing/unreadable path and tells an empty file
    // (which Boost refuses to map) or a directory apart before Boost is involved.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return fail(std::strerror(errno));
    if (S_ISDIR(st.st_mode))
        return fail(std::strerror(EISDIR));
    auto impl = std::make_unique<Impl>();
    if (st.st_size <= kReadLimit) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return fail(std::strerror(errno));
        impl->data.resize(static_cast<std::size_t>(st.st_size));
        std::size_t got = 0;
        while (got < impl->data.size()) {
            const ssize_t n = ::read(fd, impl->data.data() + got, impl->data.size() - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                const int e = errno;
                ::close(fd);
                return fail(std::strerror(e));
            }
            if (n == 0)
                break; // shrank since stat: keep what is there
            got += static_cast<std::size_t>(n);
        }
        ::close(fd);
        impl->data.resize(got);
        impl->read = true;
        return MappedFile(path, std::move(impl));
    }
    try {
        impl->mapping = bip::file_mapping(path.c_str(), bip::read_only);
        if (st.st_size > 0) {
            impl->region = bip::mapped_region(impl->mapping, bip::read_only);
            impl->empty = impl->region.get_size() == 0;
            if (!impl->empty) {
                // Readers scan front to back once; tell the kernel so it reads ahead aggressively.
                ::madvise(impl->region.get_address(), impl->region.get_size(), MADV_SEQUENTIAL);
            }
        }
    } catch (const bip::interprocess_exception& e) {
        const int native = e.get_native_error();
        return fail(native != 0 ? std::strerror(native) : e.what());
    }
    return MappedFile(path, std::move(impl));
}

} // namespace npuscope
