"""What a run shows a reader: `findings` (the headline rows, Holm, the run README and results.json),
`outputs` (where a notebook's tables and figures are written), `plotting` (the house figure style and its
finishing pass), `figure_checks` (what a drawn figure shows and how it prints), `layout` (constrained
layout), `legends` (where legends go), `text_fit` (text wrapped and fitted to a span), `latex_table`
(booktabs tables that compile), `labels` (readable names for columns and measures) and `measures` (the
measure registry: `Measure`, `CardRow`, lookup over the studies' `measures` modules)."""
