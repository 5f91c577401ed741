"""`python -m lib.runner plan CONFIG`: per notebook x model, the requests a run will send, its prompt and
completion tokens, the share the cache already holds, dollars at list price (synchronous and Batch
API) and wall time at the run's concurrency, before any call. No API key is read, no server contacted.

A row's `requests` are first tries plus the re-asks expected at RETRY_SHARE unparsed replies per try
(EMBEDDED_RETRY_SHARE for the embedded models, measured)
(`requests_max`: every allowed re-ask). `cached` is what the results cache already holds for the
model (its entries counted by model, given to the run's notebooks in run order, as a resumed run finds
them) plus what an earlier notebook of the same run asks too (07 repeats 06, 14 and 15 repeat 13).
`sent` and `tokens_sent` are what the model's server receives: option log-probabilities over a
server's echo take one request per option and one for the prefix alone, each with the whole prompt.
Dollars count the requests not cached, as sent, at the expected completion (`usd`, `usd_batch`) and
at max_tokens (`usd_max`); None means no known price, never free.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lib import pipeline, run_config
from lib.models import cache
from lib.models.backends import declared_for
from lib.models.prices import PRICES_AS_OF, price_of
from lib.models.specs import SpecError, parse_spec

from .designs import GENERATE, OPTIONS, TOPK, Calls, RunView, calls_of
from .tokens import prompt_tokens

RETRY_SHARE = 0.1  # assumed share of replies that do not parse, per try (a re-ask each, up to k)
# the embedded SmolLM2 fails far more often: in the demo run's passage bank (02, k = 1) 57 of its 90
# first tries were asked again (rewrites 14 of 42, false answers 39 of 42, long passages 1 of 3)
EMBEDDED_RETRY_SHARE = 0.63
BATCH_WINDOW = "24h"  # the Batch API's completion window: results come within it, often much sooner
# seconds per request (assumed): an API's first token, then its generation speed; embedded / hf
# models on this project's 2-core CPU: about 20 new tokens a second, one sequence at a time
API_LATENCY, API_TOKENS_PER_S = 0.5, 80.0
CPU_PROMPT_TOKENS_PER_S, CPU_TOKENS_PER_S = 400.0, 20.0


@dataclass
class Row:
    """One notebook x model of the plan."""

    notebook: str
    model: str
    requests: int = 0
    requests_max: int = 0
    cached: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_out_max: int = 0
    usd: float | None = None
    usd_batch: float | None = None
    usd_max: float | None = None
    seconds: float = 0.0
    batch: bool = False  # sent through the Batch API (`;batch`): results within BATCH_WINDOW
    kinds: list = field(default_factory=list)
    # what the model's server receives (not cached): option log-probabilities over its echo take one
    # request per option and one for the prefix, each with the prompt; equal to requests - cached
    # and their prompt tokens otherwise
    sent: int = 0
    tokens_sent: int = 0
    # prompt tokens the model layer's ledger books: a result that reports none (a server's echoed
    # option scores, likelihoods, perplexities, scores, embeddings) books 0 (lib.planning.versus)
    tokens_booked: int = 0


def _model_key(model: str) -> str:
    try:
        return parse_spec(model).key
    except SpecError:
        return model  # a reward head (`rm:<hub id>`): its spec is its cache name


def _price(model: str):
    try:
        return price_of(parse_spec(model))
    except SpecError:
        return None


def _batch(model: str) -> bool:
    try:
        return parse_spec(model).batch
    except SpecError:
        return False


def _concurrency(model: str, run_concurrency: int | None) -> int:
    """Requests in flight for a model: 1 for embedded / hf models, else the spec's, the run's, or the
    server default (lib.models.backends.inflight)."""
    from lib.models.backends.inflight import LOOPBACK_DEFAULT, OPENAI_DEFAULT, SERVER_DEFAULT, is_loopback

    try:
        spec = parse_spec(model)
    except SpecError:
        return 1
    if spec.backend != "openai":
        return 1
    if spec.concurrency:
        return spec.concurrency
    if run_concurrency:
        return int(run_concurrency)
    if not spec.base_url or "api.openai.com" in spec.base_url:
        return OPENAI_DEFAULT
    return LOOPBACK_DEFAULT if is_loopback(spec.base_url) else SERVER_DEFAULT


def _on_server(model: str) -> bool:
    """Whether a model is asked over HTTP (an OpenAI-compatible server), not computed here."""
    try:
        return parse_spec(model).backend == "openai"
    except SpecError:
        return False


def _seconds(c: Calls, n: float, t_in: int, t_out: int, conc: int) -> float:
    """Wall seconds of n requests at `conc` in flight (assumed speeds, module constants)."""
    if not _on_server(c.model):
        return n * (t_in / CPU_PROMPT_TOKENS_PER_S + t_out / CPU_TOKENS_PER_S)
    return n * (API_LATENCY + t_out / API_TOKENS_PER_S) / conc


def _retry_share(model: str, given: float | None = None) -> float:
    """The share of a model's replies planned to be asked again, per try (`given`: the run's
    `retry_share`, which wins)."""
    if given is not None:
        return given
    try:
        return EMBEDDED_RETRY_SHARE if parse_spec(model).backend == "local" else RETRY_SHARE
    except SpecError:
        return RETRY_SHARE


def retry_share_of(params: dict) -> float | None:
    """The run's `retry_share` (None when not given), checked: a share in [0, 1)."""
    from lib.run_config import RETRY, ConfigError

    value = params.get(RETRY)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise ConfigError(f"retry_share must be a share in [0, 1), e.g. -p retry_share=0.02; got {value!r}.")
    return float(value)


