"""Known truth: a simulated judge with planted biases, served over the OpenAI-compatible path, and
the check that the studies recover what was planted (docs/known_truth.md). No study imports it.

Three layers, each importing only those below it: `core` (the truth file, the planted model and what
every study's simulation shares), one package per study (`self_preference`, `utility`, `rewardbench`),
and the modules here that put the studies together (server, validate, replications, power)."""
