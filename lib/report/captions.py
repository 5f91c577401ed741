"""What each table a run writes shows, as a LaTeX caption would say it, keyed by the table's file name
(a pattern where notebooks build the name), here or in a study's measures module (`CAPTIONS`, beside
the study's declarations, so a new study adds its tables' captions in its own package). A table
without an entry gets a caption from its name, which the table tests refuse for the tables a run
writes."""
from __future__ import annotations

import re

# file name (regular expression, matched whole) -> caption
CAPTIONS = {
    "quickstart_answers": "Quick start: the embedded chat model's answers to the demo questions",
    "quickstart_perplexity": "Quick start: perplexity of sample passages under the embedded base model",
    "quickstart_cache": "Quick start: one request asked twice, a cache miss then a hit, with each call's seconds",
    "length_stats": "Query and passage lengths in words per dataset (v1 Table 2)",
    "release_length_stats": "Query and passage lengths in words of the authors' release (v1 Table 2)",
    "verification": "Passage generation: outputs that passed verification at once, after a retry, or were dropped",
    "bank_counts": "Passages in the bank per dataset, author, factuality and style",
    "ppl_by_author": "Passage perplexity per dataset and author (v1 Table 2)",
    "ppl_ttests": "Human minus model perplexity per dataset and author, t-test over items (v2 Table 1)",
    "knowledge_levels": "Share of questions with no, partial and full knowledge (v2 Table 1, v1 Table 1)",
    r"05_scores_(\w+)_(true|false)": "Pointwise relevance ratings per evaluator and author (v2 Tables 6-9)",
    "05_pointwise_cells": "Pointwise ratings per dataset, evaluator, setting, factuality and author: n, parse failures, mean",
    "05_human_vs_self": "Pointwise ratings of human and own passages, normal and RAG prompt (v2 Table 2)",
    "05_v1_table3_human_vs_models": "Pointwise ratings of human and model passages (v1 Table 3)",
    "05_score_distribution": "Distribution of pointwise ratings per evaluator (v1 Table 14)",
    "05_likelihood_vs_paper": "Pointwise ratings: the paper's parsed reply against likelihood scoring",
    "05_likelihood_agreement": "Agreement of parsed and likelihood-scored ratings (Spearman and Pearson)",
    "05_human_minus_self_methods": "Human minus own-passage rating per scoring method, t-test over items",
    "06_pair_status": "Where each judged pair went, per evaluator and other author",
    "06_preferences": "Self, first-position and factual preference rates per evaluator (v2 Table 3)",
    "06_table3_margins": "Preference rates pooled over datasets and authors (v2 Table 3 margins)",
    "06_table3": "Preference rates per dataset, evaluator and author (v2 Table 3)",
    "06_self_by_combo": "Self-preference rate per factuality combination (v2 Figure 3)",
    "06_self_by_combo_by_method": "Self-preference rate per factuality combination and scoring method",
    "06_v1_table9_front": "First-position preference per evaluator and author (v1 Table 9)",
    "06_v1_table10_self_vs_order": "Self and order preference on TT and FF pairs (v1 Table 10)",
    "06_v1_table11_fact_vs_self": "Factual and self-preference on TF and FT pairs (v1 Table 11)",
    "06_v1_table13_both_false": "Order and self-preference when both passages are false (v1 Table 13)",
    "06_likelihood_agreement": "Agreement of the paper's parsed choice and the likelihood choice",
    "06_preferences_by_method": "Preference rates under each scoring method",
    "07_v1_table5_knowledge": "Factual preference by the evaluator's knowledge level (v1 Table 5)",
    "07_v1_table5_knowledge_likelihood": "Factual preference by knowledge level, likelihood scoring (v1 Table 5)",
    "07_extreme_cases": "Own false passage chosen over another's true one, by knowledge level",
    "08_style_preferences": "Preference for the own gen-by-QA and long passages (v2 Tables 4 and 5)",
    "utility_table1_gti_composition": "Utility benchmark: composition of the candidate passages (Table 1)",
    "utility_gtu_composition": "Utility benchmark: composition of the gold utility sets",
    "utility_retrieval_recall": "Recall of the gold passages among the retrieved candidates",
    "utility_table2_relevance_vs_utility": "Listwise-set precision, recall and F1 with relevance and utility prompts (Table 2)",
    "utility_rq1_failures": "Unreadable judgment replies per dataset, judgment and form",
    "utility_rq1_cost": "Model calls, tokens and time per judgment method (RQ1)",
    "utility_table3_sets": "Utility judgments as sets per judgment form (Table 3)",
    "utility_table3_rankings": "Utility judgments as rankings per judgment form (Table 3)",
    "utility_fig4_order": "Set F1 with question first or passages first (Figure 4)",
    "utility_fig5_position": "Selection rate of the gold passage by its position (Figure 5)",
    "utility_fig5_failures": "Unreadable replies per gold-passage position",
    "utility_fig6_requirements": "Set F1 per answer requirement in the prompt (Figure 6)",
    "utility_rq2_cost": "Model calls, tokens and time per judgment form (RQ2)",
    "utility_rq2_failures": "Unreadable judgment replies per form (RQ2)",
    "utility_table4_answering": "Answer quality with utility- or relevance-selected passages (Table 4)",
    "utility_k_sampling_curve": "Answer quality by the number of sampled judgments k",
    "rewardbench_table4": "RAG-RewardBench pairs per category and their lengths (Table 4)",
    "rewardbench_accuracy_long": "Reward-model accuracy per category and subset, one row per model",
    "rewardbench_table2": "Reward-model accuracy per category in % (Table 2)",
    "rewardbench_judges": "Generative judges: verdicts parsed, position consistency and accuracy",
    "rewardbench_self_preference": "Reward models judging their own family's responses",
    "rewardbench_judge_agreement": "Agreement of generated and log-probability judge verdicts",
    "rm_accuracy_by_score_gap": "Reward-model accuracy by the gap between the responses' scores",
    "rm_accuracy_by_length_diff": "Reward-model accuracy by the length difference of the responses",
    "rm_length_bias": "Reward models' preference for the longer response",
    "best_of_n": "Best-of-n answer quality per reward model",
    "best_of_n_correlation": "Correlation of reward-model accuracy and best-of-n gain",
    r"comparison_\w+": "Comparison of runs",
    "paired_differences": "Paired differences between runs",
    "profile_card": "Bias profile of one model",
}


def caption_for(name: str) -> str | None:
    """The declared caption of a table file name, or None when none is declared."""
    import importlib

    from .measures import STUDY_MODULES

    declared = [CAPTIONS] + [getattr(importlib.import_module(m), "CAPTIONS", {}) for m in STUDY_MODULES]
    for pattern, caption in (item for table in declared for item in table.items()):
        if re.fullmatch(pattern, name):
            return caption
    return None
