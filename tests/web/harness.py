"""tests/web/harness.py — what the browser tests stand on: a real arbiterd
with the repository's web/ as its web root, its tokens, REST calls, and one
headless Chromium driven by Debian's python3-selenium and chromium-driver.

tests/run.sh starts the suite's PostgreSQL and exports where it is
(ARBITER_TEST_DSN, ARBITER_TEST_PGDIR, ARBITER_TEST_TMP,
ARBITER_TEST_DAEMON_GAMES, ARBITER_TEST_ROOT, ARBITER_TEST_BUILD).  The
daemon is the test build (it has the test-only game "reflex"), on a free
port, with a database of its own, and says it is ready with READY=1 on a
NOTIFY_SOCKET bound here: a signal, not a time.  Everything started here is
stopped by pid at the end, also when a test fails or the run is cut short
(atexit).

Waiting is always for a condition with a deadline (wait_for): a hang guard
of WAIT_S, never a timing assertion.
"""
import atexit
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

# How long anything that should take milliseconds may take before the test
# calls it hung: generous, as harness.h's HARNESS_WAIT_MS.
WAIT_S = 30.0
POLL_S = 0.05

_children = []


def env(name):
    v = os.environ.get(name)
    if not v:
        raise SystemExit(f"{name} is not set: run the browser tests through tests/run.sh (make test)")
    return v


def _kill_children():
    for p in _children:
        if p.poll() is None:
            p.kill()
            p.wait()


atexit.register(_kill_children)


def wait_for(cond, what, timeout=WAIT_S):
    """Returns cond()'s first truthy value; fails naming what after timeout."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            v = cond()
            if v:
                return v
        except Exception as e:     # a condition may fail while the page changes
            last_error = e
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}" + (f" (last error: {last_error})" if last_error else ""))
        time.sleep(POLL_S)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def create_database(name):
    root = env("ARBITER_TEST_ROOT")
    subprocess.run([f"{root}/tools/pgcluster", env("ARBITER_TEST_PGDIR"), "psql", "-q", "-c", f"CREATE DATABASE {name}"],
                   check=True, stdout=subprocess.DEVNULL)
    base = env("ARBITER_TEST_DSN")
    parts = [p for p in base.split() if not p.startswith("dbname=")]
    return " ".join(parts + [f"dbname={name}"])


class Daemon:
    """arbiterd-test on one port and one database; restartable on both."""

    def __init__(self, name, dsn=None, venue=None):
        """A database of its own, or dsn's: another venue's daemon on the
        same database (venue: its [venue] id)."""
        self.tmp = env("ARBITER_TEST_TMP")
        self.root = env("ARBITER_TEST_ROOT")
        self.binary = env("ARBITER_TEST_DAEMON_GAMES")
        self.dsn = dsn or create_database(name)
        self.venue = venue
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = f"{self.tmp}/{name}.log"
        self.spool = f"{self.tmp}/{name}-spool"
        self.notify_path = f"{self.tmp}/{name}.notify"
        self.proc = None

    def base_env(self):
        e = {k: v for k, v in os.environ.items() if k not in ("JOURNAL_STREAM", "INVOCATION_ID", "NOTIFY_SOCKET")}
        e.update(ARBITER_DSN=self.dsn, ARBITER_MIGRATIONS=f"{self.root}/migrations", ARBITER_BUS="none")
        if self.venue:
            e.update(ARBITER_VENUE=self.venue)
        return e

    def create_token(self, role, name):
        out = subprocess.run([self.binary, "--create-token", role, name], env=self.base_env(), check=True,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        return out.stdout.strip()

    def start(self):
        try:
            os.unlink(self.notify_path)
        except FileNotFoundError:
            pass
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(self.notify_path)
        e = self.base_env()
        e.update(ARBITER_LISTEN=f"127.0.0.1:{self.port}", ARBITER_SPOOL=self.spool,
                 ARBITER_WEB=f"{self.root}/web", ARBITER_LOG_LEVEL="info", NOTIFY_SOCKET=self.notify_path)
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen([self.binary], env=e, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        _children.append(self.proc)
        log.close()
        deadline = time.monotonic() + WAIT_S
        got = b""
        try:
            while b"READY=1" not in got:
                if self.proc.poll() is not None:
                    raise AssertionError(f"arbiterd exited with {self.proc.returncode}; see {self.log_path}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"arbiterd sent no READY=1 in {WAIT_S} s; see {self.log_path}")
                sock.settimeout(min(left, 0.5))
                try:
                    got += sock.recv(4096) + b"\n"
                except socket.timeout:
                    pass
        finally:
            sock.close()
        wait_for(lambda: self.get("/v1/status")["tokens"]["loaded"], "the token cache to load")

    def kill(self):
        """SIGKILL, as a crash: no graceful stop."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=WAIT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    # ---- REST

    def request(self, method, path, token=None, body=None, expect=(200, 201)):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=WAIT_S) as r:
                status, text = r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode()
        if expect and status not in expect:
            raise AssertionError(f"{method} {path}: HTTP {status}: {text}")
        return json.loads(text) if text else None

    def get(self, path, token=None):
        return self.request("GET", path, token)

    def post(self, path, body=None, token=None, expect=(200, 201)):
        return self.request("POST", path, token, {} if body is None else body, expect)


