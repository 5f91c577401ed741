"""The planted length term of 08's style pairs (`pairwise.length`: log-odds per 100 words toward the
longer passage of a pair that shows a gen-by-QA or long passage), as the server applies it and as the
truths integrate it. The simulator counts the words of the two passages it is shown (whitespace-
separated); a truth reads the same counts from the run's bank, subsampled and paired as 08 pairs it
(`design_pairs`: the run's data, never its replies). 06's pairs, both of normal style, carry no length
term, so their truths read no lengths."""
from __future__ import annotations

from pathlib import Path

from ..core import planted as M

PER_WORDS = 100.0
NB = "08_writing_style"
# whose the two passages of a kind's pair are (the styled one first): the own gen-by-QA passage against
# the human one, the own long passage against the own normal one
OWN = {"gen_by_qa": (True, False), "long": (True, True)}


def styled_logits(truth, kind: str) -> tuple[float, float, float]:
    """(question-effect sd, log-odds of choosing passage 1 with the styled passage shown first, the
    same with it shown second) of a `kind` pair of true passages, before any length term."""
    own = OWN[kind]
    return (M.pair_sd(truth, own, (True, True)), M.pair_logit(truth, own, (True, True), 0.0, (True, False)),
            M.pair_logit(truth, own[::-1], (True, True), 0.0, (False, True)))


def word_count(text: str) -> int:
    """Words of a passage, as the simulator counts them (whitespace-separated)."""
    return len(str(text).split())


def length_lean(truth, styled: tuple, text_1: str, text_2: str) -> float:
    """The planted log-odds shift toward passage 1 of a generation-phase pair: 0 unless a styled
    passage is shown (08's pairs)."""
    if not any(styled) or not truth.pairwise.length:
        return 0.0
    return truth.pairwise.length * (word_count(text_1) - word_count(text_2)) / PER_WORDS


def styled_leans(truth, design, kind: str, dataset: str | None = None) -> list[float]:
    """The planted length terms toward the styled passage of the run's `kind` pairs (of `dataset`,
    or all), one per pair; [0.0] without pairs or a planted length (the passages taken as equal)."""
    if not truth.pairwise.length:
        return [0.0]
    got = [truth.pairwise.length * d / PER_WORDS for k, ds, d in getattr(design, "style_pairs", ())
           if k == kind and (dataset is None or ds == dataset)]
    return got or [0.0]


def design_pairs(cfg: dict, run_dir: Path) -> tuple:
    """08's style pairs as the run asks them, from the run's bank: (kind, dataset, styled minus other
    passage's words) of every pair whose styled passage is not the human's (in a validate run the one
    evaluator wrote them all: the pairs its findings rows read); () without a bank or 08 in the run."""
    from lib.self_preference.bank import load_bank, subsample_bank
    from lib.self_preference.pairwise import STYLE_COMPARISONS, style_pairs
    from lib.self_preference.release import drop_style_duplicates

    from ..utility.design import notebook_parameters

    if NB not in (cfg.get("per_notebook") or {}):
        return ()
    p = notebook_parameters(cfg, NB)  # the runner's own reading: command line, notebook, run, defaults
    path = Path(p["bank_path"] or Path(run_dir) / "passage_bank.jsonl")
    if not path.exists():
        return ()
    bank = subsample_bank(load_bank(path), p["n_items"], p["datasets"] or None, int(p["seed"]))
    kept, _ = drop_style_duplicates(bank)
    out = []
    for kind, focus_style, other in STYLE_COMPARISONS:
        pairs = style_pairs(kept, focus_style, other)
        pairs = pairs[(pairs["status"] == "ok") & (pairs["a_author"] != "human") & (pairs["order"] == "a_first")]
        out += [(kind, str(ds), word_count(a) - word_count(b)) for ds, a, b in
                zip(pairs["dataset"], pairs["text_1"], pairs["text_2"])]
    return tuple(out)
