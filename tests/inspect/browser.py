"""Headless Chromium (Debian's `chromium`, installed by .ci/run) for the inspector's tests: the page's
DOM after its script ran (`--dump-dom`), and a screenshot."""
import shutil
import subprocess
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


def chromium() -> str | None:
    """The browser's executable, or None when it is not installed."""
    return shutil.which("chromium")


def dump_dom(page: Path, query: str, profile: Path) -> str:
    """The DOM of `page` opened from disk with `?query`, after its script ran."""
    url = Path(page).resolve().as_uri() + (f"?{query}" if query else "")
    got = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
                         capture_output=True, text=True, timeout=120, check=True)
    return got.stdout


def screenshot(page: Path, query: str, out: Path, profile: Path, size: str = "1200,1400") -> Path:
    """A PNG of the page as a browser window of `size` shows it."""
    url = Path(page).resolve().as_uri() + (f"?{query}" if query else "")
    subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", "--hide-scrollbars", f"--window-size={size}",
                    f"--screenshot={out}", url], capture_output=True, timeout=120, check=True)
    return out
