"""The self-preference study (notebooks 02-08) under the planted model: its prompts recognised, its
replies, knowledge probe and the truth of its measures."""
