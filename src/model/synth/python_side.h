#pragma once
// What torch_npu records of an operator on the Python side: its input dims and types
// (record_shapes=True) and the Python call stack that issued it (with_stack=True), for the
// modelled LLaMA-2 decode loop (llama/model.py under llama/generation.py).
#include "model/synth/synth_model.h"

#include <string>
#include <vector>

namespace npuscope::synth {

struct PythonSide {
    std::string dims;   // "256,4096;\r\n4096,512" (trace_view.json "Input Dims")
    std::string types;  // "c10::Half;\r\nc10::Half" ("Input type")
    std::vector<std::string> stack; // frames "file(line): func", innermost first
    std::string caller; // the innermost frame as a python_function name ("torch/nn/modules/linear.py(114): forward")
};

// One entry per operator of the scenario's layer, in Scenario::ops order.
std::vector<PythonSide> pythonSides(const Scenario& sc);

// Frames joined as torch_npu joins them: ";\r\n" in trace_view.json, ";\n" in operator_details.csv.
std::string joinFrames(const std::vector<std::string>& frames, const char* sep);

// The enclosing frames a python_function trace shows for a decoder layer and for a step.
const char* layerFrame();
const char* stepFrame();

} // namespace npuscope::synth
