#include "views/palette.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <mutex>
#include <string>

namespace npuscope {

namespace {

// Chosen offline by a farthest-point search over a 28-level sRGB grid (L* 25 to 95), started
// from the six Okabe-Ito colours kept for colour-blind users (slots 0 to 5) and Okabe-Ito's
// vermillion (the third communication shade), then refined by moving the closest pair's free
// colour to the candidate farthest from all others. Compute colours avoid the red hues
// (CIE hue 347° to 60° with chroma 25 or more) that communication keeps for itself. The
// closest two of the 25 are 21.1 apart in CIEDE2000 (tests/views/test_palette.cpp checks 20).
// Some views take slots by index (a curve per rank takes every fifth): the pale colours, weak
// as lines on a light plot, come last in that order.
constexpr std::array<QRgb, kPaletteSize> kCompute = {
    0xff0072b2, // blue
    0xffe69f00, // orange
    0xff009e73, // bluish green
    0xff56b4e9, // sky blue
    0xfff0e442, // yellow
    0xffcc79a7, // reddish purple
    0xff004c4c, // dark teal
    0xff424200, // dark olive
    0xff3900ff, // indigo
    0xff848e09, // olive
    0xffb31c7b, // magenta
    0xffc6f6e3, // pale mint
    0xff7b7b8e, // slate
    0xff393955, // dark slate
    0xffa171ff, // lavender
    0xff007109, // dark green
    0xffe3d9ff, // pale lilac
    0xffbdb397, // khaki
    0xff71715e, // grey olive
    0xff00ec39, // bright green
    0xff7b4200, // brown
};

constexpr std::array<QRgb, kCommPaletteSize> kComm = {
    0xfff60042, // rose red
    0xff84001c, // wine
    0xffd55e00, // vermillion
    0xffffb3a1, // light salmon
};

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

struct Claimed {
    std::vector<std::string> keys;
};

// The slots of the keys that live claims hold; each timeline layout holds one claim.
struct Registry {
    std::recursive_mutex mutex; // a claim's release can run while a claim is looked at
    std::vector<std::weak_ptr<const Claimed>> claims;
    std::map<std::string, int, std::less<>> slotOf;
};

// Never destroyed: a layout released during static destruction still finds it.
Registry& registry()
{
    static auto* r = new Registry;
    return *r;
}

// Keeps the slots of keys a live claim still shows; the rest are free again.
void keepLiveKeys(Registry& r)
{
    std::map<std::string, int, std::less<>> kept;
    std::erase_if(r.claims, [](const auto& c) { return c.expired(); });
    for (const auto& weak : r.claims)
        if (const auto live = weak.lock())
            for (const std::string& k : live->keys)
                if (const auto it = r.slotOf.find(k); it != r.slotOf.end())
                    kept.insert(*it);
    r.slotOf = std::move(kept);
}

// The first slot of [begin, end) from `from` on, wrapping, that no key holds; -1 when all are held.
int freeSlot(const std::array<int, kPaletteColours>& users, int begin, int end, int from)
{
    const int n = end - begin;
    for (int k = 0; k < n; ++k) {
        const int s = begin + (from - begin + k) % n;
        if (users[static_cast<std::size_t>(s)] == 0)
            return s;
    }
    return -1;
}

} // namespace

std::uint64_t stableHash(std::string_view key)
{
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : key) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

bool isCommunicationKey(std::string_view key)
{
    const std::string k = lower(key);
    static constexpr std::array<std::string_view, 15> kWords = {
        "hcom", "hccl", "allreduce", "allgather", "reducescatter", "broadcast", "alltoall", "all_reduce",
        "all_gather", "reduce_scatter", "communication", "send", "receive", "recv", "notify"};
    return std::any_of(kWords.begin(), kWords.end(), [&k](std::string_view w) { return k.find(w) != std::string::npos; });
}

std::string_view colourKey(std::string_view key)
{
    if (key.substr(0, 5) != "hcom_")
        return key;
    const std::size_t cut = key.find("__");
    if (cut == std::string_view::npos || cut + 2 >= key.size() || !std::isdigit(static_cast<unsigned char>(key[cut + 2])))
        return key;
    return key.substr(0, cut + 1);
}

int preferredPaletteIndex(std::string_view key)
{
    key = colourKey(key);
    const std::uint64_t h = stableHash(key);
    if (isCommunicationKey(key))
        return kPaletteSize + static_cast<int>(h % kCommPaletteSize);
    return static_cast<int>(h % kPaletteSize);
}

int paletteIndexFor(std::string_view key)
{
    Registry& r = registry();
    {
        const std::lock_guard lock(r.mutex);
        const auto it = r.slotOf.find(colourKey(key));
        if (it != r.slotOf.end())
            return it->second;
    }
    return preferredPaletteIndex(key);
}

QColor paletteColor(int index)
{
    if (index >= 0 && index < kPaletteSize)
        return QColor::fromRgb(kCompute[static_cast<std::size_t>(index)]);
    if (index >= kPaletteSize && index < kPaletteColours)
        return QColor::fromRgb(kComm[static_cast<std::size_t>(index - kPaletteSize)]);
    return QColor(0x99, 0x99, 0x99);
}

QColor colorFor(std::string_view key) { return paletteColor(paletteIndexFor(key)); }

QColor freeColor() { return QColor(0xbb, 0xbb, 0xbb); }

PaletteClaim claimPaletteSlots(std::vector<PaletteKey> given)
{
    std::map<std::string, double, std::less<>> weightOf; // instances of one collective add up
    for (const PaletteKey& k : given)
        weightOf[std::string(colourKey(k.key))] += k.weight;
    std::vector<PaletteKey> keys;
    keys.reserve(weightOf.size());
    for (auto& [key, weight] : weightOf)
        keys.push_back({key, weight});
    std::sort(keys.begin(), keys.end(), [](const PaletteKey& a, const PaletteKey& b) {
        return a.weight != b.weight ? a.weight > b.weight : a.key < b.key;
    });
    // Released, a claim's keys go back to their preferred slots unless another claim shows them.
    std::shared_ptr<Claimed> claim(new Claimed, [](Claimed* c) {
        delete c;
        Registry& r = registry();
        const std::lock_guard lock(r.mutex);
        keepLiveKeys(r);
    });
    claim->keys.reserve(keys.size());
    for (const PaletteKey& k : keys)
        claim->keys.push_back(k.key);

    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    keepLiveKeys(r);
    std::array<int, kPaletteColours> users{};
    for (const auto& [k, s] : r.slotOf)
        ++users[static_cast<std::size_t>(s)];

    for (const std::string& k : claim->keys) {
        if (r.slotOf.count(k))
            continue;
        const int pref = preferredPaletteIndex(k);
        const bool comm = pref >= kPaletteSize;
        int s = comm ? freeSlot(users, kPaletteSize, kPaletteColours, pref) : freeSlot(users, 0, kPaletteSize, pref);
        if (s < 0) // the family is full: another family's colour still tells the key apart
            s = comm ? freeSlot(users, 0, kPaletteSize, 0) : freeSlot(users, kPaletteSize, kPaletteColours, kPaletteSize);
        if (s < 0)
            s = pref;
        r.slotOf.emplace(k, s);
        ++users[static_cast<std::size_t>(s)];
    }
    r.claims.push_back(claim);
    return claim;
}

} // namespace npuscope
