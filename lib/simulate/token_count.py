"""The simulator's own count of the prompt tokens it receives, as a server that tokenizes would count
them: SmolLM2's tokenizer (the embedded model's `tokenizer.json`, from its converted folder) over the
request as a ChatML server renders it (each message `<|im_start|>role\\n` content `<|im_end|>\\n`,
then `<|im_start|>assistant\\n`; the markers are one token each), or over the raw prompt of a
completion. No default system turn is added, and nothing of lib.planning is used: the
count is the instrument the plan's token estimate is measured against.

It costs about 1 microsecond of CPU per character here, so the server counts only when asked
(`SimServer(count_tokens=True)`, `validate --count-tokens`)."""
from __future__ import annotations

import json

TOKENIZER_MODEL = "smollm2"  # an embedded model's folder under the converted models (lib.paths.model_dir)
REPLY_START = "<|im_start|>assistant\n"


def chatml(messages: list[dict]) -> str:
    """The messages as one ChatML text, ending where the assistant's reply starts."""
    parts = []
    for m in messages:
        content = m.get("content")
        text = content if isinstance(content, str) else json.dumps(content)
        parts.append(f"<|im_start|>{m.get('role', 'user')}\n{text}<|im_end|>\n")
    return "".join(parts) + REPLY_START


class PromptTokens:
    """Counts a request body's prompt tokens with one tokenizer (loaded once)."""

    rule = (f"{TOKENIZER_MODEL}'s tokenizer over the ChatML rendering of the messages (no default system "
            "turn), or over the raw prompt")

    def __init__(self, tokenizer_file=None):
        from tokenizers import Tokenizer

        from lib.models.gguf_models import converted_folder  # converted once, as every embedded use does

        path = tokenizer_file or converted_folder(TOKENIZER_MODEL) / "tokenizer.json"
        self._tok = Tokenizer.from_file(str(path))

    def count(self, body: dict) -> int:
        """Prompt tokens of one chat or completion request body."""
        text = chatml(body["messages"]) if "messages" in body else str(body.get("prompt") or "")
        return len(self._tok.encode(text, add_special_tokens=False).ids)
