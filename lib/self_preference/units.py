"""Per-unit values of the self-preference measures that compare pairs across runs, re-read from a
run's records without model calls: notebook 05's human-minus-own rating per question."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from lib.report.measures import UNIT_COLUMNS

HUMAN_MINUS_SELF_ID = "human_minus_self.{dataset}.{setting}.self_{fact}.{method}"


def pointwise_units(folder: Path, params: dict) -> pd.DataFrame:
    """Per question: human (true) minus the evaluator's own passage (true / false) for every dataset
    (and all datasets pooled), setting and rating method, as notebook 05's findings define them, read
    from its pointwise_ratings.jsonl; `params` are the notebook's run parameters (evaluator specs)."""
    from lib.models.specs import author_specs
    from lib.report.findings import slug

    from .likelihood import RATING_METHODS

    path = Path(folder) / "pointwise_ratings.jsonl"
    if not path.exists():
        return pd.DataFrame(columns=UNIT_COLUMNS)
    ratings = pd.read_json(path, lines=True, dtype={"item_id": str})
    specs = author_specs(params.get("evaluators"), params.get("author_names"))
    views = [ratings] + ([ratings.assign(dataset="all")] if ratings["dataset"].nunique() > 1 else [])
    rows = []
    for view in views:
        for (dataset, evaluator, setting), g in view.groupby(["dataset", "evaluator", "setting"], sort=False):
            # the unit is the question: its own dataset and item id, also within the pooled view
            g = g.assign(unit_id=ratings.loc[g.index, "dataset"].astype(str) + "|" + g["item_id"].astype(str))
            for method, col in RATING_METHODS.items():
                if col not in g:
                    continue
                score = pd.to_numeric(g[col], errors="coerce")
                human = score[(g["author"] == "human") & (g["factuality"] == "true")].groupby(g["unit_id"]).mean()
                for fact in ("true", "false"):
                    own = score[(g["author"] == evaluator) & (g["factuality"] == fact)].groupby(g["unit_id"]).mean()
                    diff = (human - own).dropna()
                    mid = HUMAN_MINUS_SELF_ID.format(dataset=dataset, setting=setting, fact=fact, method=slug(method))
                    rows += [(mid, specs.get(evaluator, evaluator), u, "", float(v)) for u, v in diff.items()]
    return pd.DataFrame(rows, columns=UNIT_COLUMNS)
