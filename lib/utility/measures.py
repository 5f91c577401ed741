"""The utility study's findings measures (lib.report.measures), declared once: notebooks 10, 11 and 12
write them (lib.utility.findings_rows); the bias card reads `CARD`. Notebook 09 builds the candidate
sets the others judge and states no finding (its tables describe the data)."""
from __future__ import annotations

from lib.paper_check import published as pub
from lib.report.measures import CardRow, Judgments, Measure, Reference

from .judgments import RQ1_FILE, listwise_judgments

STUDY = "utility"
NOTEBOOK = "10_relevance_vs_utility"
NB11, NB12 = "11_utility_factors", "12_utility_for_answering"
# the known-truth check's function that gives every measure's truth here (lib.simulate, named, never imported)
TRUTH = "lib.simulate.utility.truth:utility_truths"
# where the inspector (lib.inspect) finds 10's judgments: one listwise reply per question, judgment and form
LISTWISE = Judgments(RQ1_FILE, ("id",), listwise_judgments)
NO_RQ2 = ("11 keeps its replies (utility_rq2_replies.jsonl), but its rows are per-question differences between "
          "conditions; the inspector does not lay them out (see the notebook's tables)")
NO_RQ3 = ("12's rows score generated answers against the gold answer (F1 / ROUGE-L): no parsed judgment; "
          "its selection replies (utility_rq3_replies.jsonl) are not laid out by the inspector")

MEASURES: tuple[Measure, ...] = (
    Measure("set_f1.{source}.{judgment}", "set F1 %", STUDY, NOTEBOOK, "question", None, holm=False,
            axis="set F1 % (listwise-set)", truth=TRUTH, judgments=LISTWISE),
    Measure("unreadable_share.{judgment}.{form}", "unreadable replies %", STUDY, NOTEBOOK, "question", None,
            reading="secondary", holm=False, axis="unreadable replies, % of questions", truth=TRUTH, judgments=LISTWISE),
    # 11 (RQ1's "receptive to counterfactual passages", measured per passage kind: the test is ours)
    # (one declaration per contrast, so every `{field}` is a value a run's design lists: lib.simulate.power_family)
    *(Measure(f"role_selection_gap.{{form}}.{a}_minus_{b}", f"selected share, {a} minus {b} passages", STUDY, NB11,
              "question", 0.0, axis=f"share of {a} minus {b} passages selected (0-1)", truth=TRUTH, no_judgments=NO_RQ2)
      for a, b in (("ground_truth", "counterfactual"), ("counterfactual", "noisy"))),
    # 11 (Figure 5's "sensitive to the position of the ground-truth evidence"; per question, first minus last)
    Measure("position_effect.{form}", "per-question F1 / NDCG@1, ground truth first minus last", STUDY, NB11,
            "question", 0.0, axis="per-question F1 (sets) or NDCG@1 (rankings), first minus last (0-1)", truth=TRUTH, no_judgments=NO_RQ2),
    # 12 (Table 4): the answer score per evidence source, and the paper's ordering as paired tests
    Measure("answer_score.{source}.{condition}", "answer F1 % (factoid) / ROUGE-L % (MS MARCO)", STUDY, NB12,
            "question", None, holm=False, axis="answer F1 or ROUGE-L, %", truth=TRUTH, no_judgments=NO_RQ3),
    *(Measure(f"answer_gain.{{source}}.utility_minus_{other}", f"answer score, utility-selected minus {other} evidence",
              STUDY, NB12, "question", 0.0, axis=f"per-question answer score, utility minus {other} (0-1)",
              truth=TRUTH, no_judgments=NO_RQ3)
      for other in ("dense", "relevance")),
)

UTILITY_CHATGPT = "ChatGPT gpt-3.5-turbo-1106 (utility paper)"

CARD: tuple[CardRow, ...] = (
    CardRow("utility_f1", "Utility selection: set F1 (%) of the passages it selects as useful (utility prompts, listwise-set)",
            ("set_f1.nq.utility",), "f1", None,
            (Reference(pub.UTILITY, "Table 2", "NQ / Utility", "F1 (listwise-set)", UTILITY_CHATGPT),
             Reference(pub.UTILITY, "Table 3", "LlaMa2-7B", "NQ F1 (Listwise-set)", "Llama-2-7B (utility paper)"),
             Reference(pub.UTILITY, "Table 3", "LlaMa2-13B", "NQ F1 (Listwise-set)", "Llama-2-13B (utility paper)")),
            "Parsed replies only (F1 over readable replies); the paper's Table 2 is ChatGPT, its Table 3 adds Llama-2.",
            phrase='selects useful passages with set F1 {value} (utility prompts)',
            missing="no reply was readable, and F1 needs one; the unreadable row says how many"),
    CardRow("relevance_f1", "Relevance selection: set F1 (%) of the passages it selects as relevant (relevance prompts, listwise-set)",
            ("set_f1.nq.relevance",), "f1", None,
            (Reference(pub.UTILITY, "Table 2", "NQ / Relevance", "F1 (listwise-set)", UTILITY_CHATGPT),),
            "Parsed replies only; the paper has relevance prompts for ChatGPT alone.",
            phrase='selects relevant passages with set F1 {value} (relevance prompts)',
            missing="no reply was readable, and F1 needs one; the unreadable row says how many"),
    CardRow("utility_unreadable", "Unreadable listwise-set replies (utility prompts), % of questions",
            ("unreadable_share.utility.listwise_set",), "share", None, (),
            "The paper reports no failures.",
            phrase='gives an unreadable selection for {value} of questions'),
)
