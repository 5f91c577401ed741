"""inspect.html: one self-contained page (inline style, script and data; no server, no network) with a
section per measure_id and, per model, the units its findings row counts and the judgments under
each. Units above `limit` per row are a seeded sample (the page says so); counts and filters cover
every unit. Filters come from the page's controls or from its address (`?filter=flipped&dataset=nq
&model=...&q=...`), so a link or a headless browser can open the page filtered."""
from __future__ import annotations

import html
import json

import numpy as np
import pandas as pd

from lib.report.judgment_links import anchor

from .collect import Section

LIMIT = 300  # units per findings row with their judgments in the page; above it a seeded sample
FLAGS = {"flipped": 1, "unparsed": 2, "own": 4, "false": 8}  # a unit's filters, as bits


class _Strings:
    """Prompts and replies stored once: 06's prompts repeat under every measure of the notebook."""

    def __init__(self):
        self.items, self.index = [], {}

    def __call__(self, text) -> int:
        text = text() if callable(text) else text  # a prompt filled only when shown
        text = "" if text is None or (isinstance(text, float) and np.isnan(text)) else str(text)
        if text not in self.index:
            self.index[text] = len(self.items)
            self.items.append(text)
        return self.index[text]


def _bool(v) -> int:
    """1 / 0 / -1 (not applicable) for a flag that may be missing."""
    if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)):
        return -1
    return int(bool(v))


def _judgment(j, strings: _Strings) -> list:
    attempts = j["attempts"]
    return [str(j["order"]), strings(j["prompt"]), strings(j["reply"]),
            None if pd.isna(attempts) else int(attempts), str(j["parsed"] or ""), str(j["reason"] or ""),
            str(j["author_1"] or ""), str(j["fact_1"] or ""), str(j["author_2"] or ""), str(j["fact_2"] or ""),
            _bool(j["own_chosen"]), _bool(j["false_chosen"]), int(bool(j["counted"]))]


def _unit_flags(judged: pd.DataFrame) -> pd.DataFrame:
    """Per unit (in first-seen order): whether it counts, and its filter flags as bits."""
    marks = pd.DataFrame({
        "counted": judged["counted"].astype(bool).to_numpy(),
        "flipped": judged["flipped"].fillna(False).astype(bool).to_numpy(),
        "unparsed": (judged["reason"].fillna("").astype(str) != "").to_numpy(),
        "own": (judged["own_chosen"].map(_bool) == 1).to_numpy(),
        "false": (judged["false_chosen"].map(_bool) == 1).to_numpy(),
        "unit": judged["unit_id"].astype(str).to_numpy(), "stratum": judged["stratum"].astype(str).to_numpy()})
    per = marks.groupby("unit", sort=False).agg(stratum=("stratum", "first"), counted=("counted", "any"),
                                                **{k: (k, "any") for k in FLAGS})
    per["bits"] = sum(per[k].astype(int) * bit for k, bit in FLAGS.items())
    return per


def _block(row: dict, judged: pd.DataFrame, strings: _Strings, limit: int, seed: int) -> dict:
    """One findings row: its numbers, every unit's flags, and the judgments of up to `limit` units."""
    per = _unit_flags(judged) if len(judged) else pd.DataFrame(columns=["stratum", "counted", "bits"])
    units = list(per.index)
    detail = set(units) if len(units) <= limit else set(pd.Series(units).sample(limit, random_state=seed))
    shown = judged[judged["unit_id"].astype(str).isin(detail)]
    rows: dict = {}  # unit -> {pair (or the judgment alone) -> its judgments}, in first-seen order
    for i, j in zip(shown.index, shown.to_dict("records")):
        pairs = rows.setdefault(str(j["unit_id"]), {})
        pairs.setdefault(j["pair_id"] or f"#{i}", []).append(_judgment(j, strings))
    rows = {u: list(pairs.values()) for u, pairs in rows.items()}
    out = [[u, r.stratum, int(r.counted), int(r.bits), rows.get(u)] for u, r in zip(units, per.itertuples())]
    n = row.get("n_items", row.get("n"))
    return {"model": str(row["model"]), "n": None if pd.isna(n) else int(n),
            "estimate": None if pd.isna(row["estimate"]) else float(row["estimate"]),
            "ci": [None if pd.isna(row.get(k)) else float(row[k]) for k in ("ci_low", "ci_high")],
            "sampled": len(units) > limit, "limit": limit, "units": out}


