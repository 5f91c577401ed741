"""Sweeps on a Ray cluster (`python -m lib.runner sweep ... --executor ray`). Only `ray_executor` imports
Ray, and the runner imports it only when that executor is asked for: the other modules here are plain
Python (resources from specs, moving cache entries, packing a run's outputs) and are tested without Ray."""
