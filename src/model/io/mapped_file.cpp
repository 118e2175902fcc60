#include "model/io/mapped_file.h"

#include <boost/interprocess/exceptions.hpp>
#include <boost/interprocess/file_mapping.hpp>
#include <boost/interprocess/mapped_region.hpp>

#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <sys/stat.h>

namespace npuscope {

namespace bip = boost::interprocess;

struct MappedFile::Impl {
    bip::file_mapping mapping;
    bip::mapped_region region;
    bool empty = true; // Boost throws when mapping 0 bytes: an empty file has no region
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
