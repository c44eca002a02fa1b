"""A whole professional game analysed by KaTrain 1.20.0 under its default
rules (Japanese) against tengen, and every move's points lost compared with
KataGo's for the same game, recorded beside this file
(`japanese-game-katago.json`): KataGo is not needed to run the test.

Both engines search alike and deterministically: the same network, one fixed
symmetry (`nnRandomize = false`), one search thread, no root noise, leaves
evaluated one at a time (tengen in f32, as KataGo's CPU build), the settings
of `scripts/search-agreement`. KaTrain asks its own queries, as it does when
it opens a record: one per position, with its rules, komi and visits.

The recording is made by the same test against KataGo:

    KATRAIN_RECORD=crates/analysis/clients/katrain/japanese-game-katago.json \\
    KATAGO_ANALYSIS_CMD="env LD_PRELOAD=$PWD/target/ftz.so /path/to/katago analysis" \\
    TENGEN_KATAGO_MODEL=$PWD/target/katago/b10c384h6nbttflrs.bin.gz \\
        target/katrain-venv/bin/python -m pytest -q -s crates/analysis/clients/katrain/test_japanese.py

(`KATAGO_ANALYSIS_CMD` without `-model`/`-config`: the test adds both.)
Without KATRAIN_RECORD the engine is always tengen (TENGEN_BIN with
TENGEN_KATAGO_MODEL and the deterministic config; ANALYSIS_ENGINE_CMD and
TENGEN_ANALYSIS_ARGS are not used here)."""

import hashlib
import json
import math
import os
import pathlib
import shlex
import statistics
import subprocess
import sys
import time

import pytest
from conftest import scaled, start_engine, stop_engine, wait_until

from katrain.core.constants import VERSION
from katrain.core.game import Game, KaTrainSGF

# Debian's goban-original-games: Kobayashi Koichi (Black) against Ryu Shikun
# (White), 21st Tengen title match, 1995, game 5: 227 moves,
# counted to the end, White won by half a point. The record gives komi 5.5
# (KM[5.5]), which KaTrain sends, and no rule set (no RU), so KaTrain
# uses its default, `game/rules` in its config.json: "japanese".
GAME_PATH = "/usr/share/goban/T-21-5.mgt"
GAME_SHA256 = "f2d7a5b700a4026f06adb5d817b1351794e00124d4051e375ccf201721bdf41d"
GAME_MOVES = 227
KOMI = 5.5
RULES = "japanese"

# Visits per position (KaTrain's max_visits): 228 positions, about 4 to 5
# minutes for tengen on two cores (24 visits took 7).
VISITS = 16
# No move's points lost may differ from KataGo's by more than this.
BOUND = 1.5
# Hang guards on the whole game's analysis (scaled by TENGEN_TEST_TIME_SCALE
# in wait_until): tengen, and KataGo (slower) when recording. The time taken
# is printed, never asserted.
TENGEN_TIMEOUT_S = 1800
RECORD_TIMEOUT_S = 3600

RECORDING = pathlib.Path(__file__).resolve().with_name("japanese-game-katago.json")

# The analysis config of both engines (KataGo's config format, which
# `tengen analysis --config` reads), as in scripts/search-agreement.
CONFIG = """logDir = {logs}
logToStderr = false
numAnalysisThreads = 1
numSearchThreadsPerAnalysisThread = 1
nnRandomize = false
numEigenThreadsPerModel = 1
nnCacheSizePowerOfTwo = 18
wideRootNoise = 0.0
rootSymmetryPruning = false
ignorePreRootHistory = false
"""
# tengen's own settings on top of the config: f32 as KataGo's CPU build, and
# one leaf evaluated at a time by one evaluator thread.
TENGEN_OVERRIDES = "precision=f32,searchBatchSize=1,numNNThreads=1"
# KaTrain's engine settings for the test: the visits, no root noise (KaTrain
# sends its own wideRootNoise with every query), and no time limit (its
# maxTime, 8 s by default, would make the search depend on the machine).
KATRAIN_SETTINGS = dict(max_visits=VISITS, fast_visits=VISITS, wide_root_noise=0.0, max_time=3600.0)


