#include "model/synth/python_side.h"

namespace npuscope::synth {

namespace {

const char* const kSite = "/usr/local/python3.9.19/lib/python3.9/site-packages/";
const char* const kApp = "/home/infer/llama/";

std::string site(const char* rel)
{
    return std::string(kSite) + rel;
}

std::string app(const char* rel)
{
    return std::string(kApp) + rel;
}

// nn.Module.__call__ between two forward() frames
void moduleCall(std::vector<std::string>& f)
{
    f.push_back(site("torch/nn/modules/module.py(1527): _call_impl"));
    f.push_back(site("torch/nn/modules/module.py(1518): _wrapped_call_impl"));
}

// From TransformerBlock.forward out to the script
void outerFrames(std::vector<std::string>& f)
{
    f.push_back(app("llama/model.py(413): forward")); // TransformerBlock
    moduleCall(f);
    f.push_back(app("llama/model.py(486): forward")); // Transformer: for layer in self.layers
    f.push_back(site("torch/utils/_contextlib.py(115): decorate_context"));
    f.push_back(app("llama/generation.py(205): generate"));
    f.push_back(app("llama/generation.py(338): text_completion"));
    f.push_back(app("example_text_completion.py(55): main"));
    f.push_back(site("fire/core.py(691): _CallAndUpdateTrace"));
    f.push_back(site("fire/core.py(475): _Fire"));
    f.push_back(site("fire/core.py(141): Fire"));
    f.push_back(app("example_text_completion.py(69): <module>"));
}

std::string torchType(const std::string& ascend)
{
    if (ascend == "FLOAT16")
        return "c10::Half";
    if (ascend == "FLOAT")
        return "float";
    if (ascend == "BF16")
        return "c10::BFloat16";
    if (ascend == "INT64")
        return "long int";
    return "Scalar";
}

// "\"256,4096;4096,512\"" or "FLOAT16;FLOAT16" -> its ';'-separated entries
std::vector<std::string> entries(const std::string& text)
{
    std::vector<std::string> out;
    std::string cur;
    for (const char c : text) {
        if (c == '"')
            continue;
        if (c == ';') {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty() || !out.empty())
        out.push_back(cur);
    return out;
}

} // namespace

std::string joinFrames(const std::vector<std::string>& frames, const char* sep)
{
    std::string s;
    for (const auto& f : frames) {
        if (!s.empty())
            s += sep;
        s += f;
    }
    return s;
}

const char* layerFrame()
{
    return "llama/model.py(413): forward";
}

const char* stepFrame()
{
    return "llama/generation.py(205): generate";
}

std::vector<PythonSide> pythonSides(const Scenario& sc)
{
    std::vector<PythonSide> out;
    for (std::size_t i = 0; i < sc.ops.size(); ++i) {
        const OpKind& op = sc.ops[i];
        const bool mlp = i * 2 >= sc.ops.size(); // the layer's second half: norm and feed-forward
        PythonSide p;
        const auto dims = entries(op.inShapes), types = entries(op.inTypes);
        for (std::size_t k = 0; k < dims.size(); ++k)
            p.dims += (k ? ";\r\n" : "") + dims[k];
        for (std::size_t k = 0; k < types.size(); ++k)
            p.types += (k ? ";\r\n" : "") + torchType(types[k]);
        auto& f = p.stack;
        const std::string& a = op.aten;
        if (a == "aten::mm") {
            f.push_back(site("torch/nn/modules/linear.py(114): forward"));
            p.caller = "torch/nn/modules/linear.py(114): forward";
            moduleCall(f);
            f.push_back(app(mlp ? "llama/model.py(351): forward" : "llama/model.py(300): forward"));
            moduleCall(f);
        } else if (a == "aten::bmm" || a == "aten::_softmax" || a == "npu::npu_fusion_attention") {
            if (a == "aten::_softmax")
                f.push_back(site("torch/nn/functional.py(1858): softmax"));
            f.push_back(app(a == "aten::bmm" ? "llama/model.py(287): forward" : "llama/model.py(289): forward"));
            p.caller = "llama/model.py(289): forward";
            moduleCall(f);
        } else if (a == "aten::silu" || a == "aten::mul") {
            if (a == "aten::silu")
                f.push_back(site("torch/nn/functional.py(2072): silu"));
            f.push_back(app("llama/model.py(351): forward"));
            p.caller = "llama/model.py(351): forward";
            moduleCall(f);
        } else if (a == "c10d::allreduce_") {
            f.push_back(site("torch/distributed/distributed_c10d.py(2050): all_reduce"));
            f.push_back(site("torch/distributed/c10d_logger.py(47): wrapper"));
            f.push_back(site("fairscale/nn/model_parallel/mappings.py(39): _reduce"));
            f.push_back(site("fairscale/nn/model_parallel/mappings.py(91): forward"));
            f.push_back(site("torch/autograd/function.py(539): apply"));
            f.push_back(site("fairscale/nn/model_parallel/layers.py(368): forward"));
            p.caller = "torch/distributed/distributed_c10d.py(2050): all_reduce";
            moduleCall(f);
            f.push_back(app("llama/model.py(351): forward"));
            moduleCall(f);
        } else { // the norm: casts, layer norm, residual add (or the fused AddRmsNorm)
            f.push_back(app("llama/model.py(83): _norm"));
            f.push_back(app("llama/model.py(95): forward"));
            p.caller = "llama/model.py(95): forward";
            moduleCall(f);
        }
        outerFrames(f);
        out.push_back(std::move(p));
    }
    return out;
}

} // namespace npuscope::synth
