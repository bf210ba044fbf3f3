"""Real-server test harness: throwaway PostgreSQL clusters.

Each test module gets clusters of its own, made with the server named by
PGBL_BINDIR (scripts/test.sh sets it: a private PostgreSQL 15 or 18 with
pgbench_lab installed).  initdb and postgres refuse to run as root, so when
the tests run as root the server commands run as "postgres".

Tests wait for conditions with Cluster.poll(); none sleeps for a fixed time.
"""
import base64
import contextlib
import json
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time
import zlib

import psycopg
import pytest

BINDIR = os.environ.get("PGBL_BINDIR")
PG_MAJOR = int(os.environ.get("PGBL_PG_MAJOR", "0") or 0)


def _as_postgres(cmd):
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--"] + cmd
    return cmd


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """One throwaway cluster: initdb, start, connect, stop, crash, remove;
    of PGBL_BINDIR's server, or of the one in bindir (a copy of it)."""

    def __init__(self, name="node", conf=None, hba=None, bindir=None):
        if not BINDIR:
            pytest.skip("PGBL_BINDIR is not set: run through scripts/test.sh")
        self._place(name, bindir or BINDIR)
        self._run(["initdb", "-D", self.datadir, "-U", "postgres",
                   "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"])
        lines = [
            f"port = {self.port}",
            "listen_addresses = '127.0.0.1'",
            f"unix_socket_directories = '{self.base}'",
            "max_worker_processes = 32",
            "fsync = off",
            "log_line_prefix = '%m [%p] %b '",
        ]
        for k, v in (conf or {}).items():
            lines.append(f"{k} = {v}")
        self.append_conf("\n".join(lines) + "\n")
        if hba:
            # lines placed before initdb's trust lines, so they win
            path = os.path.join(self.datadir, "pg_hba.conf")
            with open(path) as f:
                old = f.read()
            with open(path, "w") as f:
                f.write("\n".join(hba) + "\n" + old)

    def _place(self, name, bindir):
        """A folder of its own (owned by postgres) and a free port."""
        self.name = name
        self.bindir = bindir
        self.base = tempfile.mkdtemp(prefix=f"pgbl-{name}-")
        os.chmod(self.base, 0o755)
        if os.geteuid() == 0:
            shutil.chown(self.base, "postgres", "postgres")
        self.datadir = os.path.join(self.base, "data")
        self.logfile = os.path.join(self.base, "server.log")
        self.port = _free_port()

    # -- process control -------------------------------------------------
    def _run(self, cmd, check=True, **kw):
        full = _as_postgres([os.path.join(self.bindir, cmd[0])] + cmd[1:])
        return subprocess.run(full, check=check, capture_output=True, text=True, **kw)

    def append_conf(self, text):
        path = os.path.join(self.datadir, "postgresql.conf")
        with open(path, "a") as f:
            f.write(text)

    def start(self):
        r = self._run(["pg_ctl", "-D", self.datadir, "-l", self.logfile,
                       "-w", "-t", "60", "start"], check=False)
        if r.returncode != 0:
            raise RuntimeError(f"start failed: {r.stderr}\n{self.log()}")
        return self

    def stop(self, mode="fast"):
        self._run(["pg_ctl", "-D", self.datadir, "-m", mode, "-w", "stop"], check=False)

    def restart(self):
        self.stop()
        self.start()

    def log(self):
        try:
            with open(self.logfile) as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def destroy(self):
        self.stop("immediate")
        shutil.rmtree(self.base, ignore_errors=True)

    def postmaster_pid(self):
        with open(os.path.join(self.datadir, "postmaster.pid")) as f:
            return int(f.readline())

    # -- SQL --------------------------------------------------------------
    def connect(self, dbname="postgres", user="postgres", autocommit=True, **kw):
        return psycopg.connect(host="127.0.0.1", port=self.port, dbname=dbname,
                               user=user, autocommit=autocommit, **kw)

    def sql(self, query, params=None, dbname="postgres", user="postgres"):
        """Run one statement in its own connection; return all rows (or [])."""
        with self.connect(dbname=dbname, user=user) as conn:
            cur = conn.execute(query, params)
            return cur.fetchall() if cur.description else []

    def scalar(self, query, params=None, **kw):
        rows = self.sql(query, params, **kw)
        return rows[0][0] if rows else None

    def poll(self, query, params=None, timeout=60, **kw):
        """Wait until the query's first column is true; fail after timeout."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                last = self.scalar(query, params, **kw)
            except psycopg.OperationalError as e:
                last = e
            if last is True:
                return
            time.sleep(0.05)
        raise AssertionError(f"condition not met in {timeout}s: {query!r} (last: {last!r})")

    def bin(self, name):
        return os.path.join(self.bindir, name)

    def run_client(self, name, *args, check=True, socket=False):
        """Run a client program of this server (pgbench, psql) against it,
        over TCP, or with socket=True over its Unix socket (as a benchmark
        must run pgbench: at its best)."""
        host = self.base if socket else "127.0.0.1"
        cmd = [self.bin(name), "-h", host, "-p", str(self.port), "-U", "postgres"]
        return subprocess.run(cmd + list(args), check=check, capture_output=True, text=True)


class Standby(Cluster):
    """A hot standby of a started primary: pg_basebackup -R (streaming, WAL
    included), on a port and socket folder of its own, application_name
    set by cluster_name."""

    def __init__(self, primary, name="standby"):
        self._place(name, primary.bindir)
        self._run(["pg_basebackup", "-D", self.datadir, "-R", "-X", "stream", "--no-sync", "-c", "fast",
                   "-h", "127.0.0.1", "-p", str(primary.port), "-U", "postgres"])
        self.append_conf(f"\nport = {self.port}\nunix_socket_directories = '{self.base}'\n"
                         f"cluster_name = '{name}'\nhot_standby = on\n")


def primary_and_standby(name, standby_name, scale=1):
    """For module fixtures: a primary with pgbench's tables and the
    extension, and a hot standby of it that is streaming;
    `yield from primary_and_standby(...)` gives (primary, standby)."""
    for primary in pgbench_cluster(name, {"shared_buffers": "32MB"}, scale=scale):
        standby = Standby(primary, standby_name)
        try:
            standby.start()
            primary.poll("SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming'")
            yield primary, standby
        finally:
            standby.destroy()


@pytest.fixture(scope="module")
def node():
    """A started cluster with pgbench_lab created in database postgres."""
    c = Cluster("node")
    try:  # a failed set-up must not leave a server running
        c.start()
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        yield c
    finally:
        c.destroy()


@pytest.fixture
def new_cluster():
    """Factory for extra clusters in one test; all are removed afterwards."""
    made = []

    def make(name="extra", conf=None, start=True, hba=None):
        c = Cluster(name, conf, hba)
        made.append(c)
        return c.start() if start else c

    yield make
    for c in made:
        c.destroy()


def pgbench_cluster(name, conf=None, scale=2, **kw):
    """A started cluster with pgbench's tables (pgbench -i) and the extension;
    for module fixtures: `yield from pgbench_cluster("name", {...})`."""
    c = Cluster(name, conf, **kw)
    try:		# a failed set-up must not leave a server running
        c.start()
        c.run_client("pgbench", "-i", "-s", str(scale), "-q", "postgres")
        c.sql("CREATE EXTENSION pgbench_lab CASCADE")
        yield c
    finally:
        c.destroy()


def call_run(c, workload, **kw):
    """CALL pgbench_lab.run(workload, ...) with named arguments; the run
    must end done; returns its run_id."""
    names = "".join(f", {k} => %({k})s" for k in kw)
    with c.connect() as conn:
        row = conn.execute(f"CALL pgbench_lab.run(%(w)s{names})", dict(kw, w=workload)).fetchone()
    assert row[1] == "done", row
    return row[0]


def fired_dir(c):
    """A new folder in c's base that the server may write into: where a
    planted function's COPY ... TO (allowed to a superuser only) leaves its
    evidence.  Returns its path."""
    path = os.path.join(c.base, "fired")
    os.mkdir(path)
    if os.geteuid() == 0:
        shutil.chown(path, "postgres", "postgres")
    return path


@contextlib.contextmanager
def mute_server(connect_timeout=2):
    """A conninfo with connect_timeout for a server that never answers: a
    socket that listens and accepts nothing, for as long as the block."""
    with socket.socket() as mute:
        mute.bind(("127.0.0.1", 0))
        mute.listen(0)
        yield (f"host=127.0.0.1 port={mute.getsockname()[1]} dbname=postgres user=postgres "
               f"connect_timeout={connect_timeout}")


class Background:
    """One statement run on conn in a thread of its own, so that the test
    can cancel or terminate its session (pid); join() waits for it to end
    and returns the psycopg error it raised, or None; ended_at is when."""

    def __init__(self, conn, query, params=None):
        self.conn = conn
        self.pid = conn.info.backend_pid
        self.error = None
        self.ended_at = None
        self.thread = threading.Thread(target=self._run, args=(query, params))
        self.thread.start()

    def _run(self, query, params):
        try:
            self.conn.execute(query, params)
        except psycopg.Error as e:
            self.error = e
        self.ended_at = time.monotonic()

    def join(self, timeout=60):
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "statement did not end"
        return self.error

    def is_alive(self):
        return self.thread.is_alive()


def child_pids(ppid):
    """The processes whose parent is ppid (from /proc)."""
    pids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2:].split()[1]) == ppid:
                pids.append(int(d))
    return pids


@contextlib.contextmanager
def frozen(c):
    """c's postmaster and every process of it stopped (SIGSTOP) for the
    with block, as a server that hangs; all continued after it."""
    postmaster = c.postmaster_pid()
    stopped = [postmaster]
    os.kill(postmaster, signal.SIGSTOP)
    try:
        stopped += child_pids(postmaster)
        for p in stopped[1:]:
            os.kill(p, signal.SIGSTOP)
        yield
    finally:
        for p in reversed(stopped):
            try:
                os.kill(p, signal.SIGCONT)
            except ProcessLookupError:
                pass


def png_pixels(path):
    """Decode an 8-bit RGB/RGBA PNG (what Chromium writes) into pixel tuples."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    pixels = []
    for y in range(height):
        ftype, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        pixels.extend(tuple(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return pixels


def chromium_screenshot(src, png, size, extra=()):
    """Render the file src with headless Chromium (Debian's package, which
    scripts/lib.sh installs) into the screenshot png at size "W,H"; returns
    what the browser wrote on its standard error (its console, with
    --enable-logging=stderr among extra)."""
    browser = shutil.which("chromium")
    if browser is None:
        pytest.skip("chromium is not installed (scripts/lib.sh installs Debian's chromium)")
    profile = tempfile.mkdtemp(prefix="pgbl-chromium-")
    try:
        done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                               "--no-first-run", "--disable-background-networking",
                               "--disable-component-update", "--disable-sync",
                               f"--user-data-dir={profile}", f"--window-size={size}", *extra,
                               f"--screenshot={png}", "file://" + os.path.abspath(src)],
                              check=True, capture_output=True, text=True, timeout=120,
                              # the ASan pass preloads libasan for the servers; not for the browser
                              env={k: v for k, v in os.environ.items()
                                   if k not in ("LD_PRELOAD", "ASAN_OPTIONS")})
        return done.stderr
    finally:
        shutil.rmtree(profile, ignore_errors=True)


