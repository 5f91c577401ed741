"""RAG-RewardBench (notebooks 13-15) under the planted model: its prompts recognised, its judge and
answer replies, the truth of its measures and the comparison of two simulated models."""
