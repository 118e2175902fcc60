// AVX2 build of the chunk parser. simdjson's header-only On-Demand code (string unescaping,
// number parsing, navigation) is compiled for one kernel chosen from the compiler's target
// macros, and x86-64-v3 lacks PCLMUL, so it falls back to the scalar kernel. This translation
// unit compiles it as the Haswell kernel inside a Haswell target region instead. It exists only
// when the baseline already has AVX2 (so the inline standard-library code compiled here under the
// region adds nothing an AVX2 CPU lacks: every one has PCLMUL). Only called after a run-time CPU
// check (timeline_reader.cpp). Stage 1 is dispatched at run time by simdjson
// itself in both builds.

// Every header goes under the target region: simdjson's always-inline functions are called from
// standard-library templates (std::pair in ondemand::field), which must share their target.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__AVX2__)
#pragma GCC push_options
#pragma GCC target("avx2,bmi,pclmul,lzcnt,popcnt")
#define NPUSCOPE_AVX2_TARGET_PUSHED 1
#endif

#include "model/formats/timeline_chunk_parser.h"

#ifdef NPUSCOPE_AVX2_CHUNK_PARSER

#include "model/formats/number_text.h"
#include "model/formats/timeline_builder.h"

#define SIMDJSON_BUILTIN_IMPLEMENTATION haswell
#include <simdjson.h>

namespace npuscope {

namespace {
namespace od = simdjson::ondemand;
using jsontext::trimToken;
using jsontext::unquote;
#include "model/formats/timeline_chunk_parser.inl"
} // namespace

std::unique_ptr<EventChunkParser> makeAvx2ChunkParser(std::string_view bytes, TimelineBuilder& builder)
{
    return std::make_unique<ChunkParser>(bytes, builder);
}

} // namespace npuscope

#endif

#ifdef NPUSCOPE_AVX2_TARGET_PUSHED
#pragma GCC pop_options
#endif