def page_data(run_name: str, sections: list[Section], limit: int = LIMIT, seed: int = 0) -> dict:
    """Everything the page shows, as one JSON-able dict."""
    strings, out = _Strings(), []
    for s in sections:
        blocks = []
        for row in s.rows.to_dict("records"):
            judged = s.judgments[s.judgments["model"] == row["model"]] if len(s.judgments) else s.judgments
            blocks.append(_block(row, judged, strings, limit, seed))
        out.append({"anchor": anchor(s.measure_id), "measure_id": s.measure_id, "name": s.name,
                    "notebook": s.notebook, "unit": s.unit, "records": s.records, "unit_key": list(s.unit_key),
                    "pairwise": s.pairwise, "no_judgments": s.no_judgments, "blocks": blocks})
    return {"run": run_name, "limit": limit, "strings": strings.items, "sections": out}


def render(data: dict) -> str:
    """The page: style, script and data inline."""
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    title = html.escape(f"Judgments of run {data['run']}")
    return (_TEMPLATE.replace("__TITLE__", title).replace("__STYLE__", _STYLE).replace("__SCRIPT__", _SCRIPT)
            .replace("__DATA__", payload))


_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>__STYLE__</style></head>
<body><header><h1>__TITLE__</h1>
<p>Per measure of the run's findings: the units its n counts and, under each, the judgments: the prompt
(folded), the raw reply, the parsed value or why it did not parse. Pairwise judgments show both orders
side by side; <span class="flip">flipped</span> marks a pair whose verdict changed with the order.</p>
<form id="controls" onsubmit="return false">
<label>show <select id="filter"><option value="">all units</option><option value="flipped">flipped between orders</option>
<option value="unparsed">with an unparsed reply</option><option value="own">own passage chosen</option>
<option value="false">false passage chosen</option></select></label>
<label>dataset <select id="dataset"><option value="">all</option></select></label>
<label>model <select id="model"><option value="">all</option></select></label>
<label>measure <select id="measure"><option value="">all</option></select></label>
<label>search <input id="q" type="search" placeholder="text in a prompt or reply"></label>
</form><details><summary>measures of this run</summary><nav id="toc"></nav></details></header><main id="sections"></main>
<script type="application/json" id="data">__DATA__</script>
<script>__SCRIPT__</script></body></html>
"""

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:0 16px;color:#222}
header{border-bottom:1px solid #ccc;padding-bottom:8px}h1{font-size:20px}h2{font-size:16px;margin:28px 0 4px}
#controls label{margin-right:12px}#toc{font-size:12px;columns:2}#toc a{display:block}
.meta{color:#555;font-size:12px}.block{border:1px solid #ddd;border-radius:4px;margin:8px 0;padding:6px 10px}
.counts{font-weight:600}.warn{color:#a00}.unit{border-top:1px solid #eee;padding:6px 0}
.unit>.uid{font-family:monospace;font-size:12px}.uncounted{opacity:.6}
table.pair{width:100%;border-collapse:collapse;table-layout:fixed;margin:4px 0}
table.pair td{vertical-align:top;border:1px solid #e4e4e4;padding:4px 6px}
table.pair.flipped{outline:2px solid #d35400}.flip{color:#fff;background:#d35400;padding:0 4px;border-radius:3px}
pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;font-size:12px;background:#f7f7f7;padding:4px}
.parsed{color:#0a6e31}.reason{color:#a00}.passages{font-size:12px;color:#444}details summary{cursor:pointer;color:#555}
button.more{margin:6px 0}
"""

