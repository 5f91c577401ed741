"""Mitigation arms (beyond the papers, notebook 18): how much of a measured bias a correction removes,
each arm read against the unmitigated reading on the same units.

Modules (the shared layout: CONTRIBUTING.md, "Layout of a study package"): `measures` (the arms'
findings measures, declared once), `findings_rows` (18's rows), `replies` (the content-free replies on
disk, `reparse`), `figures` (before / after per arm), `model_loop` (`for_each_model`). The steps:
`inputs` (05's ratings, 06's pairs and 13's verdicts read from the run folder: no other study's package
is imported), `calibration` (balanced and contextual calibration, temperature scaling: pure arithmetic
on option probabilities), `content_free` (the content-free prompts and the one model call the study
makes), `paired` (a before / after difference on the same units with its clustered interval),
`arms` (each arm's before / after table), `length_control` (a logistic model of the preference on the
length difference), `decomposition` (self-preference split into its harmful part and its baseline).
"""
