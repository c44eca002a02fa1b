"""Drives KaTrain's analysis-engine client (katrain.core.engine.KataGoEngine)
against an engine that speaks KataGo's JSON analysis protocol.

The engine command comes from the environment:
  ANALYSIS_ENGINE_CMD   a full shell command line (e.g. KataGo's own engine);
                        it is run with `exec` so that KaTrain's shutdown ends it;
  TENGEN_BIN, TENGEN_KATAGO_MODEL
                        otherwise: `TENGEN_BIN analysis --model TENGEN_KATAGO_MODEL`,
                        followed by TENGEN_ANALYSIS_ARGS when that is set.
Without either, every test fails and says so.

Every wait only guards against a hang: it is generous and scales with
TENGEN_TEST_TIME_SCALE (a positive number, 1 when unset), see `scaled`.
"""

import atexit
import collections
import math
import os
import shlex
import shutil
import tempfile
import threading
import time

import pytest

# Kivy reads these when it is first imported (by KaTrain): no command-line
# parsing, no log files, no console noise, and its home in a temporary folder.
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
if "KIVY_HOME" not in os.environ:
    _kivy_home = tempfile.mkdtemp(prefix="katrain-test-kivy-")
    os.environ["KIVY_HOME"] = _kivy_home
    atexit.register(shutil.rmtree, _kivy_home, True)

from katrain.core.base_katrain import KaTrainBase  # noqa: E402
from katrain.core.constants import OUTPUT_ERROR, OUTPUT_INFO  # noqa: E402
from katrain.core.engine import KataGoEngine  # noqa: E402

# Search size for every query KaTrain makes on its own (game analysis, AI
# moves): one 19x19 network evaluation costs 0.15-0.2 s on one CPU core.
MAX_VISITS = 2
FAST_VISITS = 1
SHUTDOWN_TIMEOUT_S = 120

TIME_SCALE_VARIABLE = "TENGEN_TEST_TIME_SCALE"


def time_scale():
    """The factor every hang guard is multiplied by: TENGEN_TEST_TIME_SCALE,
    a positive number, 1 when unset. A mistyped setting must not silently
    mean 1: it stops the run (see pytest_configure)."""
    text = os.environ.get(TIME_SCALE_VARIABLE)
    if text is None:
        return 1.0
    try:
        scale = float(text)
    except ValueError:
        scale = math.nan
    if not (math.isfinite(scale) and scale > 0):
        raise pytest.UsageError(f"{TIME_SCALE_VARIABLE}={text!r}: expected a positive number, such as 2 or 0.5")
    return scale


def scaled(seconds):
    """`seconds` multiplied by the time scale: how long a test waits before
    it calls a wait a hang. Tests assert on what happened, never on how fast."""
    return seconds * time_scale()


def pytest_configure(config):
    time_scale()  # an invalid scale fails the run before any test starts


class EngineUnavailable(Exception):
    pass


def engine_command():
    """The shell command KaTrain runs as its engine (backend "custom")."""
    full = os.environ.get("ANALYSIS_ENGINE_CMD", "").strip()
    if full:
        return full if full.startswith("exec ") else "exec " + full
    binary = os.environ.get("TENGEN_BIN", "").strip()
    model = os.environ.get("TENGEN_KATAGO_MODEL", "").strip()
    missing = [name for name, value in (("TENGEN_BIN", binary), ("TENGEN_KATAGO_MODEL", model)) if not value]
    if missing:
        raise EngineUnavailable(
            "no analysis engine to test: set TENGEN_BIN (the tengen binary) and TENGEN_KATAGO_MODEL "
            "(a KataGo network, .bin.gz), or ANALYSIS_ENGINE_CMD (a full engine command line); "
            f"missing: {', '.join(missing)}"
        )
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        raise EngineUnavailable(f"TENGEN_BIN={binary!r} is not an executable file")
    if not os.path.isfile(model):
        raise EngineUnavailable(f"TENGEN_KATAGO_MODEL={model!r} is not a file")
    extra = os.environ.get("TENGEN_ANALYSIS_ARGS", "").strip()
    command = f"exec {shlex.quote(binary)} analysis --model {shlex.quote(model)}"
    return f"{command} {extra}" if extra else command