def _expected(n: int, retries: int, share: float = RETRY_SHARE) -> tuple[float, int]:
    """(expected requests with re-asks at `share` per try, requests with every re-ask)."""
    return n * sum(share ** i for i in range(retries + 1)), n * (retries + 1)


def _known_capabilities(specs) -> dict:
    """What each server spec can do without asking it: OpenAI's own API gives no echoed prompt
    log-probabilities; another server is planned as if its echo probe passed."""
    known = {}
    for s in specs:
        try:
            spec = parse_spec(s)
        except SpecError:
            continue
        if spec.backend == "openai":
            caps = set(declared_for(spec)[0])
            if not spec.base_url or "api.openai.com" in spec.base_url:
                caps -= {"loglikelihood", "echo_probe"}
            known[s] = frozenset(caps)
    return known


@dataclass
class Plan:
    """The rows of a plan, the parts left out, and its totals."""

    run: str
    rows: list[Row]
    left_out: list[dict]
    notes: list[str]
    retry: float | None = None  # the run's retry_share, where given

    def totals(self) -> dict:
        """Sums over rows; a dollar total is None when no row has a price, and says 'partial' in
        `priced` when some rows have none."""
        out = {k: sum(getattr(r, k) for r in self.rows) for k in
               ("requests", "requests_max", "cached", "tokens_in", "tokens_out", "tokens_out_max", "seconds",
                "sent", "tokens_sent")}
        for k in ("usd", "usd_batch", "usd_max"):
            vals = [getattr(r, k) for r in self.rows if getattr(r, k) is not None]
            out[k] = sum(vals) if vals else None
        # what the run pays as its specs send: the Batch API's price for `;batch` models
        sent = [(r.usd_batch if r.batch else r.usd) for r in self.rows]
        out["usd_as_sent"] = sum(v for v in sent if v is not None) if any(v is not None for v in sent) else None
        unpriced = [r for r in self.rows if r.usd is None and r.requests > r.cached]
        out["unpriced_models"] = sorted({r.model for r in unpriced})
        return out

    def biggest(self) -> tuple[str, float] | None:
        """The notebook with the largest dollar cost, and that cost."""
        per: dict = {}
        for r in self.rows:
            usd = r.usd_batch if r.batch else r.usd
            if usd is not None:
                per[r.notebook] = per.get(r.notebook, 0.0) + usd
        return max(per.items(), key=lambda kv: kv[1]) if per else None

    def as_json(self) -> dict:
        """plan.json's content."""
        return {"run": self.run, "prices_as_of": PRICES_AS_OF, "retry_share": RETRY_SHARE if self.retry is None else self.retry, "retry_share_embedded": EMBEDDED_RETRY_SHARE,
                "batch_window": BATCH_WINDOW, "rows": [asdict(r) for r in self.rows],
                "totals": self.totals(), "left_out": self.left_out, "notes": self.notes}


