"""CONTRIBUTING.md's map of the source names every file of src/: a file
that no part claims is a file nobody can find."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_every_source_file_is_in_the_map():
    with open(os.path.join(ROOT, "CONTRIBUTING.md")) as f:
        text = f.read()
    table = "\n".join(line for line in text.splitlines() if line.startswith("| "))
    named = set(re.findall(r"`(?:src/)?([\w.]+\.[ch])`", table))
    files = {f for f in os.listdir(os.path.join(ROOT, "src")) if f.endswith((".c", ".h"))}
    missing = sorted(files - named)
    assert not missing, "CONTRIBUTING.md's table of parts does not name: " + ", ".join(missing)
    gone = sorted(n for n in named - files if not os.path.exists(os.path.join(ROOT, n)))
    assert not gone, "CONTRIBUTING.md names files src/ does not have: " + ", ".join(gone)
