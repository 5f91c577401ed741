"""Utility-judgment study (`utility-judgments.txt`): GTI / GTU benchmarks, retrieval, judgments in
four input forms with the authors' prompts, metrics, answer generation and k-sampling.

Modules (the shared layout: CONTRIBUTING.md, "Layout of a study package"): measures (the study's
findings measures, declared once), findings_rows (notebook 10's findings), replies (raw replies on
disk, `reparse`), figures (10 / 11 / 12: the paper's F1, per-question F1 as a labelled extra, the
k-curve), model_loop (`for_each_model`: every chat model under its short name). The steps: benchmark
(file layout, GTI / GTU construction), retrieval (dense / BM25, recall@k), counterfactual (CP by
dataset: entity substitution or the 2.2.4 generation prompt), build (notebook 09 pipeline), items (the
study's own samples: MS MARCO without the self-preference filters; notebook 09's GTI / GTU sets), calls
(one-shot batches booked in the cost ledger by (model, method)), parsing (the authors' rules, repairs
counted, failures kept), judging (pointwise / pairwise / listwise-set / listwise-rank), k_sampling
(k-sampling vote), judgment_metrics (P / R / F1, NDCG, MRR), evaluate (per-question rows, the paper's
set F1, failure tables), answer_metrics (EM / F1; MS MARCO ROUGE-L beta 1.2, corpus BLEU), answering (QA
from selected evidence), experiments (the sweeps of notebooks 10-12), factors (notebook 11's sweeps), study
(each of notebooks 10-12's work as one function, which the notebook and the known-truth replications call).
The paper's published cells live with all others in `lib.paper_check.published`.
"""
