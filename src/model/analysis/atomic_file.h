#pragma once
// Write a file so that readers only ever see the old complete file or the new complete one:
// write to a temporary file in the target directory, flush, then rename over the target.
// An interrupted or failed write removes the temporary file and leaves the target untouched.
#include <cstdio>
#include <functional>
#include <string>

namespace npuscope {

// `write` fills the FILE* and returns false on its own failure (then nothing is replaced).
// On failure returns false and sets *error to a sentence naming the path and why.
bool writeFileAtomically(const std::string& path, const std::function<bool(std::FILE*)>& write, std::string* error);
bool writeFileAtomically(const std::string& path, const std::string& contents, std::string* error);

} // namespace npuscope
