"""One door to the results cache: the cluster's transfers read and write caches through the model
layer's cache module, with the entries CachedModel itself stored (tagged with their model)."""
import ast
from pathlib import Path

from lib.cluster import cache_transfer
from lib.models import cache
from lib.paths import ROOT


def _ask(model, *texts):
    return model.generate([model.request(t) for t in texts])


def test_transfers_move_a_models_entries_between_caches(scripted_model, fresh_cache, tmp_path):
    a = scripted_model(reply=lambda text, req: "a", spec="local:smollm2")
    b = scripted_model(reply=lambda text, req: "b", spec="local:gemma3")
    _ask(a, "one", "two")
    _ask(b, "three")
    cache.close_all()
    src = fresh_cache / "results"
    assert cache.entries_by_model() == {"local:smollm2": 2, "local:gemma3": 1}
    mine = cache_transfer.entries_for(src, ["local:smollm2"])
    assert [t for _, _, t in mine] == ["local:smollm2"] * 2
    start = cache_transfer.last_rowid(src)
    _ask(b, "four")
    cache.close_all()
    later, last = cache_transfer.entries_after(src, start)
    assert [t for _, _, t in later] == ["local:gemma3"] and last > start
    dest = tmp_path / "elsewhere"
    assert cache_transfer.store_entries(dest, mine) == 2
    assert cache_transfer.store_entries(dest, mine) == 0  # already there
    assert {k for k, _, _ in cache_transfer.entries_after(dest, 0)[0]} == {k for k, _, _ in mine}
    assert cache.entry_rows(tmp_path / "missing") == [] and cache_transfer.last_rowid(tmp_path / "missing") == 0


def test_only_the_cache_module_opens_diskcache():
    opened = []
    for path in (ROOT / "lib").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[0] == "diskcache" for n in names):
                opened.append(str(Path(path).relative_to(ROOT)))
    assert sorted(set(opened)) == ["lib/models/cache.py"], opened
