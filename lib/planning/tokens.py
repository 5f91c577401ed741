"""Prompt tokens of a planned request, estimated from its characters.

No tokenizer of a paid model is available offline (OpenAI's encodings are downloaded on first use), so
a prompt's tokens are its characters over CHARS_PER_TOKEN plus a few tokens of chat template per
message. docs/servers.md gives the estimate's measured error against the tokens the models counted.
"""
from __future__ import annotations

CHARS_PER_TOKEN = 4.0  # English prose in the GPT-4o / Llama 3 tokenizers: about 4 characters a token
TEMPLATE_TOKENS = 7  # a chat message's role markers and separators


def prompt_tokens(chars: int, messages: int = 1) -> int:
    """Estimated prompt tokens of `chars` characters sent as `messages` chat messages."""
    return int(round(chars / CHARS_PER_TOKEN)) + TEMPLATE_TOKENS * messages
