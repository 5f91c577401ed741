"""Utility-judgment study (`utility-judgments.txt`): GTI / GTU benchmarks, retrieval, judgments in
four input forms with the authors' prompts, metrics, answer generation and k-sampling. Modules:
benchmark (file layout, GTI / GTU construction), retrieval (dense / BM25, recall@k), counterfactual (CP
by dataset: entity substitution or the 2.2.4 generation prompt), build (notebook 09 pipeline), calls
(model access + cost ledger keyed by (model, method)), parsing (the authors' rules, repairs counted,
failures kept), judging (pointwise / pairwise / listwise-set / listwise-rank), replies (raw replies on
disk, reparse), sampling (k-sampling vote), metrics (P / R / F1, NDCG, MRR), evaluate (per-question rows,
the paper's set F1, failure tables), answer_metrics (EM / F1; MS MARCO ROUGE-L beta 1.2, corpus BLEU),
answering (QA from selected evidence), experiments (the sweeps of notebooks 10-12), items (the study's
own samples: MS MARCO without the self-preference filters; notebook 09's GTI / GTU sets), factors
(notebook 11's sweeps), figures (10 / 11: the paper's F1, per-question F1 as a labelled extra),
findings_rows (notebook 10's findings), measures (the study's findings measures, declared once). The
paper's published cells live with all others in `lib.paper_check.published`.
"""
