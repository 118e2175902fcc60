#include "views/palette.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace npuscope {

namespace {

// Okabe-Ito + Tol muted, ordered so neighbouring indices differ in hue and lightness.
constexpr std::array<QRgb, kPaletteSize> kCompute = {
    0xff0072b2, // blue
    0xffe69f00, // orange
    0xff009e73, // bluish green
    0xff56b4e9, // sky blue
    0xff999933, // olive
    0xffaa4499, // purple
    0xff44aa99, // teal
    0xffddcc77, // sand
    0xff332288, // indigo
    0xff117733, // green
    0xff88ccee, // cyan
    0xfff0e442, // yellow
};

constexpr std::array<QRgb, kCommPaletteSize> kComm = {
    0xffcc6677, // rose
    0xff882255, // wine
    0xffd55e00, // vermillion
    0xffee99aa, // light rose
};

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
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
    static constexpr std::array<std::string_view, 14> kWords = {
        "hcom", "hccl", "allreduce", "allgather", "reducescatter", "broadcast", "alltoall",
        "all_reduce", "all_gather", "reduce_scatter", "communication", "send", "receive", "recv"};
    return std::any_of(kWords.begin(), kWords.end(), [&k](std::string_view w) { return k.find(w) != std::string::npos; });
}

int paletteIndexFor(std::string_view key)
{
    const std::uint64_t h = stableHash(key);
    if (isCommunicationKey(key))
        return kPaletteSize + static_cast<int>(h % kCommPaletteSize);
    return static_cast<int>(h % kPaletteSize);
}

QColor paletteColor(int index)
{
    if (index >= 0 && index < kPaletteSize)
        return QColor::fromRgb(kCompute[static_cast<std::size_t>(index)]);
    if (index >= kPaletteSize && index < kPaletteSize + kCommPaletteSize)
        return QColor::fromRgb(kComm[static_cast<std::size_t>(index - kPaletteSize)]);
    return QColor(0x99, 0x99, 0x99);
}

QColor colorFor(std::string_view key) { return paletteColor(paletteIndexFor(key)); }

QColor freeColor() { return QColor(0xbb, 0xbb, 0xbb); }

} // namespace npuscope
