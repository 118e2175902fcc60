#pragma once
// layout::detect with its folder limit given (kMaxFolders for detect itself), so the limit can
// be checked on a small tree.
#include "model/formats/layout.h"

namespace npuscope::layout {

Plan detectWithin(const std::string& path, const std::atomic<bool>* cancel, int maxFolders);

} // namespace npuscope::layout
