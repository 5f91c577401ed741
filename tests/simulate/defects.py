"""Planted defects the known-truth tests switch on with monkeypatch (each must make rows miss their truth)."""
from lib.utility import parsing


def reverse_listwise_sets(monkeypatch) -> None:
    """10's listwise-set parser reading the shown passages in reverse order."""
    parse_set = parsing.parse_set

    def reversed_set(text, n):
        got = parse_set(text, n)
        if got.value is not None:
            got.value = sorted(n - 1 - i for i in got.value)
        return got
    monkeypatch.setattr(parsing, "parse_set", reversed_set)
