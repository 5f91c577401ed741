"""Start llama-cpp-python's OpenAI-compatible server (`python serve.py <its usual arguments>`) with
llama.cpp's extra CPU weight buffers off. On the test machines the AMX kernels that those buffers
enable crash (SIGSEGV in ggml_backend_amx_mul_mat on the first request); the plain CPU path computes
the same quantized products. Users whose llama.cpp runs normally start `python -m llama_cpp.server`."""
import runpy

import llama_cpp.llama_cpp as lib


def no_extra_buffers() -> None:
    """Make every model llama-cpp-python loads in this process skip the extra buffer types."""
    default = lib.llama_model_default_params
    if getattr(default, "no_extra", False):
        return

    def params():
        p = default()
        p.use_extra_bufts = False
        return p
    params.no_extra = True
    lib.llama_model_default_params = params


if __name__ == "__main__":
    no_extra_buffers()
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
