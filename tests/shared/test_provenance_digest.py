"""The file digest in results.json: right, and read from the memo only while the file is unchanged."""
import hashlib
import json
import os

from lib.report.provenance import file_sha256


def test_digest_is_sha256_and_memo_is_used_until_the_file_changes(tmp_path):
    f, memo = tmp_path / "weights.gguf", tmp_path / "digests.json"
    f.write_bytes(b"weights v1" * 1000)
    want = hashlib.sha256(f.read_bytes()).hexdigest()
    assert file_sha256(f, memo) == want
    # plant a wrong digest in the memo: an unchanged file is answered from the memo (no re-read) ...
    known = json.loads(memo.read_text())
    known[str(f.resolve())]["sha256"] = "planted"
    memo.write_text(json.dumps(known))
    assert file_sha256(f, memo) == "planted"
    # ... and a changed file (new size and time) is read again
    f.write_bytes(b"weights v2, longer" * 1000)
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000))
    assert file_sha256(f, memo) == hashlib.sha256(f.read_bytes()).hexdigest()


def test_unwritable_memo_still_gives_the_digest(tmp_path):
    f = tmp_path / "w.bin"
    f.write_bytes(b"abc")
    memo = tmp_path / "no_such_dir" / "digests.json"
    assert file_sha256(f, memo) == hashlib.sha256(b"abc").hexdigest()