def build(cfg: dict, only: list[str] | None = None, from_cache: bool = True) -> Plan:
    """The plan of a runner config (as lib.run_config.load_config reads it), for the notebooks it (or
    `only`) selects; `from_cache=False` plans as from an empty results cache (a finished run's plan)."""
    selected = run_config.select_notebooks(cfg, only)
    every = run_config.numbered_notebooks()
    effective = run_config.effective_parameters(cfg, every)  # every notebook's, for what flows downstream
    params = {nb.stem: {k: v for k, (v, _) in eff.items()} for nb, eff in effective}
    stems = [nb.stem for nb in selected]
    view = RunView(params, stems)
    specs = run_config.model_specs([(nb, eff) for nb, eff in effective if nb.stem in stems])
    known = _known_capabilities(specs)
    left = [part for s in stems for part in pipeline.left_out(s, params[s], known)]
    dropped = {(p["notebook"], p["part"], p["model"]) for p in left}
    run_params = {**cfg["parameters"], **(cfg.get("_overrides") or {})}
    run_conc, retry = run_params.get("concurrency"), retry_share_of(run_params)
    in_cache = dict(cache.entries_by_model()) if from_cache else {}
    seen: set = set()
    rows: dict[tuple, Row] = {}
    for stem in stems:
        for c in calls_of(stem, view):
            if c.part and (stem, c.part, c.model) in dropped:
                continue
            row = rows.setdefault((stem, c.model), Row(stem, c.model))
            n, n_max = _expected(c.n, c.retries, _retry_share(c.model, retry))
            repeat = bool(c.same_as) and c.same_as in seen
            if c.same_as:
                seen.add(c.same_as)
            key = _model_key(c.model)
            from_cache = 0 if repeat else min(in_cache.get(key, 0), round(n))
            in_cache[key] = in_cache.get(key, 0) - from_cache
            cached = round(n) if repeat else from_cache
            t_in = prompt_tokens(c.chars_in, c.messages, c.model)
            out_tok = c.expect_out if c.kind in (GENERATE, TOPK) else 0
            max_tok = c.max_tokens if c.kind in (GENERATE, TOPK) else 0
            server = _on_server(c.model)
            per = c.echoes if c.kind == OPTIONS and server else 1  # requests a result takes on the server
            row.requests += round(n)
            row.requests_max += n_max
            row.cached += cached
            row.tokens_in += round(n * t_in)
            row.tokens_out += round(n * out_tok)
            row.tokens_out_max += n_max * max_tok
            if c.kind in (GENERATE, TOPK) or (c.kind == OPTIONS and not server):
                row.tokens_booked += round(n * t_in)
            if c.kind not in row.kinds:
                row.kinds.append(c.kind)
            paid = max(n - cached, 0)
            row.sent += round(paid * per)
            row.tokens_sent += round(paid * per * t_in)
            price = _price(c.model)
            if price is not None:  # every echoed request bills its prompt
                row.usd = (row.usd or 0.0) + paid * (per * t_in * price.input + out_tok * price.output) / 1e6
                row.usd_batch = (row.usd_batch or 0.0) + paid * (per * t_in * price.batch_input + out_tok * price.batch_output) / 1e6
                row.usd_max = (row.usd_max or 0.0) + (n_max - cached) * (per * t_in * price.input + max_tok * price.output) / 1e6
            row.batch = _batch(c.model)
            if not row.batch:  # a batch's time is the provider's (within BATCH_WINDOW), not the client's
                row.seconds += _seconds(c, paid * per, t_in, out_tok, _concurrency(c.model, run_conc))
    shares = (f"{retry:.0%} (the run's retry_share)" if retry is not None else
              f"{RETRY_SHARE:.0%} ({EMBEDDED_RETRY_SHARE:.0%} for an embedded model, measured; set -p retry_share=)")
    notes = [f"requests include re-asks at {shares} unparsed replies per try; requests_max every allowed re-ask",
             "prompt tokens estimated from characters (lib.planning.tokens); completions at the expected length "
             "(tokens_out) and at max_tokens (tokens_out_max)",
             f"list prices as of {PRICES_AS_OF} (lib.models.prices); Batch API: half price, results within {BATCH_WINDOW}",
             "wall time at the run's concurrency, assumed speeds (lib.planning.plan); rate limits not modelled"]
    return Plan(cfg.get("run") or "scratch", list(rows.values()), left, notes, retry)


def _usd(x) -> str:
    return "no price" if x is None else f"${x:,.2f}"


def _short_model(model: str) -> str:
    return model if len(model) <= 42 else model[:20] + "..." + model[-19:]


def table(plan: Plan) -> str:
    """The printed table: one line per notebook x model, then the totals."""
    head = (f"{'notebook':<26} {'model':<42} {'requests':>10} {'cached':>9} {'tokens in':>12} "
            f"{'out (exp/max)':>21} {'usd':>11} {'usd batch':>11} {'time':>9}")
    lines = [head, "-" * len(head)]

    def fmt(name, model, r):
        return (f"{name:<26} {_short_model(model):<42} {r['requests']:>10,} {r['cached']:>9,} {r['tokens_in']:>12,} "
                f"{r['tokens_out']:>10,}/{r['tokens_out_max']:<10,} {_usd(r['usd']):>11} {_usd(r['usd_batch']):>11} "
                f"{('batch' if r.get('batch') else _duration(r['seconds'])):>9}")
    for r in plan.rows:
        lines.append(fmt(r.notebook, r.model, asdict(r)))
    t = plan.totals()
    lines += ["-" * len(head), fmt("total", f"{len(plan.rows)} notebook x model rows", t)]
    if t["sent"] > t["requests"] - t["cached"]:
        lines.append(f"servers receive {t['sent']:,} requests, {t['tokens_sent']:,} prompt tokens: option log-probabilities "
                     "over a server's echo take one request per option and one for the prefix")
    if t["unpriced_models"]:
        lines.append("no price (dollars not counted): " + ", ".join(t["unpriced_models"]))
    big = plan.biggest()
    if big:
        lines.append(f"biggest notebook: {big[0]} ({_usd(big[1])}); through the Batch API: {_usd(t['usd_batch'])}, "
                     f"results within {BATCH_WINDOW}")
    for p in plan.left_out:
        lines.append(f"left out: {p['notebook']}: {p['part']} for {p['model']} (needs {p['needs']})")
    lines += [f"note: {n}" for n in plan.notes]
    return "\n".join(lines)


def _duration(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


def write(plan: Plan, folder: Path) -> Path:
    """plan.json in the run folder (made if missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "plan.json"
    path.write_text(json.dumps(plan.as_json(), indent=1), encoding="utf-8")
    return path
