#pragma once
// Small helpers shared by the rule files (internal).
#include "advisor/rule_context.h"
#include "model/analysis/u64_map.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace npuscope::advisor {

// Evidence rows kept per finding (the heaviest first); the count of the rest is stated.
inline constexpr std::size_t kMaxEvidence = 100;

Evidence taskEvidence(const ProfileFacts& f, const Task& t, std::vector<Metric> metrics, std::string threshold);

// Keeps the n costliest evidence rows offered, in the order a stable sort by cost (largest
// first) of all of them would give, and builds a row only when it can still make the cut: a
// rule offering one candidate per task formats a few hundred rows instead of every task.
class TopEvidence {
public:
    explicit TopEvidence(std::size_t n = kMaxEvidence) : m_n(n) {}
    template <typename Make>
    void offer(TimeNs cost, Make&& make)
    {
        const std::uint64_t seq = m_seq++;
        if (m_n == 0 || (m_heap.size() == m_n && !beats(cost, seq, m_heap.front())))
            return;
        Entry e{cost, seq, make()};
        e.row.cost = cost;
        if (m_heap.size() == m_n) {
            std::pop_heap(m_heap.begin(), m_heap.end(), worseFirst);
            m_heap.back() = std::move(e);
        } else {
            m_heap.push_back(std::move(e));
        }
        std::push_heap(m_heap.begin(), m_heap.end(), worseFirst);
    }
    // How many rows were offered, kept or not.
    std::size_t offered() const { return static_cast<std::size_t>(m_seq); }
    // Appends the kept rows, costliest first, to `out`.
    void moveInto(std::vector<Evidence>& out)
    {
        std::sort(m_heap.begin(), m_heap.end(), [](const Entry& a, const Entry& b) { return beats(a.cost, a.seq, b); });
        for (auto& e : m_heap)
            out.push_back(std::move(e.row));
        m_heap.clear();
    }

private:
    struct Entry {
        TimeNs cost;
        std::uint64_t seq;
        Evidence row;
    };
    // Larger cost first; on a tie the earlier offer (a stable sort keeps it first).
    static bool beats(TimeNs cost, std::uint64_t seq, const Entry& e) { return cost > e.cost || (cost == e.cost && seq < e.seq); }
    // Heap order with the row that would be dropped first at the front.
    static bool worseFirst(const Entry& a, const Entry& b) { return beats(a.cost, a.seq, b); }
    std::size_t m_n;
    std::uint64_t m_seq = 0;
    std::vector<Entry> m_heap;
};
// Appends the kMaxEvidence longest of `tasks` to fd.evidence as task rows (on equal durations
// the earlier task first), building only those rows: metrics(task) gives each row's metrics.
template <typename Metrics>
void addLongestTasks(Finding& fd, const ProfileFacts& f, const std::vector<const Task*>& tasks, Metrics&& metrics,
                     const std::string& threshold)
{
    TopEvidence top;
    for (const Task* t : tasks)
        top.offer(t->dur, [&] { return taskEvidence(f, *t, metrics(*t), threshold); });
    top.moveInto(fd.evidence);
}

// Groups tasks by op type into `groups` (structs with a TaskGroup `g`): adds `t` to its type's
// group, made (key and type: the type's text) the first time the type is seen, and returns it.
// Sort with byType() before reporting, for the order of the type names.
template <typename G>
G& addToTypeGroup(std::vector<G>& groups, U64Map& index, const ProfileFacts& f, const Task& t)
{
    bool fresh = false;
    const std::uint32_t gi = index.tryEmplace(t.type.v, static_cast<std::uint32_t>(groups.size()), &fresh);
    if (fresh) {
        groups.emplace_back();
        groups.back().g.key = groups.back().g.type = f.str(t.type);
    }
    G& g = groups[gi];
    g.g.tasks.push_back(&t);
    g.g.sumDur += static_cast<double>(t.dur);
    return g;
}
template <typename G>
void byType(std::vector<G>& groups)
{
    std::sort(groups.begin(), groups.end(), [](const G& a, const G& b) { return a.g.type < b.g.type; });
}

// A test of a string of the profile's pool, made once per distinct string id: the rules ask it
// of millions of slices, whose names and categories repeat.
template <typename Test>
class ByStringId {
public:
    ByStringId(const Profile& p, Test test) : m_p(p), m_test(std::move(test)), m_seen(p.strings.size(), 0) {}
    bool operator()(NameId id)
    {
        if (!id.valid() || id.v >= m_seen.size())
            return m_test(m_p.str(id));
        std::uint8_t& s = m_seen[id.v]; // 0: not tested yet, 1: false, 2: true
        if (s == 0)
            s = m_test(m_p.str(id)) ? 2 : 1;
        return s == 2;
    }

private:
    const Profile& m_p;
    Test m_test;
    std::vector<std::uint8_t> m_seen;
};

// Splits "FLOAT16;FLOAT" / "FLOAT16,INT64" into upper-case tokens.
std::vector<std::string> dtypeTokens(std::string_view s);
// "7.0.RC1" < "7.0.0" < "8.0.RC2" < "8.0.0"; empty or unparsable versions compare as newest.
int compareCannVersion(const std::string& a, const std::string& b);
std::string joinList(const std::vector<std::string>& v, const char* sep = ", ");
std::vector<std::string> stringList(const nlohmann::json& j);
// "Σdur 18.20 ms"
std::string perStepMs(const ProfileFacts& f, double totalNs);
// " It costs 0.3 % of the step, below min_share 1.0 %: a minor finding." when cost (ns per
// step) is below min_share·T, else empty.
std::string minorNote(const ProfileFacts& f, double cost, const Thresholds& th);
// Below min_share a group whose condition holds is a minor finding, if its longest task is
// at least minDurNs long: a type made of a few-µs tasks is not worth a line.
bool worthAMinorFinding(const TaskGroup& g, double minDurNs);
void setGain(Finding& fd, double nsPerStep, std::string formula);
// Records `tasks` (of f.tasks) as the device time fd's gain comes from (the action plan's claims).
void claimTasks(Finding& fd, const ProfileFacts& f, const std::vector<const Task*>& tasks);
void noGain(Finding& fd, std::string reason);
// The last arrivers of one collective, from every rank's time in it (a late rank waits least,
// so its time is the shortest): indices of the outliers below the others. Up to 100 values:
// Dixon's Q test at 99.5 % on the minimum (r10 for n ≤ 7, r11 ≤ 10, r21 ≤ 13, r22 above);
// more: every value below mean − 3σ. Fewer than 3 values, or no spread: none. `method` names
// the test used ("Dixon r10 0.995 > 0.994", "3σ").
std::vector<std::size_t> lastArrivers(const std::vector<double>& times, std::string* method = nullptr);
// "ratios on 812/1030 ops"
std::string coverage(std::size_t have, std::size_t total, const char* what);
// "needs <the profile's kernel file> (op_summary_*.csv / kernel_details.csv)": what a rule on
// per-op rows says when there are none.
std::string needsOps(const ProfileFacts& f);

} // namespace npuscope::advisor
