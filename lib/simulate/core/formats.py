"""The reply formats the papers' prompts ask for, typed here from the papers themselves (not read from
the pipeline's templates, which the simulator uses only to find a prompt's fields): the simulator
answers in a paper's format only when the prompt it is sent asks for that format, so a template that
loses its format instruction gets replies no parser reads (tests/simulate/test_paper_pins.py checks
each phrase against the paper text)."""
from __future__ import annotations

# task kind -> the phrases its prompt must hold (whitespace aside)
FORMAT_ASKED = {
    # self-preference papers (v1 and v2), appendix prompt "Generation Phase"
    "pair": ("Answer in the following format:", "Answer: <short answer>;",
             "Answer retrieved from which passage: 1 or 2"),
    # self-preference papers, the pointwise reranking prompts (baseline and RAG)
    "rate": ("Your reply format: ###<number>***.",),
    # RAG-RewardBench, Table 6's judge prompt (system part)
    "judge": ('Your final prediction should strictly follow this format: "Choose 1" if Response 1 is better, '
              '"Choose 2" if Response 2 is better.',),
}


def flat(text: str) -> str:
    """A text with its whitespace collapsed (a prompt's layout may re-wrap it)."""
    return " ".join(str(text).split())


def asks_format(kind: str, prompt: str) -> bool:
    """Whether `prompt` (every message of the request) asks for the paper's reply format of this task
    kind; True for kinds with no format typed here."""
    phrases = FORMAT_ASKED.get(kind)
    if not phrases:
        return True
    text = flat(prompt)
    return all(flat(p) in text for p in phrases)