class Browser:
    """One headless Chromium for the whole run; a fresh tab per test (so
    sessionStorage, where pages keep tokens, starts empty)."""

    def __init__(self, width=1600, height=1000):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        opts = webdriver.ChromeOptions()
        opts.binary_location = "/usr/bin/chromium"
        for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                  f"--window-size={width},{height}", "--hide-scrollbars",
                  # tabs in the background keep their timers and streams going
                  "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                  "--disable-backgrounding-occluded-windows",
                  f"--user-data-dir={env('ARBITER_TEST_TMP')}/chromium-{os.getpid()}"):
            opts.add_argument(a)
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service("/usr/bin/chromedriver", log_path=os.devnull)
        self.d = webdriver.Chrome(service=service, options=opts)
        self.d.set_page_load_timeout(WAIT_S)

    def quit(self):
        self.d.quit()

    def new_tab(self):
        """Opens a fresh tab and closes every other one."""
        old = self.d.window_handles
        self.d.switch_to.new_window("tab")
        keep = self.d.current_window_handle
        for h in old:
            self.d.switch_to.window(h)
            self.d.close()
        self.d.switch_to.window(keep)

    def open(self, url):
        self.d.get(url)

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def text(self, selector="body"):
        return self.js("const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", selector)

    def wait_text(self, selector, needle, what=None):
        return wait_for(lambda: needle in (self.text(selector) or ""), what or f"{selector} to show {needle!r}")

    def wait_js(self, script, what, *args):
        return wait_for(lambda: self.js(script, *args), what)

    # Live pages redraw often: a control is found and clicked in one script,
    # so that it cannot be replaced between the two.
    _CLICK_JS = """
        const e = [...document.querySelectorAll(arguments[0])]
          .find(e => (arguments[1] === null || e.innerText.includes(arguments[1])) && !e.disabled && e.offsetParent !== null);
        if (!e) return false;
        e.click();
        return true;"""

    def click(self, selector):
        wait_for(lambda: self.js(self._CLICK_JS, selector, None), f"{selector} to be clickable")

    def click_text(self, selector, text):
        """Clicks the first element matching selector whose text contains text."""
        wait_for(lambda: self.js(self._CLICK_JS, selector, text), f"a {selector} saying {text!r}")

    def connection(self):
        return self.js("return document.body.dataset.connection;")

    def save_failure(self, name):
        d = os.path.join(env("ARBITER_TEST_BUILD"), "web-failures")
        os.makedirs(d, exist_ok=True)
        for h in self.d.window_handles:
            self.d.switch_to.window(h)
            tag = f"{name}-{self.d.window_handles.index(h)}"
            self.d.save_screenshot(os.path.join(d, f"{tag}.png"))
            with open(os.path.join(d, f"{tag}.txt"), "w") as f:
                f.write(self.d.current_url + "\n\n" + (self.text() or "") + "\n\n")
                for entry in self.d.get_log("browser"):
                    f.write(f"{entry['level']} {entry['message']}\n")
        return d
