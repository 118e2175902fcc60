#pragma once
// The processes of `npuscope cluster-summary`: Open MPI's world when the binary is built with
// NPUSCOPE_MPI and started by mpirun, else one process (whose threads do all the work).
#include <string>
#include <vector>

namespace npuscope::cli {

class ClusterWorld {
public:
    // Joins the MPI world when mpirun (or another MPI launcher) started this process.
    // False with *error set when it was started so but this build has no MPI.
    bool init(std::string* error);
    ~ClusterWorld();
    void finalize(); // MPI_Finalize once (the destructor calls it too)

    int rank() const { return m_rank; }
    int size() const { return m_size; }
    bool mpi() const { return m_mpi; }
    static bool builtWithMpi();

    // Every process's `mine`, in process order, on process 0 (empty elsewhere).
    std::vector<std::string> gather(const std::string& mine) const;
    // Process 0's value on every process.
    int broadcast(int value) const;
    // Ends every process of the job with `code` (MPI_Abort); a plain exit without MPI.
    [[noreturn]] void abort(int code) const;

private:
    int m_rank = 0, m_size = 1;
    bool m_mpi = false;
};

} // namespace npuscope::cli
