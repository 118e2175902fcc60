// Portable build of the chunk parser (simdjson's compile-time kernel for the baseline CPU).
#include "model/formats/timeline_chunk_parser.h"

#include "model/formats/number_text.h"
#include "model/formats/plain_event_reader.h"
#include "model/formats/timeline_builder.h"

#include <simdjson.h>

#include <cstring>
#include <deque>
#include <string>

namespace npuscope {

namespace {
namespace od = simdjson::ondemand;
using jsontext::trimToken;
using jsontext::unquote;
using jsontext::isBareScalar;
#include "model/formats/timeline_chunk_parser.inl"
} // namespace

std::unique_ptr<EventChunkParser> makePortableChunkParser(std::string_view bytes, const ChunkParserOptions& options)
{
    return std::make_unique<ChunkParser>(bytes, options);
}

#ifndef NPUSCOPE_AVX2_CHUNK_PARSER
// No separate AVX2 build: not x86-64 with GCC, or the baseline already runs simdjson's Haswell kernel.
std::unique_ptr<EventChunkParser> makeAvx2ChunkParser(std::string_view, const ChunkParserOptions&) { return nullptr; }
#endif

} // namespace npuscope
