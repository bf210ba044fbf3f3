"""report_html(): one self-contained HTML page for runs and experiments,
rendered by headless Chromium.

The page is built from a real run on this server (per-second TPS, latency,
CPU and waits) and from the imported fixture's sweep and settings
comparison; the browser must show it without console errors, not blank,
with its key text, and nothing in it may reach for a network.  The
screenshot is kept in test/artifacts/pgNN/ (the README's picture is one).
"""
import os
import re

import psycopg
import pytest

from conftest import PG_MAJOR, call_run, chromium_screenshot, pgbench_cluster, png_pixels

HERE = os.path.dirname(__file__)
FIXTURE = os.path.join(HERE, "..", "fixtures", "lab_a.json")
# a folder per major: scripts/test.sh runs the majors side by side
ARTIFACTS = os.path.join(HERE, "..", "artifacts", f"pg{PG_MAJOR}")


@pytest.fixture(scope="module")
def lab():
    yield from pgbench_cluster("html", scale=1)


@pytest.fixture(scope="module")
def page(lab):
    with open(FIXTURE) as f:
        mapping = lab.sql("SELECT kind, source_id, id FROM pgbench_lab.import(%s)", (f.read(),))
    exp = {source: local for kind, source, local in mapping if kind == "experiment"}
    run = call_run(lab, "select-only", clients=2, duration="3 s", label="warm cache")
    ids = [run, exp[900], exp[910]]
    html = lab.scalar("SELECT pgbench_lab.report_html(%s::bigint[])", (ids,))
    return {"ids": ids, "run": run, "sweep": exp[900], "compare": exp[910], "html": html}


def test_page_holds_every_id_with_its_charts_and_report(page):
    html = page["html"]
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    for i in page["ids"]:
        assert f"<h2>Run {i}:" in html or f"<h2>Experiment {i}:" in html, i
    # the run's own per-second charts, the sweep's peak and knee, the A/B ranges
    for text in ("TPS per second", "Average latency per second", "Machine CPU busy per second",
                 "peak", "knee", "Each comparison's median ratio and its interval", "B (synchronous_commit=off) against A (synchronous_commit=on)"):
        assert text in html, text
    # provenance: where and how each run was measured, on which server
    assert "<th>server</th>" in html and "<th>path</th>" in html and "Read on " in html
    # the whole text report of each is there too
    assert html.count("<details open><summary>The report</summary>") == len(page["ids"])


def test_page_needs_no_network_and_escapes_what_it_shows(lab, page):
    # the SVG namespace is a name, not a fetch; nothing else points outside
    outside = re.sub(r'xmlns="http://www\.w3\.org/2000/svg"', "", page["html"])
    assert not re.search(r"https?://|\bsrc=|\bhref=|url\(|@import", outside)
    # a label is text, whatever it holds
    run = call_run(lab, "select-only", transactions=10, label="<script>alert(1)</script> & co")
    html = lab.scalar("SELECT pgbench_lab.report_html(ARRAY[%s]::bigint[])", (run,))
    assert "<script" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in html


def test_page_renders_in_chromium(page):
    os.makedirs(ARTIFACTS, exist_ok=True)
    src = os.path.join(ARTIFACTS, "report_html.html")
    png = os.path.join(ARTIFACTS, "report_html.png")
    with open(src, "w") as f:
        f.write(page["html"])
    log = chromium_screenshot(src, png, "1200,2400", ("--enable-logging=stderr", "--v=0"))
    console = [line for line in log.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not console, "\n".join(console)
    pixels = png_pixels(png)
    colors = set(pixels)
    ink = sum(1 for p in pixels if p not in ((255, 255, 255), (250, 250, 250)))
    assert len(colors) > 50, "text, tables and charts, not a blank page"
    assert ink / len(pixels) > 0.02, "something is drawn"
    assert any(abs(p[0] - 0x1f) < 40 and abs(p[1] - 0x77) < 40 and p[2] > 150 for p in colors), \
        "the first curve's blue is on the page"


def test_refusals(lab, page):
    with pytest.raises(psycopg.errors.NullValueNotAllowed):
        lab.sql("SELECT pgbench_lab.report_html(NULL)")
    with pytest.raises(psycopg.errors.UndefinedObject):
        lab.sql("SELECT pgbench_lab.report_html(ARRAY[987654321]::bigint[])")
