#pragma once
// The arguments of a large timeline file's events, read again when asked for (ArgTable's lazy
// rows): the loader keeps each such event's byte offset instead of its arguments, which in a
// 10 GB profile are about a fifth of the model and of the time the load spends faulting in
// fresh pages.
#include "model/store/profile.h"

#include <memory>
#include <string>

namespace npuscope {

// `path` as an ArgFile (made absolute; its size and modification time now); false with `error`
// set when it cannot be looked at.
bool argFileOf(const std::string& path, ArgFile& out, std::string* error);

// A reader of the events of ArgFiles: it keeps each file open once read, until it is destroyed
// (with the Profile that holds it), and reads an event's bytes with pread(), so nothing of the
// file is mapped or stays resident. Safe to use from several threads.
std::shared_ptr<const ArgReader> makeTraceArgReader();

} // namespace npuscope