def main_line(root):
    nodes = [root]
    while nodes[-1].children:
        nodes.append(nodes[-1].children[0])
    return nodes


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def write_config(tmp_path):
    path = tmp_path / "analysis.cfg"
    path.write_text(CONFIG.format(logs=tmp_path / "logs"))
    return path


def model_path():
    model = os.environ.get("TENGEN_KATAGO_MODEL", "").strip()
    if not model:
        pytest.fail("TENGEN_KATAGO_MODEL is not set: a KataGo network (.bin.gz) for both engines", pytrace=False)
    if not os.path.isfile(model):
        pytest.fail(f"TENGEN_KATAGO_MODEL={model!r} is not a file", pytrace=False)
    return model


def analyse_game(katrain, monkeypatch, timeout):
    """KaTrain opens the record and analyses every position with the engine
    the environment names (see conftest.py); returns the main line's nodes,
    the queries KaTrain sent, and the seconds it took."""
    if not os.path.isfile(GAME_PATH):
        pytest.fail(
            f"{GAME_PATH} is missing: install Debian's goban-original-games (apt-get install goban-original-games)",
            pytrace=False,
        )
    assert sha256(GAME_PATH) == GAME_SHA256, f"{GAME_PATH} is not the record the recording was made from"
    assert katrain.config("game/rules") == RULES, "KaTrain's default rules are not Japanese"
    root = KaTrainSGF.parse_file(GAME_PATH)
    assert root.get_property("RU", None) is None, "the record names its rules; KaTrain's default would not apply"

    engine = start_engine(katrain, **KATRAIN_SETTINGS)
    queries = []
    send_query = engine.send_query

    def recording_send_query(query, *args, **kwargs):
        queries.append(query)
        return send_query(query, *args, **kwargs)

    monkeypatch.setattr(engine, "send_query", recording_send_query)
    try:
        started = time.monotonic()
        game = Game(katrain, engine, move_tree=root)  # queues an analysis of every node
        nodes = main_line(game.root)
        assert len(nodes) == GAME_MOVES + 1, f"{GAME_PATH}: expected {GAME_MOVES} moves, found {len(nodes) - 1}"

        def missing():
            return [n.depth for n in nodes if not n.analysis_complete]

        wait_until(
            katrain,
            engine,
            lambda: not missing(),
            timeout,
            f"KaTrain's analysis of all {len(nodes)} positions (still missing at depths {missing()[:20]})",
        )
        elapsed = time.monotonic() - started
    finally:
        stop_engine(katrain, engine)
    assert not katrain.errors, katrain.errors

    # What KaTrain asked: every position once, under Japanese rules with the
    # record's komi, at the test's visits, with no noise and no time limit.
    assert sorted(q["analyzeTurns"][0] for q in queries) == list(range(GAME_MOVES + 1)), "not one query a position"
    for q in queries:
        where = f"KaTrain's query for turn {q['analyzeTurns'][0]}"
        assert q["rules"] == RULES, (where, q["rules"])
        assert q["komi"] == KOMI, (where, q["komi"])
        assert q["maxVisits"] == VISITS, (where, q["maxVisits"])
        assert q["overrideSettings"]["wideRootNoise"] == 0.0, (where, q["overrideSettings"])
        assert q["overrideSettings"]["reportAnalysisWinratesAs"] == "BLACK", (where, q["overrideSettings"])
    for node in nodes:
        root_info = node.analysis["root"]
        assert root_info["visits"] >= VISITS, (f"position after move {node.depth}", root_info)
        assert math.isfinite(root_info["scoreLead"]), (f"position after move {node.depth}", root_info)
        if node.depth > 0:
            assert node.points_lost is not None and math.isfinite(node.points_lost), f"move {node.depth}"
    return nodes, queries, elapsed


