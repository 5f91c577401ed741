"""write_records beside read_records: one JSON-lines writer for every study."""
import json

import numpy as np
import pandas as pd
import pytest

from lib.records import DataError, read_records, write_records


def test_dicts_round_trip_with_non_ascii_and_append(tmp_path):
    path = tmp_path / "deep" / "r.jsonl"
    rows = [{"q": "Qui a écrit « Frankenstein » ?", "n": 1}, {"q": "東京", "replies": ["a", None]}]
    assert write_records(path, rows) == path
    assert read_records(path) == rows
    assert "écrit" in path.read_text(encoding="utf-8")  # kept as written, not \\u-escaped
    write_records(path, iter([{"q": "third"}]), append=True)
    assert [r["q"] for r in read_records(path)] == [rows[0]["q"], rows[1]["q"], "third"]
    write_records(path, [{"q": "only"}])  # without append the file is replaced
    assert read_records(path) == [{"q": "only"}]


def test_frames_write_nan_as_null_and_read_back(tmp_path):
    frame = pd.DataFrame({"item_id": ["a", "b"], "score": [1.5, np.nan], "tags": [["x"], []]})
    path = write_records(tmp_path / "f.jsonl", frame)
    back = read_records(path)
    assert back[1]["score"] is None and back[0] == {"item_id": "a", "score": 1.5, "tags": ["x"]}
    with pytest.raises(ValueError, match="append"):
        write_records(path, frame, append=True)


def test_values_json_cannot_hold_become_text_and_a_broken_line_is_named(tmp_path):
    path = write_records(tmp_path / "p.jsonl", [{"path": tmp_path}])
    assert read_records(path) == [{"path": str(tmp_path)}]
    path.write_text(path.read_text() + "{not json\n")
    with pytest.raises(DataError, match="line 2"):
        read_records(path)
    assert json.loads(path.read_text().splitlines()[0]) == {"path": str(tmp_path)}
