"""Prompts of the utility-judgment study (`utility-judgments.txt`).

The paper's Figure 2 (the judgment and QA prompts) is lost from its text. The judgment prompts below
are the AUTHORS' templates, copied character for character from their published scripts as recorded
in `shared/papers/authors-code-notes.md` (a test compares them with that file). Each form has a
system part and a user part; `exp` / `exp_useful` are the slot where the requirement factor goes
(empty by default, as published). Passage labels as published: `Passage-0`, `Passage-1`, ... (from 0)
for pointwise / pairwise / listwise-set, `[0]`, `[1]`, ... for listwise-rank.

OUR choices, marked where they are made:
- relevance prompts (2.3.3): the authors' templates with "relevance" for "utility" (the repository
  has none);
- passages-first layout (section 4, Figure 4): the same sentences with the passages moved before the
  question;
- the section 4 extra requirements COT ("Let's think step by step", quoted by the paper), reasoning
  and answer-first (the paper's paraphrases) fill the `exp` slot; the requirement level
  "requirement" is the authors' requirement sentence;
- QA prompts (2.3.4), factoid and non-factoid, written to the paper's description.
The counterfactual-evidence prompt of section 2.2.4 is verbatim from the paper.
"""
from __future__ import annotations

from .fill import fill

# --- 2.2.4 generation-based counterfactual passages: verbatim ----------------------------------
# The paper's quotation ends in "Evidence:." where the final period closes the sentence of the
# paper, not the prompt, so the prompt ends at "Evidence:".
S224_GENERATE_COUNTERFACTUAL_EVIDENCE = (
    "Given a claim, please write a short piece of evidence to support it. The maximum length of the "
    "generated evidence is 100 words. You can fabricate content, but it should be as realistic as "
    "possible. Claim: {claim} Evidence:"
)

# --- 2.3.2 utility prompts: the authors' scripts, verbatim -------------------------------------
AUTHORS_POINTWISE_INSTRUCT = (
    "Please first provide a brief reasoning you used to judge whether the passage has utility in "
    "answering the above question or not and tell me your overall judgment, like 'My judgment: yes/no'."
)
AUTHORS_PAIRWISE_INSTRUCT = (
    "Please tell me which passage would contribute more utility to answering the above question, "
    "like 'My choice: Passage-0 or Passage-1'."
)
AUTHORS_LISTWISE_SET_INSTRUCT = (
    "Please first provide the answer to the question based on the passage(s) with utility in "
    "answering the question that you have selected and then write 'My selection: [<passage-i>, ...]' "
    "in the last line."
)
AUTHORS_LISTWISE_RANK_INSTRUCT = (
    "Please first provide the answer based on the passages that you have ranked in utility and then  "
    "write the ranked passages in descending order of utility in answering the question, like "
    "'My rank: [i]>[j]>...>[k]'."
)
AUTHORS_POINTWISE_SYSTEM = ("Given a question and passage, please judge whether the passage has "
                            "utility in answering the question.")
AUTHORS_PAIRWISE_SYSTEM = ("Given a question and two passages, please help me determine which passage "
                           "would contribute more utility to answering the above question.")
AUTHORS_LISTWISE_SET_SYSTEM = ("Given a question and select the passage(s) with utility in answering "
                               "the question from the given passages.\n")
AUTHORS_LISTWISE_RANK_SYSTEM = ("Given a question and rank all following passages in descending order "
                                "based on their utility in answering the question.\n")
AUTHORS_POINTWISE_USER = "Given a question: {question}, a passage: {pair} \n"
AUTHORS_PAIRWISE_USER = "Given a question: {question}, two passages: {pair} \n"
AUTHORS_LISTWISE_SET_USER = ("Given a question: {question}. Please select the passage(s) with utility "
                             "in answering the question from the following {number} passages: "
                             "\n{paras} \n")
# Two spaces after "all", as published.
AUTHORS_LISTWISE_RANK_USER = ("Given a question: {question}. Please rank all  following {number} "
                              "passages based on their utility in answering the question: \n{paras} \n")
# The published scripts' commented-out requirement sentence (the "requirement" level of the factor).
AUTHORS_REQUIREMENT = ("Requirement for utility: \n Utility denotes that employing the passage can help "
                       "in answering the question.\n")

# --- passages-first layout (OURS, section 4 / Figure 4): the same parts, passages before question ---
OURS_PASSAGES_FIRST_USER = {
    "pointwise": "A passage: {pair} \nGiven a question: {question} \n",
    "pairwise": "Two passages: {pair} \nGiven a question: {question} \n",
    "listwise-set": ("The following {number} passages: \n{paras} \nGiven a question: {question}. Please "
                     "select the passage(s) with utility in answering the question from the above "
                     "{number} passages. \n"),
    "listwise-rank": ("The following {number} passages: \n{paras} \nGiven a question: {question}. Please "
                      "rank all above {number} passages based on their utility in answering the "
                      "question. \n"),
}

# --- section 4 extra requirements, in the exp slot (COT quoted by the paper; others paraphrased) --
S4_REQUIREMENTS = {
    "none": "",
    "requirement": AUTHORS_REQUIREMENT,
    "cot": "Let's think step by step.",
    "reasoning": "Provide a brief reasoning before giving the output.",
    "answer": "Provide the answer to the question before giving the output.",
}

