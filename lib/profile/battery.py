"""The bias profile's battery: which findings row (notebook, measure_id) gives each measure, and the
papers' numbers for the same measure (lib.paper_check.published) as reference rows.

A measure lists its findings `measure_ids` in order of preference: the likelihood reading first where
the notebook has one (the embedded models rarely answer in the papers' formats), then the paper's
generate-and-parse reading; the first one the run measured (n > 0) is the one shown. Nothing is
recomputed here: estimate, interval, n, p and Holm's p are the notebooks' (findings.csv).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lib.paper_check import published as pub

V1_MODELS = {"GPT": "gpt-3.5-turbo (v1)", "LLaMA": "LLaMA-2-70B-chat (v1)"}
V2_MODELS = {"GPT-3.5": "gpt-3.5-turbo (v2)", "LLaMA": "LLaMA-3.1-8B-Instruct (v2)"}
UTILITY_CHATGPT = "ChatGPT gpt-3.5-turbo-1106 (utility paper)"


@dataclass(frozen=True)
class Reference:
    """One printed number of a paper for a battery measure, in the measure's own scale."""

    paper: str
    table: str
    row: str
    column: str
    model: str  # the paper's model behind the number
    scale: float = 1.0  # printed value x scale = the measure's scale (percent -> share: 0.01)

    def cell(self) -> pub.Published:
        """The published cell this reference reads (KeyError if published.py lacks it)."""
        for c in pub.PROFILE_REFERENCES + pub.PUBLISHED:
            if (c.paper, c.table, c.row, c.column) == (self.paper, self.table, self.row, self.column):
                return c
        raise KeyError(f"{self.paper} {self.table} {self.row} / {self.column} is not in lib/paper_check/published.py")

    @property
    def value(self) -> float:
        """The printed value in the measure's scale."""
        return round(self.cell().value * self.scale, 10)

    def source(self) -> str:
        """Where the number is printed, e.g. 'self-preference-v1 Table 9, NQ / GPT / G & H, Front Preference'."""
        return f"{self.paper} {self.table}, {self.row}, {self.column}"


@dataclass(frozen=True)
class Measure:
    """One row of the bias card."""

    key: str
    label: str  # what is measured, in words
    notebook: str
    measure_ids: tuple[str, ...]  # findings rows, preferred first
    kind: str  # how a sentence reads it: diff_self, rate, asymmetry, f1, share, accuracy, consistency
    null: float | None  # the value of "no bias" / chance, drawn in the figure (None: no null)
    references: tuple[Reference, ...] = field(default_factory=tuple)
    reference_note: str = ""  # why there is no reference, or how the paper's measure differs
    phrase: str = ""  # the sentence's core, "{value}" = the formatted estimate (diff_self: chosen by sign)
    missing: str = "its parameters did not ask for it"  # why the notebook can run and give no row


def _v1(table: str, row: str, column: str, who: str, scale: float = 0.01) -> Reference:
    return Reference(pub.SP1, table, row, column, V1_MODELS[who], scale)


