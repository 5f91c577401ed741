"""RAG-RewardBench: reward models and judges in RAG (notebooks 13-15).

Modules: `categories` (six categories, Table 2 groups), `loader` (published pairs, both layouts),
`demo_pairs` (rule-built offline pairs), `judge`,
`implicit`, `discriminative` (the three kinds), `registry` (one entry point, per-pair results),
`metrics` (Table 2 accuracies with CIs, position and length bias), `best_of_n` (Figure 6),
`self_preference` (beyond the paper), `study` (pairs and results shared by notebooks 13-15),
`plots` (their figures), `measures` (the study's findings measures, declared once).
"""
