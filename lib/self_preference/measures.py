"""The self-preference study's findings measures (lib.report.measures), declared once: notebooks 03,
05, 06 and 08 write them, compare pairs 05's across runs from its records, the bias card reads `CARD`."""
from __future__ import annotations

from lib.paper_check import published as pub
from lib.report.measures import CardRow, Judgments, Measure, Reference, secondary_family

from .judgments import PAIRS_FILE, RATINGS_FILE, pair_judgments, rating_judgments
from .tables import UNIT
from .units import HUMAN_MINUS_SELF_ID, pointwise_units

STUDY = "self-preference"
# the Holm family of the readings beyond the paper's (likelihoods, the order-balanced rate): tested
# beside each other, never beside the paper's reading of the same quantity
SECONDARY = secondary_family(STUDY)
PAPER = "paper_parsed_reply"  # slug of the paper's method ("paper (parsed reply)"): the primary reading
LIKELIHOOD = "likelihood"  # every other method reads the evaluator's likelihoods (beyond the papers)
# the known-truth check's functions that give these measures' truths (lib.simulate, named, never imported)
PAPER_TRUTH = "lib.simulate.self_preference.truth:paper_reading_truths"
LIKELIHOOD_TRUTH = "lib.simulate.self_preference.likelihood_truth:likelihood_truths"
# why the known-truth check (lib.simulate) has no truth for 06's likelihood self-preference rate
NO_LIKELIHOOD_TRUTH = ("the likelihood decides only pairs with two answer strings (TF, FT); TT and FF pairs, "
                       "where the own passage differs, are undecidable, so the rate is not reported")


# where the inspector (lib.inspect) finds each notebook's judgments: the unit is the question
RATINGS = Judgments(RATINGS_FILE, ("dataset", "item_id"), rating_judgments)
PAIRS = Judgments(PAIRS_FILE, ("dataset", "item_id"), pair_judgments, pairwise=True)
NO_REPLY = "perplexity is a likelihood of the passage text: no judgment, no reply"
NO_STYLE_RECORDS = "notebook 08 keeps its styled pairs' replies in memory only (no records file in the run)"
_HMS_AXIS = "human minus own-passage rating (< 0: own passages rated higher)"
_common = dict(study=STUDY, null=0.5, unit=UNIT)

MEASURES: tuple[Measure, ...] = (
    Measure("ppl_human_minus_model.{dataset}.{test}", "PPL human minus model", STUDY, "03_perplexity", "item", 0.0,
            axis="perplexity, human minus model (> 0: model text more fluent)", truth=LIKELIHOOD_TRUTH,
            no_judgments=NO_REPLY),
    Measure(HUMAN_MINUS_SELF_ID.replace("{method}", PAPER), "human-minus-self rating", STUDY,
            "05_pointwise_reranking", "item", 0.0, axis=_HMS_AXIS, units=pointwise_units, unit_key="question",
            truth=PAPER_TRUTH, judgments=RATINGS),
    Measure(HUMAN_MINUS_SELF_ID, "human-minus-self rating (likelihood reading)", STUDY, "05_pointwise_reranking",
            "item", 0.0, reading="secondary", family=SECONDARY, method=LIKELIHOOD, axis=_HMS_AXIS, units=pointwise_units,
            unit_key="question", truth=LIKELIHOOD_TRUTH, judgments=RATINGS),
    *(Measure(f"{kind}.{method}", name + ("" if method == PAPER else " (likelihood reading)"),
              notebook="06_generation_phase", reading="primary" if method == PAPER else "secondary",
              family="" if method == PAPER else SECONDARY,
              method="generate-and-parse" if method == PAPER else LIKELIHOOD, axis=axis,
              truth=PAPER_TRUTH if method == PAPER else "" if kind == "self_preference_rate" else LIKELIHOOD_TRUTH,
              no_truth="" if method == PAPER or kind != "self_preference_rate" else NO_LIKELIHOOD_TRUTH, **_common, judgments=PAIRS)
      for kind, name, axis in (
          ("self_preference_rate", "self-preference rate", "share choosing the own passage (0.5: no preference)"),
          ("first_position_rate", "first-position rate", "share choosing the first passage (0.5: no position bias)"),
          ("factual_preference_rate", "factual preference rate", "share choosing the true passage (0.5: chance)"))
      for method in (PAPER, "{method}")),
    *(Measure(f"tf_minus_ft_asymmetry.{method}", "TF-minus-FT asymmetry of factual choice (beyond the papers)",
              STUDY, "06_generation_phase", UNIT, 0.0, reading="primary" if method == PAPER else "secondary",
              family="" if method == PAPER else SECONDARY,
              method="generate-and-parse" if method == PAPER else LIKELIHOOD,
              axis="P(true | own true) - P(true | own false) (> 0: own passage favoured)",
              truth=PAPER_TRUTH if method == PAPER else LIKELIHOOD_TRUTH, judgments=PAIRS)
      for method in (PAPER, "{method}")),
    # beyond the papers: the mean of the two orders' self-preference rates, so order-dependent parse
    # failures cannot leak position bias into it; a second reading of the self-preference rate
    Measure("order_balanced_self_preference_rate.{method}", "order-balanced self-preference rate",
            notebook="06_generation_phase", reading="secondary", family=SECONDARY, method="generate-and-parse",
            axis="mean of both orders' shares choosing the own passage (0.5: no preference)", truth=PAPER_TRUTH,
            judgments=PAIRS, **_common),
    Measure("style_preference.{kind}.{dataset}", "style preference rate", notebook="08_writing_style",
            axis="share using the own styled passage (0.5: no preference)", truth=PAPER_TRUTH, **_common, no_judgments=NO_STYLE_RECORDS),
)