class ChromiumPage:
    """One headless Chromium page driven over the DevTools protocol on a
    pipe (--remote-debugging-pipe: no port), for what one launch should do
    several times: run a script in the page and take screenshots of parts
    of it.  Use as a context manager; the browser ends with it."""

    def __init__(self, url, width=1200, height=900):
        browser = shutil.which("chromium")
        if browser is None:
            pytest.skip("chromium is not installed (scripts/lib.sh installs Debian's chromium)")
        self.profile = tempfile.mkdtemp(prefix="pgbl-chromium-")
        r3, w3 = os.pipe()      # the browser reads its commands on fd 3
        r4, w4 = os.pipe()      # and writes its answers on fd 4

        def fds():
            os.dup2(r3, 3)
            os.dup2(w4, 4)
        self.proc = subprocess.Popen(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--remote-debugging-pipe", f"--user-data-dir={self.profile}", "about:blank"],
            pass_fds=(3, 4), preexec_fn=fds, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")})
        os.close(r3)
        os.close(w4)
        self._out = os.fdopen(w3, "wb", buffering=0)
        self._in = os.fdopen(r4, "rb", buffering=0)
        self._buf = b""
        self._n = 0
        self.session = None
        try:
            target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            self.send("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
            # no scroll bar: the page is laid out as wide when measured as when shot
            self.send("Emulation.setScrollbarsHidden", {"hidden": True})
            self.send("Page.navigate", {"url": url})
            deadline = time.monotonic() + 60
            while self.evaluate("document.readyState") != "complete":
                assert time.monotonic() < deadline, "the page did not load"
                time.sleep(0.02)
        except BaseException:
            self.__exit__()
            raise

    def send(self, method, params=None):
        """One command; its result (events in between are dropped)."""
        self._n += 1
        msg = {"id": self._n, "method": method, "params": params or {}}
        if self.session:
            msg["sessionId"] = self.session
        self._out.write(json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + 120
        while True:
            while b"\0" not in self._buf:
                ready, _, _ = select.select([self._in], [], [], max(0, deadline - time.monotonic()))
                if not ready:
                    raise RuntimeError(f"{method}: chromium did not answer within 120 s")
                chunk = self._in.read(1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed its pipe")
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self._n:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def evaluate(self, expression):
        """The value of a script in the page (JSON-serialisable)."""
        res = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        assert "exceptionDetails" not in res, res["exceptionDetails"]
        return res["result"].get("value")

    def screenshot(self, png, x, y, width, height):
        """A PNG of the page's rectangle (page coordinates), beyond the window too."""
        data = self.send("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": x, "y": y, "width": width, "height": height, "scale": 1}})["data"]
        with open(png, "wb") as f:
            f.write(base64.b64decode(data))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.session = None
            self.send("Browser.close")
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        finally:
            self._out.close()
            self._in.close()
            shutil.rmtree(self.profile, ignore_errors=True)
