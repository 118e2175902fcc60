#include "app/cluster_world.h"

#include <cstdlib>
#include <cstdio>

#ifdef NPUSCOPE_MPI
// The C API only: Open MPI's deprecated C++ bindings are not used.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace npuscope::cli {

namespace {

// The launchers' own variables: Open MPI's mpirun, PMIx and MPICH's Hydra.
int launchedWorldSize()
{
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"})
        if (const char* s = std::getenv(v))
            return std::atoi(s);
    return 0;
}

} // namespace

bool ClusterWorld::builtWithMpi()
{
#ifdef NPUSCOPE_MPI
    return true;
#else
    return false;
#endif
}

bool ClusterWorld::init(std::string* error)
{
    const int launched = launchedWorldSize();
    if (launched <= 0)
        return true;
#ifdef NPUSCOPE_MPI
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        *error = "MPI_Init failed";
        return false;
    }
    m_mpi = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m_size);
    return true;
#else
    if (launched > 1) {
        *error = "started by mpirun with " + std::to_string(launched)
                 + " processes, but this npuscope is built without MPI (configure with -DNPUSCOPE_MPI=ON); "
                   "run it without mpirun to use one machine's threads";
        return false;
    }
    return true;
#endif
}

ClusterWorld::~ClusterWorld()
{
    finalize();
}

void ClusterWorld::finalize()
{
#ifdef NPUSCOPE_MPI
    if (m_mpi)
        MPI_Finalize();
#endif
    m_mpi = false;
}

std::vector<std::string> ClusterWorld::gather(const std::string& mine) const
{
#ifdef NPUSCOPE_MPI
    if (m_mpi) {
        // Sizes first, then the bytes; a summary of 1,024 ranks stays well under 2 GiB.
        long long n = static_cast<long long>(mine.size());
        std::vector<long long> sizes(m_rank == 0 ? static_cast<std::size_t>(m_size) : 0);
        MPI_Gather(&n, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        std::vector<int> counts, displs;
        std::string all;
        if (m_rank == 0) {
            long long total = 0;
            for (long long s : sizes) {
                counts.push_back(static_cast<int>(s));
                displs.push_back(static_cast<int>(total));
                total += s;
            }
            all.resize(static_cast<std::size_t>(total));
        }
        MPI_Gatherv(mine.data(), static_cast<int>(n), MPI_CHAR, all.data(), counts.data(), displs.data(), MPI_CHAR, 0,
                    MPI_COMM_WORLD);
        std::vector<std::string> out;
        if (m_rank == 0)
            for (int p = 0; p < m_size; ++p)
                out.push_back(all.substr(static_cast<std::size_t>(displs[static_cast<std::size_t>(p)]),
                                         static_cast<std::size_t>(counts[static_cast<std::size_t>(p)])));
        return out;
    }
#endif
    return {mine};
}

int ClusterWorld::broadcast(int value) const
{
#ifdef NPUSCOPE_MPI
    if (m_mpi)
        MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    return value;
}

void ClusterWorld::abort(int code) const
{
    std::fflush(stdout);
    std::fflush(stderr);
#ifdef NPUSCOPE_MPI
    if (m_mpi)
        MPI_Abort(MPI_COMM_WORLD, code);
#endif
    std::_Exit(code);
}

} // namespace npuscope::cli
