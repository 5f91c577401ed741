"""The utility study's findings measures (lib.report.measures), declared once: notebook 10 writes
them (lib.utility.findings_rows); the bias card reads `CARD`."""
from __future__ import annotations

from lib.paper_check import published as pub
from lib.report.measures import CardRow, Measure, Reference

STUDY = "utility"
NOTEBOOK = "10_relevance_vs_utility"

MEASURES: tuple[Measure, ...] = (
    Measure("set_f1.{source}.{judgment}", "set F1 %", STUDY, NOTEBOOK, "question", None, holm=False,
            axis="set F1 % (listwise-set)"),
    Measure("unreadable_share.{judgment}.{form}", "unreadable replies %", STUDY, NOTEBOOK, "question", None,
            reading="secondary", holm=False, axis="unreadable replies, % of questions"),
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
            missing="no reply was readable, and F1 needs one (see the unreadable row)"),
    CardRow("relevance_f1", "Relevance selection: set F1 (%) of the passages it selects as relevant (relevance prompts, listwise-set)",
            ("set_f1.nq.relevance",), "f1", None,
            (Reference(pub.UTILITY, "Table 2", "NQ / Relevance", "F1 (listwise-set)", UTILITY_CHATGPT),),
            "Parsed replies only; the paper has relevance prompts for ChatGPT alone.",
            phrase='selects relevant passages with set F1 {value} (relevance prompts)',
            missing="no reply was readable, and F1 needs one (see the unreadable row)"),
    CardRow("utility_unreadable", "Unreadable listwise-set replies (utility prompts), % of questions",
            ("unreadable_share.utility.listwise-set",), "share", None, (),
            "The paper reports no failures.",
            phrase='gives an unreadable selection for {value} of questions'),
)