def positions_of(nodes):
    """Each position as the recording keeps it: the move that led to it and
    the points KaTrain says it lost, and the root's lead (Black's), win rate,
    visits and best move."""
    positions = []
    for node in nodes:
        root_info = node.analysis["root"]
        positions.append(
            {
                "move": node.depth,
                "player": node.move.player if node.move else None,
                "gtp": node.move.gtp() if node.move else None,
                "pointsLost": round(node.points_lost, 4) if node.depth > 0 else None,
                "scoreLead": round(root_info["scoreLead"], 4),
                "winrate": round(root_info["winrate"], 5),
                "visits": root_info["visits"],
                "best": node.candidate_moves[0]["move"] if node.candidate_moves else None,
            }
        )
    return positions


def record(katrain, monkeypatch, tmp_path, out):
    """KATRAIN_RECORD mode: the same analysis against KataGo, written to out."""
    prefix = os.environ.get("KATAGO_ANALYSIS_CMD", "").strip()
    if not prefix:
        pytest.fail(
            "KATRAIN_RECORD is set but KATAGO_ANALYSIS_CMD is not: KataGo's analysis command without "
            '-model/-config, e.g. "env LD_PRELOAD=$PWD/target/ftz.so /path/to/katago analysis"',
            pytrace=False,
        )
    model = model_path()
    config = write_config(tmp_path)
    command = f"{prefix} -model {shlex.quote(model)} -config {shlex.quote(str(config))}"
    version = subprocess.run(
        command,
        shell=True,
        input=json.dumps({"id": "version", "action": "query_version"}) + "\n",
        capture_output=True,
        text=True,
        timeout=scaled(300),
    )
    answer = [json.loads(line) for line in version.stdout.splitlines() if line.startswith("{")]
    assert answer and "version" in answer[0], f"no version from {command}: {version.stdout} {version.stderr[-2000:]}"
    monkeypatch.setenv("ANALYSIS_ENGINE_CMD", command)
    nodes, queries, elapsed = analyse_game(katrain, monkeypatch, RECORD_TIMEOUT_S)
    first = min(queries, key=lambda q: q["analyzeTurns"][0])
    data = {
        "about": (
            "KataGo's points lost for every move of a professional game, as KaTrain reads them "
            "(the mover's score lead before the move minus after), for test_japanese.py"
        ),
        "regenerate": (
            f"KATRAIN_RECORD={out} KATAGO_ANALYSIS_CMD={shlex.quote(prefix)} "
            f"TENGEN_KATAGO_MODEL={model} "
            "target/katrain-venv/bin/python -m pytest -q -s crates/analysis/clients/katrain/test_japanese.py"
        ),
        "engine": {
            "name": "KataGo",
            "version": answer[0]["version"],
            "command": prefix + " -model MODEL -config CONFIG",
            "config": CONFIG.replace("{logs}", "(a temporary folder)"),
        },
        "client": {"name": "KaTrain", "version": VERSION, "engine_settings": KATRAIN_SETTINGS},
        "model": {"file": os.path.basename(model), "sha256": sha256(model)},
        "game": {
            "file": GAME_PATH,
            "package": "goban-original-games (Debian)",
            "sha256": GAME_SHA256,
            "moves": GAME_MOVES,
            "result": "W+0.5",
        },
        "query": {k: first[k] for k in ("rules", "komi", "maxVisits", "overrideSettings")},
        "visits": VISITS,
        "elapsed_s": round(elapsed, 1),
        "python": sys.version.split()[0],
        "positions": positions_of(nodes),
    }
    pathlib.Path(out).write_text(json.dumps(data, indent=1) + "\n")
    print(f"recorded {len(nodes)} positions from KataGo {answer[0]['version']} in {elapsed:.1f} s into {out}")


