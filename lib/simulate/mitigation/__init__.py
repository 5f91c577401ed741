"""Notebook 18's mitigation arms under the planted model: the truth of what each arm should leave."""
