"""Known truth: a simulated judge with planted biases, served over the OpenAI-compatible path, and
the check that the studies recover what was planted (docs/known_truth.md). No study imports it."""