FORMS = ("pointwise", "pairwise", "listwise-set", "listwise-rank")
JUDGMENTS = ("utility", "relevance")


def passage_label(form: str, index: int) -> str:
    """The published label of passage `index` (0-based) in a form."""
    return f"[{index}]: " if form == "listwise-rank" else f"Passage-{index}: "


def format_paras(passages: list[str], form: str) -> str:
    """Passages with the published labels, joined as the scripts join them."""
    if form == "pairwise":
        return "\n" + "Passage-0: " + passages[0] + "\n" + "Passage-1: " + passages[1]
    if form == "pointwise":
        return passages[0]
    return "\n".join(passage_label(form, i) + p for i, p in enumerate(passages))


def _templates(form: str, requirement: str) -> tuple[str, str, str]:
    """(system, user template, instruct) of a form with the requirement text in the exp slot."""
    exp = S4_REQUIREMENTS[requirement]
    if form == "pointwise":
        return (AUTHORS_POINTWISE_SYSTEM + exp + "\n" + AUTHORS_POINTWISE_INSTRUCT,
                AUTHORS_POINTWISE_USER + exp + "\n", AUTHORS_POINTWISE_INSTRUCT)
    if form == "pairwise":
        # The published pairwise script has no exp slot; the requirement goes where the others put it.
        return (AUTHORS_PAIRWISE_SYSTEM + exp + "\n" + AUTHORS_PAIRWISE_INSTRUCT,
                AUTHORS_PAIRWISE_USER + exp + "\n", AUTHORS_PAIRWISE_INSTRUCT)
    if form == "listwise-set":
        return (AUTHORS_LISTWISE_SET_SYSTEM + exp + "\n" + AUTHORS_LISTWISE_SET_INSTRUCT,
                AUTHORS_LISTWISE_SET_USER + exp + "\n", AUTHORS_LISTWISE_SET_INSTRUCT)
    # The published rank system prompt has no exp and no instruct.
    return (AUTHORS_LISTWISE_RANK_SYSTEM, AUTHORS_LISTWISE_RANK_USER + exp + "\n",
            AUTHORS_LISTWISE_RANK_INSTRUCT)


def judgment_messages(question: str, passages: list[str], judgment: str = "utility",
                      form: str = "listwise-set", order: str = "question-first",
                      requirement: str = "none") -> list[dict]:
    """System + user messages of one judgment (one passage for pointwise, two for pairwise)."""
    if form not in FORMS or judgment not in JUDGMENTS:
        raise ValueError(f"form={form!r}, judgment={judgment!r}: forms {FORMS}, judgments {JUDGMENTS}.")
    if order not in ("question-first", "passages-first"):
        raise ValueError(f"order={order!r}: use 'question-first' or 'passages-first'.")
    if requirement not in S4_REQUIREMENTS:
        raise ValueError(f"requirement={requirement!r}: choose one of {list(S4_REQUIREMENTS)}.")
    system, user, instruct = _templates(form, requirement)
    if order == "passages-first":
        user = OURS_PASSAGES_FIRST_USER[form] + S4_REQUIREMENTS[requirement] + "\n"
    user = user + instruct
    if judgment == "relevance":
        # OUR relevance variant: the templates' words with "relevance" for "utility" (before filling,
        # so a question or passage that says "utility" stays as it is).
        system, user = (t.replace("utility", "relevance").replace("Utility", "Relevance")
                        for t in (system, user))
    paras = format_paras(passages, form)
    user = fill(user, question=question, number=len(passages), pair=paras, paras=paras)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def as_text(messages: list[dict]) -> str:
    """One string for base LMs without a chat template: system, blank line, user."""
    return "\n\n".join(m["content"] for m in messages)


# --- 2.3.4 QA prompts (OURS; Figure 2 (g)-(h) lost) --------------------------------------------
S234_QA_FACTOID = (
    "Answer the question using the passages below. Reply with the short answer only, a few words "
    "at most.\n\nQuestion: {question}\n\n{passages}\n\nAnswer:"
)
S234_QA_NON_FACTOID = (
    "Answer the question using the passages below. Reply with one complete sentence.\n\n"
    "Question: {question}\n\n{passages}\n\nAnswer:"
)
S234_QA_FACTOID_NO_EVIDENCE = (
    "Answer the question. Reply with the short answer only, a few words at most.\n\n"
    "Question: {question}\n\nAnswer:"
)
S234_QA_NON_FACTOID_NO_EVIDENCE = (
    "Answer the question. Reply with one complete sentence.\n\nQuestion: {question}\n\nAnswer:"
)


def qa_prompt(question: str, passages: list[str], factoid: bool = True) -> str:
    """Fill the QA prompt (factoid or non-factoid), without evidence when passages is empty."""
    if not passages:
        template = S234_QA_FACTOID_NO_EVIDENCE if factoid else S234_QA_NON_FACTOID_NO_EVIDENCE
        return fill(template, question=question)
    template = S234_QA_FACTOID if factoid else S234_QA_NON_FACTOID
    return fill(template, question=question, passages="\n".join(
        passage_label("listwise-set", i) + p for i, p in enumerate(passages)))


def counterfactual_evidence_prompt(claim: str) -> str:
    """Section 2.2.4 prompt asking for realistic fake evidence that supports a false claim."""
    return fill(S224_GENERATE_COUNTERFACTUAL_EVIDENCE, claim=claim)