class RecordingKaTrain(KaTrainBase):
    """KaTrain without its GUI, keeping every log line: errors fail the tests,
    and the recent lines (engine stderr included) explain a failure."""

    def __init__(self):
        self.errors = []
        self.recent = collections.deque(maxlen=300)
        self.lines = []  # every line, for tests that look for one
        self._log_lock = threading.Lock()
        super().__init__(force_package_config=True, debug_level=0)

    def log(self, message, level=OUTPUT_INFO):
        text = str(message)
        with self._log_lock:
            self.recent.append(f"[{level}] {text[:400]}")
            self.lines.append(text)
            if level == OUTPUT_ERROR:
                self.errors.append(text)

    def tail(self, n=60):
        with self._log_lock:
            return "\n".join(list(self.recent)[-n:])


def fail_with_log(katrain, message):
    pytest.fail(f"{message}\n--- last KaTrain log lines (engine stderr included) ---\n{katrain.tail()}", pytrace=False)


def wait_until(katrain, engine, predicate, timeout, what):
    """Polls predicate until it holds; fails after timeout seconds (scaled
    here, see `scaled`) or as soon as the engine process has died."""
    timeout = scaled(timeout)
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return
        process = engine.katago_process
        if process is None or process.poll() is not None:
            status = "" if process is None else f" (exit status {process.returncode})"
            fail_with_log(katrain, f"the engine process ended{status} while waiting for {what}")
        if katrain.errors:
            fail_with_log(katrain, f"KaTrain logged an error while waiting for {what}: {katrain.errors[0][:1000]}")
        if time.monotonic() > deadline:
            fail_with_log(katrain, f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.05)


def run_with_timeout(katrain, fn, timeout, what):
    """Runs fn in a thread (KaTrain's AI waits without a limit) and returns its
    result, failing if it takes longer than timeout seconds (scaled here)."""
    timeout = scaled(timeout)
    outcome = {}

    def target():
        try:
            outcome["value"] = fn()
        except BaseException as e:  # re-raised in the test's thread
            outcome["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        fail_with_log(katrain, f"timed out after {timeout:g} s: {what}")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def start_engine(katrain, **overrides):
    unavailable = None
    try:
        command = engine_command()
    except EngineUnavailable as e:
        unavailable = str(e)
    if unavailable:
        pytest.fail(unavailable, pytrace=False)
    settings = dict(katrain.config("engine"))
    settings.update(
        backend="custom",
        altcommand=command,
        allow_recovery=False,  # no recovery pop-ups: there is no GUI
        max_visits=MAX_VISITS,
        fast_visits=FAST_VISITS,
    )
    settings.update(overrides)
    engine = KataGoEngine(katrain, settings)
    process = engine.katago_process
    if process is None or process.poll() is not None:
        fail_with_log(katrain, f"could not start the analysis engine: {command}")
    return engine


def stop_engine(katrain, engine):
    """KaTrain's own shutdown (SIGTERM, then joining its reader threads), bounded."""
    process = engine.katago_process
    thread = threading.Thread(target=engine.shutdown, kwargs={"finish": False}, daemon=True)
    thread.start()
    thread.join(scaled(SHUTDOWN_TIMEOUT_S))
    if process is not None and process.poll() is None:
        process.kill()
    if thread.is_alive():
        fail_with_log(katrain, f"KaTrain's engine shutdown did not finish within {scaled(SHUTDOWN_TIMEOUT_S):g} s")


@pytest.fixture
def katrain():
    return RecordingKaTrain()


@pytest.fixture
def engine(katrain):
    engine = start_engine(katrain)
    yield engine
    stop_engine(katrain, engine)
