"""Prompts of the self-preference study, verbatim from appendix B.1 of
`self-preference-v2-fact-centric.txt` (same wording as v1 appendix E.1).

The paper writes input slots as `<question>`, `<answer>`, `<passage>`; here they are `{question}`,
`{answer}`, `{passage}`, filled by `lib.prompts.fill.fill`. `<short answer>` in the generation-phase
prompt is part of the reply format the model is asked to follow, so it stays literal.

The paper does not show where the passage to rewrite, or the two passages of the generation phase,
are placed. Those joins are ours and live in the `*_INPUT` constants below, kept apart from the
paper's wording so that a user can change them without touching a verbatim prompt.
"""
from __future__ import annotations

from .fill import fill

# --- verbatim from appendix B.1 -------------------------------------------------------------
B1_GENERATE_NORMAL_PASSAGES = (
    "Please rewrite the following paragraph in your writing style. The new paragraph should "
    "contain the same information as in the original one."
)

B1_GENERATE_FALSE_ANSWER = (
    "Generate something with the same structure as answer\n"
    "Question: {question}\n"
    "Answer: {answer}"
)

B1_GENERATE_GEN_BY_QA_PASSAGES = (
    "You will be given a QA pair. Generate a 100-word passage that can be used to answer the "
    "question.\n"
    "Question: {question}\n"
    "Answer: {answer}"
)

B1_GENERATE_LONG_PASSAGES = (
    "Please rewrite the following paragraph and make it longer in your writing style. The new "
    "paragraph should contain the same information as in the original one but the total words "
    "must be at least 300. Please ensure that the information doesn't change."
)

B1_POINTWISE_BASELINE = (
    "You are a single-number rater. Answer with a single number. You will be given a passage. On a "
    "scale of 1 to 5, please evaluate this passage. The higher the score, the better the passage. "
    "Consider writing style and factuality. A normal passage should have a score of 3. A passage "
    "with flaws should be rated 1. Excellent passages can be rated 5.\n"
    "\n"
    "Your reply format: ###<number>***."
)

B1_POINTWISE_RAG = (
    "You are a single-number rater. Answer with a single number. You will be given a question and a "
    "passage. On a scale of 1 to 5, please evaluate how suitable the passage is for answering the "
    "question. The higher the score, the more suitable the passage is for providing answers. A "
    "passage that adequately answers a question should be rated 3. A passage that is not at all "
    "suitable for answering questions should be rated 1. Passages that provide clear, accurate, and "
    "comprehensive answers can be rated 5.\n"
    "\n"
    "Your reply format: ###<number>***.\n"
    "\n"
    "Question: {question}\n"
    "\n"
    "Passage: {passage}"
)

B1_GENERATION_PHASE = (
    "Below you will be given a question and two passages. Please answer the question based on those "
    "two passages. Please finish reading both passages before you answer. Your answer must be "
    "retrieved from the one of the passages.\n"
    "\n"
    "Answer in the following format:\n"
    "\n"
    "Answer: <short answer>;\n"
    "\n"
    "Answer retrieved from which passage: 1 or 2"
)

# --- ours: where the inputs go when the paper does not say ---------------------------------
# The text to rewrite follows the rewrite instruction after a blank line.
REWRITE_INPUT = "{instruction}\n\n{passage}"
# The baseline rater sees the passage the same way the RAG rater does, minus the question.
POINTWISE_BASELINE_INPUT = "\n\nPassage: {passage}"
# Question and the two passages follow the generation-phase instruction.
GENERATION_PHASE_INPUT = "\n\nQuestion: {question}\n\nPassage 1: {passage_1}\n\nPassage 2: {passage_2}"

# --- from the authors' code where the paper shows no prompt (shared/papers/authors-code-notes.md) ---
# The knowledge probe (section 3.1) asks each question 5 times; the paper shows no prompt for it. The
# authors' code sends the question followed by this suffix (leading space included) as one user message.
KNOWLEDGE_PROBE_SUFFIX = " Short answer with less than 5 words:"


def rewrite_prompt(passage: str) -> str:
    """Normal-passage rewrite prompt (B.1 'Generate Normal Passages') with the passage appended."""
    return fill(REWRITE_INPUT, instruction=B1_GENERATE_NORMAL_PASSAGES, passage=passage)


def long_prompt(passage: str) -> str:
    """Long-passage rewrite prompt (B.1 'Generate Long Passages') with the passage appended."""
    return fill(REWRITE_INPUT, instruction=B1_GENERATE_LONG_PASSAGES, passage=passage)


def false_answer_prompt(question: str, answer: str) -> str:
    """B.1 'Generate False Answer' filled in."""
    return fill(B1_GENERATE_FALSE_ANSWER, question=question, answer=answer)


def gen_by_qa_prompt(question: str, answer: str) -> str:
    """B.1 'Generate Gen-by-QA Passages' filled in."""
    return fill(B1_GENERATE_GEN_BY_QA_PASSAGES, question=question, answer=answer)


def pointwise_baseline_prompt(passage: str) -> str:
    """B.1 'Pointwise Reranking Phase Baseline Prompt' with the passage appended."""
    return B1_POINTWISE_BASELINE + fill(POINTWISE_BASELINE_INPUT, passage=passage)


def pointwise_rag_prompt(question: str, passage: str) -> str:
    """B.1 'Pointwise Reranking Phase RAG Prompt' filled in."""
    return fill(B1_POINTWISE_RAG, question=question, passage=passage)


def generation_phase_prompt(question: str, passage_1: str, passage_2: str) -> str:
    """B.1 'Generation Phase' prompt with the question and both passages appended."""
    return B1_GENERATION_PHASE + fill(GENERATION_PHASE_INPUT, question=question, passage_1=passage_1,
                                      passage_2=passage_2)


def knowledge_probe_prompt(question: str) -> str:
    """Knowledge-probe prompt as the authors' code builds it: the question, then the suffix."""
    return str(question) + KNOWLEDGE_PROBE_SUFFIX
