#pragma once
// What every reader receives besides its bytes and its sink (the Profile).
#include "model/store/cancellable_rows.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace npuscope {

struct ReadContext {
    std::string file;                                   // path, for diagnostics
    std::function<void(std::uint64_t bytesDone)> progress; // optional, throttled by the caller
    const std::atomic<bool>* cancel = nullptr;
    int device = -1;                                    // device implied by the layout (legacy device_N)
    std::uint64_t chunkBytes = 0;                       // timeline JSON parsed per chunk; 0: the reader's choice
    std::size_t chunkSlots = 0;                         // timeline chunks in flight (2 or 3); 0: the reader's choice
    std::size_t readableAfterEnd = 0;                   // bytes past the input's end a parser may read
    // Copies bytes of the input (offset, destination, count) without touching its mapping
    // (MappedFile::copyBytes); empty when the bytes were read into memory. A reader that reads a
    // large stretch once may copy it into a buffer of its own instead of reading it in place.
    std::function<void(std::uint64_t offset, char* to, std::size_t n)> copyBytes;
    bool plainEvents = true;                            // timeline events of the plain form read without
                                                        // simdjson (false: all with it; the tests compare)
    // Timeline events' arguments kept as the events' byte offsets in `file` and read again when
    // asked for (ArgTable's lazy rows), instead of stored: the loader's choice for large files.
    bool lazyArgs = false;
    bool cancelled() const { return isCancelled(cancel); }
};

} // namespace npuscope
