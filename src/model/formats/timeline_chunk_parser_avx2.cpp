// AVX2 build of the chunk parser. simdjson's header-only On-Demand code (string unescaping,
// number parsing, navigation) is compiled for one kernel chosen from the compiler's target
// macros, so on an AVX2 baseline without all of BMI1, PCLMUL and LZCNT (x86-64-v3 lacks PCLMUL)
// it falls back to the scalar kernel. This translation unit compiles it as the Haswell kernel
// inside a Haswell target region instead, in namespace npuscope::avx2. Only called after a
// run-time CPU check (timeline_reader.cpp). The packaged build (plain x86-64) has no such
// variant: its On-Demand code is the portable kernel, and stage 1 is dispatched at run time by
// simdjson itself in every build.
//
// The inline standard-library code instantiated here is compiled for the region too. So that no
// other translation unit can end up calling such a copy on a CPU without AVX2, the build renames
// this object's weak function definitions (src/model/CMakeLists.txt: localise_avx2_object.cmake)
// and scripts/check-avx.sh checks the linked program.

// Every header goes under the target region: simdjson's always-inline functions are called from
// standard-library templates (std::pair in ondemand::field), which must share their target.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__AVX2__) &&             \
    !(defined(__BMI__) && defined(__PCLMUL__) && defined(__LZCNT__))
#define NPUSCOPE_AVX2_BUILD 1
#pragma GCC push_options
#pragma GCC target("avx2,bmi,pclmul,lzcnt,popcnt")
#endif

#ifdef NPUSCOPE_AVX2_BUILD

#include "model/formats/number_text.h"
#include "model/formats/plain_event_reader.h"
#include "model/formats/timeline_builder.h"
#include "model/formats/timeline_chunk_parser.h"

#define SIMDJSON_BUILTIN_IMPLEMENTATION haswell
#include <simdjson.h>

#include <cstring>
#include <deque>
#include <string>

namespace npuscope {

namespace avx2 {
namespace {
namespace od = simdjson::ondemand;
using jsontext::trimToken;
using jsontext::unquote;
using jsontext::isBareScalar;
#include "model/formats/timeline_chunk_parser.inl"
} // namespace
} // namespace avx2

std::unique_ptr<EventChunkParser> makeAvx2ChunkParser(std::string_view bytes, const ChunkParserOptions& options)
{
    return std::make_unique<avx2::ChunkParser>(bytes, options);
}

} // namespace npuscope

#pragma GCC pop_options
#endif