_SCRIPT = r"""
const D = JSON.parse(document.getElementById('data').textContent);
const S = D.strings, FLAG = {flipped: 1, unparsed: 2, own: 4, false: 8}, PAGE = 20;
const el = (tag, attrs, ...kids) => {const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {if (k === 'class') e.className = v; else e.setAttribute(k, v);}
  for (const k of kids) e.append(k); return e;};
const fmt = v => v === null ? 'NaN' : (Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(3));
function options(id, values) {const s = document.getElementById(id);
  [...new Set(values)].sort().forEach(v => s.append(el('option', {value: v}, v)));}
options('dataset', D.sections.flatMap(s => s.blocks.flatMap(b => b.units.map(u => u[1]))));
options('model', D.sections.flatMap(s => s.blocks.map(b => b.model)));
options('measure', D.sections.map(s => s.measure_id));
function state() {return Object.fromEntries(['filter', 'dataset', 'model', 'measure', 'q']
  .map(k => [k, document.getElementById(k).value.trim()]));}
function matches(u, st) {
  if (st.filter && !(u[3] & FLAG[st.filter])) return false;
  if (st.dataset && u[1] !== st.dataset) return false;
  if (st.q) {const q = st.q.toLowerCase(); if (!u[0].toLowerCase().includes(q) && !(u[4] || []).some(r => r.some(j =>
    S[j[1]].toLowerCase().includes(q) || S[j[2]].toLowerCase().includes(q) || j[4].toLowerCase().includes(q))))
    return false;}
  return true;}
function judgmentCell(j) {
  const td = el('td', {class: 'judgment'}, el('div', {class: 'order'}, el('b', {}, j[0])));
  if (j[6]) td.append(el('div', {class: 'passages'}, 'passage 1: ' + j[6] + (j[7] ? ' (' + j[7] + ')' : '') +
    (j[8] ? ' · passage 2: ' + j[8] + (j[9] ? ' (' + j[9] + ')' : '') : '')));
  td.append(S[j[1]] ? el('details', {}, el('summary', {}, 'prompt'), el('pre', {}, S[j[1]]))
                    : el('div', {class: 'meta'}, 'prompt not kept in the run\'s records'));
  td.append(el('div', {class: 'meta'}, 'reply' + (j[3] > 1 ? ' (attempt ' + j[3] + ')' : '')), el('pre', {class: 'reply'}, S[j[2]]));
  td.append(j[4] ? el('div', {class: 'parsed'}, 'parsed: ' + j[4]) : el('div', {class: 'reason'}, 'not parsed: ' + j[5]));
  const marks = [j[10] === 1 ? 'own passage chosen' : '', j[11] === 1 ? 'false passage chosen' : ''].filter(Boolean);
  if (marks.length) td.append(el('div', {class: 'meta'}, marks.join(' · ')));
  return td;}
function unitView(u, unit) {
  const div = el('div', {class: 'unit' + (u[2] ? '' : ' uncounted'), 'data-unit': u[0]},
    el('span', {class: 'uid'}, unit + ' ' + u[0] + ' · ' + u[1] + (u[2] ? '' : ' · not counted (no usable judgment)')));
  if (!u[4]) {div.append(el('div', {class: 'meta'}, 'judgments left out of the page (sample above the limit)')); return div;}
  for (const r of u[4]) {
    const flipped = r.length === 2 && (u[3] & FLAG.flipped) && r[0][10] !== -1 && r[1][10] !== -1 && r[0][10] !== r[1][10];
    const t = el('table', {class: 'pair' + (flipped ? ' flipped' : '')}, el('tr', {}, ...r.map(judgmentCell)));
    if (flipped) t.prepend(el('caption', {}, el('span', {class: 'flip'}, 'flipped')));
    div.append(t);}
  return div;}
function blockView(sec, b) {
  const box = el('div', {class: 'block', 'data-measure': sec.measure_id, 'data-model': b.model, 'data-n': b.n === null ? '' : b.n});
  const counted = b.units.filter(u => u[2]).length;
  box.append(el('div', {}, el('b', {}, b.model), ' · estimate ' + fmt(b.estimate) +
    (b.ci[0] !== null ? ' [' + fmt(b.ci[0]) + ', ' + fmt(b.ci[1]) + ']' : '') + ' · findings n = ' + b.n + ' ' + sec.unit + 's'));
  box.append(el('div', {class: 'counts'}, 'shown: ', el('span', {class: 'count'}, ''), ' of ',
    el('span', {class: 'counted'}, String(counted)), ' counted units',
    el('span', {class: 'uncounted-count meta'}, '')));
  if (counted !== b.n) box.append(el('div', {class: 'warn'}, 'the records give ' + counted + ' counted units, the findings row says n = ' + b.n));
  if (b.sampled) box.append(el('div', {class: 'meta sample'}, 'above ' + b.limit + ' units: the judgments of a seeded sample of ' +
    b.limit + ' of ' + b.units.length + ' units are in this page (counts and filters cover all; search reads the sample)'));
  box.append(el('div', {class: 'units'}));
  box._b = b; box._unit = sec.unit; return box;}
function fill(box, st) {
  const b = box._b, list = box.querySelector('.units');
  const hit = b.units.filter(u => matches(u, st));
  box.querySelector('.count').textContent = String(hit.filter(u => u[2]).length);
  const extra = hit.filter(u => !u[2]).length;
  box.querySelector('.uncounted-count').textContent = extra ? ' (+' + extra + ' asked, not counted)' : '';
  list.replaceChildren(); let shown = 0;
  const more = () => {hit.slice(shown, shown + PAGE).forEach(u => list.append(unitView(u, box._unit))); shown += PAGE;
    if (shown < hit.length) list.append(el('button', {class: 'more', type: 'button'}, 'next ' + PAGE + ' of ' + (hit.length - shown) + ' more'));};
  list.onclick = e => {if (e.target.classList.contains('more')) {e.target.remove(); more();}};
  more();}
const main = document.getElementById('sections'), toc = document.getElementById('toc');
for (const sec of D.sections) {
  const s = el('section', {id: sec.anchor, 'data-measure': sec.measure_id}, el('h2', {}, sec.measure_id),
    el('div', {class: 'meta'}, sec.name + ' · notebook ' + sec.notebook + ' · unit: ' + sec.unit +
      (sec.records ? ' · records: ' + sec.records + ' (unit key ' + sec.unit_key.join(', ') + ')' : '')));
  if (sec.no_judgments) s.append(el('div', {class: 'meta nojudgments'}, 'no judgments shown: ' + sec.no_judgments));
  else for (const b of sec.blocks) s.append(blockView(sec, b));
  main.append(s); toc.append(el('a', {href: '#' + sec.anchor}, sec.measure_id));}
function apply() {const st = state();
  for (const s of main.children) s.hidden = !!st.measure && s.dataset.measure !== st.measure;
  for (const box of main.querySelectorAll('.block')) {box.hidden = !!st.model && box.dataset.model !== st.model; fill(box, st);}
  const q = new URLSearchParams(Object.entries(st).filter(([, v]) => v));
  try {history.replaceState(null, '', (q.toString() ? '?' + q : location.pathname) + location.hash);} catch (e) {}}
const params = new URLSearchParams(location.search);
for (const k of ['filter', 'dataset', 'model', 'measure', 'q']) if (params.get(k)) document.getElementById(k).value = params.get(k);
document.getElementById('controls').addEventListener('input', apply);
apply();
if (location.hash) {const t = document.getElementById(location.hash.slice(1)); if (t) t.scrollIntoView();}
"""
