"""One simulated replication of a headline effect (`Draw`) and the test the pipeline applies to its
row (`p_value`): lib.stats for a rate or a per-question difference, lib.compare for the paired
difference of two judges."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib import stats

N_BOOT = 20  # the tests' p-values do not depend on the bootstrap draws (they give the interval), so few


@dataclass(frozen=True)
class Draw:
    """Values of one replication (NaN = unparsed) and their unit. `contrast`: +1 / -1 groups of a
    difference; `rate`: False for a difference whose values may look like 0/1 rates; `second` and
    `strata`: a paired design (the second entry's value on the same units, each unit's stratum)."""

    values: np.ndarray
    clusters: np.ndarray
    contrast: np.ndarray | None = None
    rate: bool | None = None
    second: np.ndarray | None = None
    strata: np.ndarray | None = None
    measure_id: str = ""  # the registry's measure whose declared strata weights the paired test uses


def paired_units(values, clusters, strata) -> pd.DataFrame:
    """Per-unit values in the layout of a measure's units reader (lib.report.measures.CLUSTERED_UNIT_COLUMNS)."""
    n = len(values)
    return pd.DataFrame({"unit_id": np.arange(n).astype(str), "stratum": np.asarray(strata, dtype=object),
                         "value": np.asarray(values, float), "cluster": np.asarray(clusters).astype(str)})


def p_value(d: Draw, null: float) -> tuple[float, float]:
    """(estimate, p) from the test the pipeline uses for the row: lib.compare's paired difference for
    a paired draw (first minus second, strata weighted as the measure declares); else
    `lib.stats.clustered_mean` for a rate or a per-unit difference (a binomial test when every unit
    gives one 0/1 judgment of a rate, else the cluster sign-flip test), the cluster test of a contrast."""
    if d.second is not None:
        from lib.compare.paired import difference
        from lib.report.measures import find

        r = difference(paired_units(d.values, d.clusters, d.strata), paired_units(d.second, d.clusters, d.strata),
                       find(d.measure_id), n_boot=N_BOOT)
    elif d.contrast is None:
        r = stats.clustered_mean(d.values, d.clusters, null=null, n_boot=N_BOOT, rate=d.rate)
    else:
        r = stats.cluster_bootstrap(d.values, d.clusters, null=null, contrast=d.contrast, n_boot=N_BOOT, rate=False)
    return r["estimate"], r["p"]
