"""What a run shows a reader: `findings` (the headline rows, Holm, the run README and results.json),
`outputs` (where a notebook's tables and figures are written), `plotting` (the house figure style),
`latex_table` (booktabs tables that compile), `labels` (readable names for columns and measures) and
`measures` (the measure registry: `Measure`, `CardRow`, lookup over the studies' `measures` modules)."""
