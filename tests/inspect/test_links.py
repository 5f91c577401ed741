"""The run README, compare's table and the bias card link each row to its measure's section of the
run's inspect.html (lib.inspect.link / anchor)."""
import json
import re

import pandas as pd

from lib import compare
from lib.inspect import anchor, link
from lib.profile import card
from lib.report import findings

MID = "self_preference_rate.paper_parsed_reply"
OTHER = "judge_overall_accuracy.generate_and_parse"


def _run(root, name, model, rows):
    folder = root / name
    (folder / "findings").mkdir(parents=True)
    frame = pd.DataFrame([findings.finding(s, nb, f"rate {mid}", model, 40, 0.6, 0.5, 0.7, 0.01, unit="question",
                                           measure_id=mid) for s, nb, mid in rows], columns=findings.COLUMNS)
    frame.to_csv(folder / "findings" / "rows.csv", index=False)
    findings.summarize(folder, name)
    (folder / "manifest.json").write_text(json.dumps({"run": name, "command_line_parameters": {"model": model},
                                                      "config": {"parameters": {}}, "notebooks": []}))
    return folder


ROWS = [("self-preference", "06_generation_phase", MID), ("rewardbench", "13_rewardbench", OTHER)]


def test_every_row_of_the_run_readme_links_to_its_section(tmp_runs):
    folder = _run(tmp_runs, "r", "local:smollm2", ROWS)
    text = (folder / "README.md").read_text()
    links = re.findall(r"\[judgments\]\(([^)]+)\)", text)
    assert sorted(links) == sorted([f"inspect.html#{anchor(MID)}", f"inspect.html#{anchor(OTHER)}"])


def test_compare_links_each_entry_to_its_own_run(tmp_runs):
    a = _run(tmp_runs, "a", "local:smollm2", ROWS)
    b = _run(tmp_runs, "b", "local:gemma3", ROWS[:1])
    wide = compare.compare_tables([str(a), str(b)])["wide"].set_index("measure_id")
    cols = [c for c in wide.columns if c.startswith("judgments [")]
    assert len(cols) == 2
    assert wide.loc[MID, cols[0]] == link(MID, f"{a}/") and wide.loc[MID, cols[1]] == link(MID, f"{b}/")
    assert pd.isna(wide.loc[OTHER, cols[1]])  # run b has no row of that measure


def test_the_bias_card_links_measured_rows_only():
    from lib.profile import battery

    first = battery.BATTERY[0]
    rows = [findings.finding("self-preference", first.notebook, "m", "local:smollm2", 12, 0.3, 0.1, 0.5, 0.2,
                             unit="question", measure_id=first.measure_ids[0])]
    shown = card.display_table(card.card(pd.DataFrame(rows, columns=findings.COLUMNS), "local:smollm2"))
    assert shown["judgments"].iloc[0] == link(first.measure_ids[0])
    assert (shown["judgments"].iloc[1:] == "").all() and len(shown) == len(battery.BATTERY)
