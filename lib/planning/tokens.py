"""Prompt tokens of a planned request, estimated from its characters.

An embedded model's own tokenizer is on disk once the model was converted (lib.models.gguf_models):
its characters per token on reference text (the papers' prompts and the demo passages) and its chat
template's tokens per message come from it. Other models' tokenizers are not available offline
(OpenAI's encodings are downloaded on first use): their prompts count CHARS_PER_TOKEN characters a
token plus TEMPLATE_TOKENS per message. docs/servers.md gives the measured error.
"""
from __future__ import annotations

import functools

CHARS_PER_TOKEN = 4.0  # English prose in the GPT-4o / Llama 3 tokenizers: about 4 characters a token
TEMPLATE_TOKENS = 7  # a chat message's role markers and separators


@functools.lru_cache(maxsize=None)
def reference_text() -> str:
    """Text like the studies' prompts: every prompt of lib/prompts and the demo passages."""
    from lib.prompts import rag_rewardbench, self_preference, utility

    from .sizes import demo_records

    prompts = [v for m in (self_preference, utility, rag_rewardbench) for k, v in vars(m).items()
               if k.isupper() and isinstance(v, str)]
    passages = [r.get("human_passage") or "" for s in ("nq", "marco", "triviaqa") for r in demo_records(s)]
    return "\n\n".join(prompts + passages)


@functools.lru_cache(maxsize=None)
def calibration(model: str) -> tuple[float, tuple[int, int], str]:
    """(characters per token, template tokens of a prompt of one user message and of a system and a
    user message, where from) for a model spec: its own tokenizer for a converted embedded model,
    else the estimate."""
    from lib.models.specs import SpecError, parse_spec

    try:
        spec = parse_spec(model)
    except SpecError:
        return CHARS_PER_TOKEN, (TEMPLATE_TOKENS, 2 * TEMPLATE_TOKENS), "estimate"
    if spec.backend != "local":
        return CHARS_PER_TOKEN, (TEMPLATE_TOKENS, 2 * TEMPLATE_TOKENS), "estimate"
    from lib.paths import model_dir

    folder = model_dir() / spec.model
    if not (folder / "done.json").exists() or not (folder / "tokenizer.json").exists():
        return CHARS_PER_TOKEN, (TEMPLATE_TOKENS, 2 * TEMPLATE_TOKENS), "estimate"
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    text = reference_text()
    ratio = len(text) / max(len(tok.encode(text, add_special_tokens=False).ids), 1)
    template = (0, 0)
    if (folder / "chat_template.jinja").exists():  # a chat model: what its template adds (a default system turn too)
        import jinja2

        render = jinja2.Environment().from_string((folder / "chat_template.jinja").read_text()).render
        template = tuple(len(tok.encode(render(messages=m, add_generation_prompt=True), add_special_tokens=False).ids)
                         for m in ([{"role": "user", "content": ""}],
                                   [{"role": "system", "content": ""}, {"role": "user", "content": ""}]))
    return ratio, template, "its tokenizer"


def prompt_tokens(chars: int, messages: int = 1, model: str | None = None) -> int:
    """Estimated prompt tokens of `chars` characters sent as `messages` chat messages (1: a user
    turn; 2: a system and a user turn) to `model`."""
    ratio, template, _ = calibration(model) if model else calibration("")
    return int(round(chars / ratio)) + template[min(messages, 2) - 1]