def test_japanese_game_points_lost_match_katago(katrain, monkeypatch, tmp_path):
    out = os.environ.get("KATRAIN_RECORD", "").strip()
    if out:
        record(katrain, monkeypatch, tmp_path, out)
        return

    if not RECORDING.is_file():
        pytest.fail(f"{RECORDING} is missing: KataGo's recording of the game", pytrace=False)
    recorded = json.loads(RECORDING.read_text())
    assert recorded["visits"] == VISITS, f"the recording is at {recorded['visits']} visits, the test at {VISITS}"
    assert recorded["game"]["sha256"] == GAME_SHA256, "the recording is of another record"
    assert recorded["query"]["rules"] == RULES and recorded["query"]["komi"] == KOMI, recorded["query"]

    # tengen, as conftest.py starts it, with the deterministic config.
    if not os.environ.get("TENGEN_BIN", "").strip():
        pytest.fail(
            "TENGEN_BIN is not set: the tengen binary (this test always runs tengen; ANALYSIS_ENGINE_CMD is not used)",
            pytrace=False,
        )
    model = model_path()
    config = write_config(tmp_path)
    monkeypatch.delenv("ANALYSIS_ENGINE_CMD", raising=False)
    monkeypatch.setenv(
        "TENGEN_ANALYSIS_ARGS",
        f"--config {shlex.quote(str(config))} --override-config {TENGEN_OVERRIDES}",
    )
    if recorded["model"]["sha256"] != sha256(model):
        pytest.fail(f"TENGEN_KATAGO_MODEL={model!r} is not the network KataGo was recorded with "
                    f"({recorded['model']['file']})", pytrace=False)
    nodes, _, elapsed = analyse_game(katrain, monkeypatch, TENGEN_TIMEOUT_S)
    ours = positions_of(nodes)
    theirs = recorded["positions"]
    assert [(p["move"], p["gtp"]) for p in ours] == [(p["move"], p["gtp"]) for p in theirs], (
        "the recording's moves are not the game's"
    )

    rows = []
    for mine, kata in zip(ours[1:], theirs[1:]):
        gap = abs(mine["pointsLost"] - kata["pointsLost"])
        rows.append((gap, mine, kata))
    gaps = sorted(gap for gap, _, _ in rows)
    lead_gaps = sorted(abs(m["scoreLead"] - k["scoreLead"]) for m, k in zip(ours, theirs))
    same_best = sum(m["best"] == k["best"] for m, k in zip(ours, theirs))
    worst = sorted(rows, key=lambda r: -r[0])[:8]
    lines = [
        f"{GAME_PATH}: {len(rows)} moves, {VISITS} visits, Japanese rules, komi {KOMI}; "
        f"tengen took {elapsed:.1f} s (KataGo's recording {recorded['elapsed_s']} s)",
        f"|points lost tengen - KataGo|: median {statistics.median(gaps):.3f}, max {gaps[-1]:.3f}; "
        f"over 0.5: {sum(g > 0.5 for g in gaps)}, over 1.0: {sum(g > 1.0 for g in gaps)}, "
        f"over {BOUND}: {sum(g > BOUND for g in gaps)}",
        f"|root lead tengen - KataGo| over {len(lead_gaps)} positions: median {statistics.median(lead_gaps):.3f}, "
        f"max {lead_gaps[-1]:.3f}; same best move at {same_best} positions",
        "worst moves (move, player, point: points lost KataGo / tengen; Black's lead after it KataGo / tengen):",
    ]
    for gap, mine, kata in worst:
        lines.append(
            f"  move {mine['move']} {mine['player']} {mine['gtp']}: "
            f"{kata['pointsLost']:.2f} / {mine['pointsLost']:.2f} (differ by {gap:.2f}); "
            f"lead {kata['scoreLead']:.2f} / {mine['scoreLead']:.2f}"
        )
    summary = "\n".join(lines)
    print(summary)
    over = [(mine["move"], gap) for gap, mine, _ in rows if gap > BOUND]
    if over:
        pytest.fail(
            f"{len(over)} moves' points lost differ from KataGo's by more than {BOUND}: "
            f"{[(m, round(g, 2)) for m, g in over]}\n{summary}",
            pytrace=False,
        )
