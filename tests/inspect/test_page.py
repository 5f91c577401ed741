"""The page's logic without a browser: anchors, what a findings row's block holds (units counted,
filter flags, prompts stored once), the sample above the limit, and data that cannot close the script."""
import json
import re

import pandas as pd

from lib.inspect import anchor, link
from lib.inspect.collect import Section
from lib.inspect.page import FLAGS, page_data, render
from lib.report.measures import JUDGMENT_COLUMNS


def _judgment(unit, order, counted=True, reason="", own=pd.NA, false=pd.NA, flipped=False, prompt="P"):
    return dict(zip(JUDGMENT_COLUMNS, ["m.x", "model-a", unit, "nq", counted, f"{unit}|pair", order, prompt,
                                       f"reply {unit} {order}", 1, "" if reason else "passage 1", reason,
                                       "sim", "true", "human", "false", own, false, flipped]))


def _section(rows):
    findings = pd.DataFrame([{"measure_id": "m.x", "model": "model-a", "n": 2, "n_items": 2, "estimate": 0.5,
                              "ci_low": 0.1, "ci_high": 0.9}])
    return Section("m.x", "a rate", "06_generation_phase", "question", "pairs.jsonl", ("dataset", "item_id"), True,
                   rows=findings, judgments=pd.DataFrame(rows, columns=JUDGMENT_COLUMNS))


def test_anchor_is_an_html_id_and_link_points_at_it():
    assert anchor("human_minus_self.all.rag.self_true.paper_parsed_reply") == "m-human_minus_self-all-rag-self_true-paper_parsed_reply"
    assert re.fullmatch(r"[A-Za-z0-9_-]+", anchor("unreadable_share.utility.listwise set/%"))
    assert link("set_f1.nq.utility", "../run/") == "../run/inspect.html#m-set_f1-nq-utility"


def test_block_counts_units_and_sets_each_filter_flag():
    rows = [_judgment("q1", "own first", own=True, false=False, flipped=True),
            _judgment("q1", "other first", own=False, false=True, flipped=True),
            _judgment("q2", "own first", own=True, false=False),
            _judgment("q2", "other first", counted=False, reason="wrong_format"),
            _judgment("q3", "own first", counted=False, reason="unparsed")]
    data = page_data("run", [_section(rows)])
    block = data["sections"][0]["blocks"][0]
    units = {u[0]: u for u in block["units"]}
    assert block["n"] == 2 and sum(u[2] for u in block["units"]) == 2  # q3 was asked, nothing counted
    assert units["q1"][3] == FLAGS["flipped"] | FLAGS["own"] | FLAGS["false"]
    assert units["q2"][3] == FLAGS["unparsed"] | FLAGS["own"]
    assert units["q3"][3] == FLAGS["unparsed"] and units["q3"][2] == 0
    assert [len(r) for r in units["q1"][4]] == [2]  # both orders of the pair side by side
    assert data["strings"].count("P") == 1  # the prompt is stored once


def test_units_above_the_limit_keep_their_flags_but_only_a_sample_its_judgments():
    rows = [_judgment(f"q{i}", "own first", own=i % 2 == 0) for i in range(50)]
    block = page_data("run", [_section(rows)], limit=10)["sections"][0]["blocks"][0]
    assert block["sampled"] and len(block["units"]) == 50
    assert sum(u[4] is not None for u in block["units"]) == 10
    assert sum(bool(u[3] & FLAGS["own"]) for u in block["units"]) == 25


def test_data_cannot_end_the_script_and_reads_back():
    rows = [_judgment("q1", "own first", prompt="</script><b>x</b>")]
    page = render(page_data("<1>", [_section(rows)]))
    payload = page.split('<script type="application/json" id="data">')[1].split("</script>")[0]
    assert json.loads(payload)["strings"][0] == "</script><b>x</b>"
    assert "<title>Judgments of run &lt;1&gt;</title>" in page