V1_MODELS = {"GPT": "gpt-3.5-turbo (v1)", "LLaMA": "LLaMA-2-70B-chat (v1)"}
V2_MODELS = {"GPT-3.5": "gpt-3.5-turbo (v2)", "LLaMA": "LLaMA-3.1-8B-Instruct (v2)"}


def _v1(table: str, row: str, column: str, who: str, scale: float = 0.01) -> Reference:
    return Reference(pub.SP1, table, row, column, V1_MODELS[who], scale)


# The bias card's rows of this study: the likelihood reading first where the notebook has one (the
# embedded models rarely answer in the papers' formats), then the paper's reading.
CARD: tuple[CardRow, ...] = (
    CardRow("self_pointwise", "Self-preference, pointwise: human minus own passage rating (1-5, RAG prompt, true passages)",
            ("human_minus_self.nq.rag.self_true.next_token_expected_score_after",
             "human_minus_self.nq.rag.self_true.paper_parsed_reply"),
            "diff_self", 0.0,
            (_v1("Table 3", "NQ / GPT", "RAG Diff (H - GPT)", "GPT", 1.0),
             _v1("Table 3", "NQ / LLaMA", "RAG Diff (H - LLaMA)", "LLaMA", 1.0)),
            "v1 Table 3 (RAG prompt, NQ) rates by parsed replies; the likelihood reading rates on the same 1-5 scale."),
    CardRow("self_pairwise", "Self-preference, pairwise: share of pairs choosing its own passage over the human one (all factuality combinations, both orders)",
            ("self_preference_rate.paper_parsed_reply",), "rate", 0.5,
            (Reference(pub.SP2, "Table 3", "GPT-3.5 / NQ", "Human (self)", V2_MODELS["GPT-3.5"], 0.01),
             Reference(pub.SP2, "Table 3", "LLaMA / NQ", "Human (self)", V2_MODELS["LLaMA"], 0.01)),
            "v2 Table 3 (own vs human, NQ); v1 has no cell over all combinations, so no LLaMA-2 number. "
            "The likelihood cannot decide same-answer (TT, FF) pairs, so this row is parsed replies only.",
            phrase='chooses its own passage over the human one in {value} of pairs'),
    CardRow("self_asymmetry", "Self-preference, pairwise, likelihood: chose-the-true-passage rate when its own passage is true minus when it is false (TF minus FT)",
            ("tf_minus_ft_asymmetry.likelihood_sum", "tf_minus_ft_asymmetry.paper_parsed_reply"),
            "asymmetry", 0.0, (), "No paper reports this difference (beyond the papers).",
            phrase='chooses the true passage {value} more often when its own passage is the true one'),
    CardRow("position", "Position bias: share of pairs choosing the passage shown first",
            ("first_position_rate.likelihood_sum", "first_position_rate.paper_parsed_reply"),
            "rate", 0.5,
            (_v1("Table 9", "NQ / GPT / G & H", "Front Preference", "GPT"),
             _v1("Table 9", "NQ / LLaMA / L & H", "Front Preference", "LLaMA")),
            "v1 Table 9 counts all own-vs-human pairs; the likelihood reading covers the TF/FT pairs only.",
            phrase='chooses the passage shown first in {value} of pairs'),
    CardRow("factual", "Factual preference: share of factuality-asymmetric pairs choosing the true passage",
            ("factual_preference_rate.likelihood_sum", "factual_preference_rate.paper_parsed_reply"),
            "rate", 0.5,
            (_v1("Table 11", "NQ / GPT / G & H", "Factuality Pref.", "GPT"),
             _v1("Table 11", "NQ / LLaMA / L & H", "Factuality Pref.", "LLaMA")),
            phrase='chooses the true passage in {value} of pairs where one passage is false'),
    CardRow("style_qa", "Style preference: share of pairs using its own passage written from the QA pair over the human passage",
            ("style_preference.gen_by_qa.nq",), "rate", 0.5,
            (Reference(pub.SP1_ALT, "Table 7", "NQ / GPT", "Gen-By-QA Pref.", V1_MODELS["GPT"], 0.01),
             Reference(pub.SP1_ALT, "Table 7", "NQ / LLaMA", "Gen-By-QA Pref.", V1_MODELS["LLaMA"], 0.01)),
            "Both passages carry the same answer, so only parsed replies decide (no likelihood reading).",
            phrase='uses its own QA-written passage over the human one in {value} of pairs'),
    CardRow("style_long", "Length preference: share of pairs using its own long passage over its own normal one",
            ("style_preference.long.nq",), "rate", 0.5,
            (Reference(pub.SP1_ALT, "Table 8", "NQ / GPT", "Long Passage Pref.", V1_MODELS["GPT"], 0.01),
             Reference(pub.SP1_ALT, "Table 8", "NQ / LLaMA", "Long Passage Pref.", V1_MODELS["LLaMA"], 0.01)),
            "Parsed replies only, as above.",
            phrase='uses its own long passage over its normal one in {value} of pairs',
            missing="configs/profile.yaml has 02 write no long passages, only QA-styled ones, to keep the profile within its time"),
)
