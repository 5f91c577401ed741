"""The error of a truth file that cannot be used (raised by the file's reader and every section's check)."""
from __future__ import annotations


class TruthError(ValueError):
    """A truth file that cannot be used: names the file, the key and the fix."""