BATTERY: tuple[Measure, ...] = (
    Measure("self_pointwise", "Self-preference, pointwise: human minus own passage rating (1-5, RAG prompt, true passages)",
            "05_pointwise_reranking",
            ("human_minus_self.nq.rag.self_true.next_token_expected_score_after",
             "human_minus_self.nq.rag.self_true.paper_parsed_reply"),
            "diff_self", 0.0,
            (_v1("Table 3", "NQ / GPT", "RAG Diff (H - GPT)", "GPT", 1.0),
             _v1("Table 3", "NQ / LLaMA", "RAG Diff (H - LLaMA)", "LLaMA", 1.0)),
            "v1 Table 3 (RAG prompt, NQ) rates by parsed replies; the likelihood reading rates on the same 1-5 scale."),
    Measure("self_pairwise", "Self-preference, pairwise: share of pairs choosing its own passage over the human one (all factuality combinations, both orders)",
            "06_generation_phase", ("self_preference_rate.paper_parsed_reply",), "rate", 0.5,
            (Reference(pub.SP2, "Table 3", "GPT-3.5 / NQ", "Human (self)", V2_MODELS["GPT-3.5"], 0.01),
             Reference(pub.SP2, "Table 3", "LLaMA / NQ", "Human (self)", V2_MODELS["LLaMA"], 0.01)),
            "v2 Table 3 (own vs human, NQ); v1 has no cell over all combinations, so no LLaMA-2 number. "
            "The likelihood cannot decide same-answer (TT, FF) pairs, so this row is parsed replies only.",
            phrase='chooses its own passage over the human one in {value} of pairs'),
    Measure("self_asymmetry", "Self-preference, pairwise, likelihood: chose-the-true-passage rate when its own passage is true minus when it is false (TF minus FT)",
            "06_generation_phase", ("tf_minus_ft_asymmetry.likelihood_sum", "tf_minus_ft_asymmetry.paper_parsed_reply"),
            "asymmetry", 0.0, (), "No paper reports this difference (beyond the papers).",
            phrase='chooses the true passage {value} more often when its own passage is the true one'),
    Measure("position", "Position bias: share of pairs choosing the passage shown first",
            "06_generation_phase", ("first_position_rate.likelihood_sum", "first_position_rate.paper_parsed_reply"),
            "rate", 0.5,
            (_v1("Table 9", "NQ / GPT / G & H", "Front Preference", "GPT"),
             _v1("Table 9", "NQ / LLaMA / L & H", "Front Preference", "LLaMA")),
            "v1 Table 9 counts all own-vs-human pairs; the likelihood reading covers the TF/FT pairs only.",
            phrase='chooses the passage shown first in {value} of pairs'),
    Measure("factual", "Factual preference: share of factuality-asymmetric pairs choosing the true passage",
            "06_generation_phase", ("factual_preference_rate.likelihood_sum", "factual_preference_rate.paper_parsed_reply"),
            "rate", 0.5,
            (_v1("Table 11", "NQ / GPT / G & H", "Factuality Pref.", "GPT"),
             _v1("Table 11", "NQ / LLaMA / L & H", "Factuality Pref.", "LLaMA")),
            phrase='chooses the true passage in {value} of pairs where one passage is false'),
    Measure("style_qa", "Style preference: share of pairs using its own passage written from the QA pair over the human passage",
            "08_writing_style", ("style_preference.gen_by_qa.nq",), "rate", 0.5,
            (Reference(pub.SP1_ALT, "Table 7", "NQ / GPT", "Gen-By-QA Pref.", V1_MODELS["GPT"], 0.01),
             Reference(pub.SP1_ALT, "Table 7", "NQ / LLaMA", "Gen-By-QA Pref.", V1_MODELS["LLaMA"], 0.01)),
            "Both passages carry the same answer, so only parsed replies decide (no likelihood reading).",
            phrase='uses its own QA-written passage over the human one in {value} of pairs'),
    Measure("style_long", "Length preference: share of pairs using its own long passage over its own normal one",
            "08_writing_style", ("style_preference.long.nq",), "rate", 0.5,
            (Reference(pub.SP1_ALT, "Table 8", "NQ / GPT", "Long Passage Pref.", V1_MODELS["GPT"], 0.01),
             Reference(pub.SP1_ALT, "Table 8", "NQ / LLaMA", "Long Passage Pref.", V1_MODELS["LLaMA"], 0.01)),
            "Parsed replies only, as above.",
            phrase='uses its own long passage over its normal one in {value} of pairs',
            missing="configs/profile.yaml has 02 write no long passages (styles: [qa]): 300-token rewrites cost the time budget"),
    Measure("utility_f1", "Utility selection: set F1 (%) of the passages it selects as useful (utility prompts, listwise-set)",
            "10_relevance_vs_utility", ("set_f1.nq.utility",), "f1", None,
            (Reference(pub.UTILITY, "Table 2", "NQ / Utility", "F1 (listwise-set)", UTILITY_CHATGPT),
             Reference(pub.UTILITY, "Table 3", "LlaMa2-7B", "NQ F1 (Listwise-set)", "Llama-2-7B (utility paper)"),
             Reference(pub.UTILITY, "Table 3", "LlaMa2-13B", "NQ F1 (Listwise-set)", "Llama-2-13B (utility paper)")),
            "Parsed replies only (F1 over readable replies); the paper's Table 2 is ChatGPT, its Table 3 adds Llama-2.",
            phrase='selects useful passages with set F1 {value} (utility prompts)',
            missing="no reply was readable, and F1 needs one (see the unreadable row)"),
    Measure("relevance_f1", "Relevance selection: set F1 (%) of the passages it selects as relevant (relevance prompts, listwise-set)",
            "10_relevance_vs_utility", ("set_f1.nq.relevance",), "f1", None,
            (Reference(pub.UTILITY, "Table 2", "NQ / Relevance", "F1 (listwise-set)", UTILITY_CHATGPT),),
            "Parsed replies only; the paper has relevance prompts for ChatGPT alone.",
            phrase='selects relevant passages with set F1 {value} (relevance prompts)',
            missing="no reply was readable, and F1 needs one (see the unreadable row)"),
    Measure("utility_unreadable", "Unreadable listwise-set replies (utility prompts), % of questions",
            "10_relevance_vs_utility", ("unreadable_share.utility.listwise-set",), "share", None, (),
            "The paper reports no failures.",
            phrase='gives an unreadable selection for {value} of questions'),
    Measure("judge_accuracy", "Judge accuracy on RAG preference pairs (RAG-RewardBench prompt, both orders)",
            "13_rewardbench", ("judge_overall_accuracy.log_probability_verdict", "judge_overall_accuracy.generate_and_parse"),
            "accuracy", 0.5, (),
            "RAG-RewardBench tests no GPT-3.5 or LLaMA-2 judge (its judges are GPT-4o-class and reward models).",
            phrase='prefers the better (chosen) response on {value} of RAG preference pairs'),
    Measure("judge_consistency", "Judge order consistency: share of pairs given the same verdict in both orders",
            "13_rewardbench", ("judge_position_consistency.log_probability_verdict", "judge_position_consistency.generate_and_parse"),
            "consistency", None, (), "No paper reports it (beyond the papers).",
            phrase='gives the same verdict in both orders on {value} of pairs'),
)


def measure(key: str) -> Measure:
    """The battery measure with this key."""
    for m in BATTERY:
        if m.key == key:
            return m
    raise KeyError(f"No battery measure {key!r}; measures: {[m.key for m in BATTERY]}")


def notebooks() -> list[str]:
    """The notebooks whose findings the battery reads, in order."""
    return sorted({m.notebook for m in BATTERY})


def method_of(measure_id: str) -> str:
    """'likelihood' or 'generate-and-parse' (the paper's replies), from a findings measure_id."""
    likely = ("next_token", "likelihood", "log_probability")
    return "likelihood" if any(k in measure_id for k in likely) else "generate-and-parse"
