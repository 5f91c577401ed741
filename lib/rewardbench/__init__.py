"""RAG-RewardBench: reward models and judges in RAG (notebooks 13-15).

Modules (the shared layout: CONTRIBUTING.md, "Layout of a study package"): `measures` (the study's
findings measures, declared once), `findings_rows` (13's judge accuracy and position consistency),
`replies` (13's raw replies on disk, `reparse`), `figures` (13-15), `model_loop` (`for_each_model`:
every reward model, those lacking a capability left out and said so). The steps: `categories` (six
categories, Table 2 groups), `loader` (published pairs, both layouts), `demo_pairs` (rule-built offline
pairs), `judge`, `implicit`, `discriminative`, `scalar` (the kinds of reward model), `registry` (one
entry point, raw and per-pair results), `accuracy_tables` (Table 2 accuracies with CIs, position and
length bias), `family_preference` (beyond the paper), `best_of_n` (Figure 6), `study` (pairs, results and
tables shared by 13-15, each notebook's work as one function that the notebook and the known-truth
replications call; `python -m lib.rewardbench.study reparse <run>`).
"""
