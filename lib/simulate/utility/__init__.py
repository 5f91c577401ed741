"""The utility study (notebooks 09-12) under the planted model: its prompts recognised, the passages'
roles, its replies and draws, the design a run judges and the truth of its measures."""
