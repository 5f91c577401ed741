"""The bias profile of one model: a compact battery of the studies' measures, run from
configs/profile.yaml and rendered as one page (`python -m lib.profile --model <spec>`; docs/profile.md)."""
