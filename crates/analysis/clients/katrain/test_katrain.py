"""KaTrain 1.20.0, a real client of the JSON analysis protocol, against the
engine named by the environment (see conftest.py): a whole professional game
analysed and saved with KaTrain's annotations, AI moves in several of its
modes, and a long search stopped by a terminate.

Every wait only guards against a hang (seconds scaled by
TENGEN_TEST_TIME_SCALE inside wait_until and run_with_timeout); how long a
stop took is printed, not asserted."""

import json
import math
import os
import time

import pytest
from conftest import (
    fail_with_log,
    run_with_timeout,
    start_engine,
    stop_engine,
    wait_until,
    RecordingKaTrain,
)
from goboard import IllegalMove, board_at

from katrain.core.ai import generate_ai_move
from katrain.core.constants import (
    ANALYSIS_FORMAT_VERSION,
    PROGRAM_NAME,
    SGF_INTERNAL_COMMENTS_MARKER,
    VERSION,
)
from katrain.core.game import Game, KaTrainSGF

# A professional game from Debian's goban-original-games: Takagawa Kaku
# against Shimamura Toshihiro, 1956 Honinbo title match, game 2: 152 moves,
# White won by resignation, komi 4.5, no rule set given (KaTrain then uses
# its default, Japanese).
GAME_PATH = "/usr/share/goban/Hon-56-2.mgt"
GAME_MOVES = 152
# 153 positions at 2 visits each; a bound far above what they need.
GAME_TIMEOUT_S = 900

# The position after move 60 of that game, as setup stones, Black to play.
MIDGAME_SGF = (
    "(;GM[1]FF[4]SZ[19]KM[6.5]RU[japanese]PL[B]"
    "AB[bo][bp][cd][cn][cq][de][df][dg][dl][dm][dn][en][fg][fl][fn][fq][gc][gg]"
    "[gn][hg][hl][ho][il][jl][jo][km][kn][pd][pp][qm]"
    "AW[bf][bq][ch][ck][cl][co][cp][dh][dp][dq][ec][ee][em][fh][fm][fo][gb][gh]"
    "[gl][gm][hm][hq][ic][im][jk][jm][jq][kl][lp][nq])"
)
AI_MOVE_TIMEOUT_S = 300
AI_MODES = [
    "ai:default",  # the engine's top move
    "ai:policy",  # the top policy move (needs includePolicy)
    "ai:p:weighted",  # a policy-weighted random move
    "ai:scoreloss",  # weighted by the points each candidate loses
    "ai:jigo",  # the candidate whose score lead is closest to +0.5
    "ai:handicap",  # an extra query with playoutDoublingAdvantage
    "ai:antimirror",  # an extra query with antiMirror
]

# Hang guards for one answer (the first analysis of a position, a query's
# reports, the final response of a stopped search, the engine going idle).
ANSWER_TIMEOUT_S = 300
# How long the terminate test's search runs before it is stopped: long
# enough for reports, far short of its 10,000,000 visits on any machine.
SEARCH_BEFORE_STOP_S = 2.0


def main_line(root):
    nodes = [root]
    while nodes[-1].children:
        nodes.append(nodes[-1].children[0])
    return nodes


def test_whole_game_analysed_and_written_with_annotations(katrain, engine, tmp_path):
    if not os.path.isfile(GAME_PATH):
        pytest.fail(
            f"{GAME_PATH} is missing: install Debian's goban-original-games (apt-get install goban-original-games)",
            pytrace=False,
        )
    root = KaTrainSGF.parse_file(GAME_PATH)
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
        GAME_TIMEOUT_S,
        f"KaTrain's analysis of all {len(nodes)} positions (still missing at depths {missing()[:20]})",
    )
    elapsed = time.monotonic() - started
    print(f"analysed {len(nodes)} positions in {elapsed:.1f} s")

    for node in nodes:
        analysis = node.analysis
        root_info = analysis["root"]
        where = f"position after move {node.depth}"
        assert root_info["visits"] >= 1, where
        assert 0.0 <= root_info["winrate"] <= 1.0, (where, root_info)
        assert math.isfinite(root_info["scoreLead"]), (where, root_info)
        assert analysis["policy"] is not None and len(analysis["policy"]) == 19 * 19 + 1, where
        assert analysis["ownership"] is not None and len(analysis["ownership"]) == 19 * 19, where
        assert all(-1.0 <= v <= 1.0 for v in analysis["ownership"]), where
        assert abs(sum(p for p in analysis["policy"] if p >= 0) - 1.0) < 0.02, where
        assert node.candidate_moves, where
        if node.depth > 0:
            assert node.points_lost is not None, f"no points lost for move {node.depth}"
            assert math.isfinite(node.points_lost), where

    # Values are reported from Black's side (KaTrain asks for that): White
    # won this game by resignation, so the last position is White's.
    last = nodes[-1].analysis["root"]
    assert last["winrate"] < 0.5 and last["scoreLead"] < 0, f"final position not White's from Black's side: {last}"

    # KaTrain's own writer, with everything it can add: comments on every
    # analysed move, marks, and the packed analysis (KT) on every node.
    trainer = dict(katrain.config("trainer"))
    trainer.update(save_feedback=[True] * 6, save_analysis=True, save_marks=True, eval_show_ai=True)
    path = tmp_path / "analysed.sgf"
    game.write_sgf(str(path), trainer_config=trainer)
    text = path.read_text(encoding="utf-8")

    assert f"AP[{PROGRAM_NAME}:{VERSION}]" in text
    assert f"KTV[{ANALYSIS_FORMAT_VERSION}]" in text
    assert f"SGF generated by {PROGRAM_NAME} {VERSION}" in text
    commented = [n for n in nodes[1:] if n.points_lost]  # KaTrain comments where points_lost is non-zero
    assert len(commented) >= GAME_MOVES // 2, f"only {len(commented)} moves have a non-zero point loss"
    for node in commented:
        comment = "".join(node.sgf_properties(save_comments_player={"B": True, "W": True},
                                              save_comments_class=trainer["save_feedback"],
                                              eval_thresholds=trainer["eval_thresholds"]).get("C", []))
        assert SGF_INTERNAL_COMMENTS_MARKER in comment, f"move {node.depth}: no KaTrain comment"
        assert "Score: " in comment and "Win rate: " in comment, f"move {node.depth}: {comment!r}"
    assert text.count("Win rate: ") == len(commented)
    assert text.count("KT[") == len(nodes), "not every node carries its analysis (KT)"

    # It reads back: same moves, and KaTrain unpacks each node's analysis.
    reread = main_line(KaTrainSGF.parse_sgf(text))
    assert [n.move.gtp() if n.move else None for n in reread] == [n.move.gtp() if n.move else None for n in nodes]
    for old, new in zip(nodes, reread):
        assert new.load_analysis(), f"KaTrain cannot unpack its analysis of move {old.depth}"
        assert new.analysis["root"]["visits"] == old.analysis["root"]["visits"]
        assert new.analysis["root"]["scoreLead"] == pytest.approx(old.analysis["root"]["scoreLead"])
        assert new.note == "", "KaTrain's own comments came back as a user note"
    assert not katrain.errors, katrain.errors


@pytest.fixture(scope="module")
def shared_katrain():
    return RecordingKaTrain()


@pytest.fixture(scope="module")
def shared_engine(shared_katrain):
    engine = start_engine(shared_katrain)
    yield engine
    stop_engine(shared_katrain, engine)


@pytest.mark.parametrize("mode", AI_MODES)
def test_ai_mode_plays_legal_moves(shared_katrain, shared_engine, mode):
    katrain, engine = shared_katrain, shared_engine
    katrain.errors.clear()
    game = Game(katrain, engine, move_tree=KaTrainSGF.parse_sgf(MIDGAME_SGF))
    settings = dict(katrain.config(f"ai/{mode}"))
    if mode == "ai:policy":
        settings["opening_moves"] = 0  # otherwise the first 22 moves are weighted ones
    for _ in range(2):  # Black, then White
        node = game.current_node
        player = node.next_player
        board = board_at(node)
        move, played = run_with_timeout(
            katrain,
            lambda: generate_ai_move(game, mode, settings),
            AI_MOVE_TIMEOUT_S,
            f"{mode}: generate_ai_move for {player} after move {node.depth}",
        )
        assert move is not None and played is not None, f"{mode}: no move played"
        assert move.player == player, f"{mode}: {move.player} played for {player}"
        assert played.parent is node and played.move == move
        try:
            board.play(player, None if move.is_pass else move.coords)
        except IllegalMove as e:
            fail_with_log(katrain, f"{mode}: {player} {move.gtp()} is illegal: {e}")
        assert not katrain.errors, f"{mode}: KaTrain logged errors: {katrain.errors}"


class ResponsesSeen:
    """Stands in for the json module of KaTrain's engine and keeps every
    response KaTrain reads, also those of queries it no longer listens to
    (it only logs that it discarded them)."""

    def __init__(self):
        self.responses = []

    def loads(self, text, *args, **kwargs):
        value = json.loads(text, *args, **kwargs)
        self.responses.append((time.monotonic(), value))
        return value

    def __getattr__(self, name):
        return getattr(json, name)

    def of(self, query_id):
        """The responses for query_id so far, with when they were read."""
        return [(at, r) for at, r in list(self.responses) if isinstance(r, dict) and r.get("id") == query_id]


def test_terminate_stops_a_long_search(katrain, engine, monkeypatch):
    seen = ResponsesSeen()
    monkeypatch.setattr("katrain.core.engine.json", seen)
    game = Game(katrain, engine, move_tree=KaTrainSGF.parse_sgf(MIDGAME_SGF))
    node = game.current_node
    wait_until(katrain, engine, lambda: node.analysis_complete, ANSWER_TIMEOUT_S, "the first analysis of the position")

    # KaTrain's pondering: maxVisits 10,000,000 with reports every 0.25 s,
    # stopped by stop_pondering(), which sends {"action": "terminate"} and
    # keeps listening for the query's final response.
    results = []

    def record(analysis, partial):
        results.append((time.monotonic(), partial, analysis["rootInfo"]["visits"]))

    engine.request_analysis(node, callback=record, ponder=True, time_limit=False)
    wait_until(
        katrain, engine, lambda: engine.ponder_query is not None, ANSWER_TIMEOUT_S, "the pondering query to be sent"
    )
    ponder_id = engine.ponder_query["id"]
    assert engine.ponder_query["maxVisits"] >= 1_000_000
    wait_until(
        katrain,
        engine,
        lambda: len([r for r in results if r[1]]) >= 2,
        ANSWER_TIMEOUT_S,
        "two reports during the search",
    )
    time.sleep(max(0.0, SEARCH_BEFORE_STOP_S - (time.monotonic() - results[0][0])))
    assert not any(not partial for _, partial, _ in results), "the long search ended by itself"
    last_partial_visits = results[-1][2]

    stopped_at = time.monotonic()
    engine.stop_pondering()
    wait_until(
        katrain,
        engine,
        lambda: any(not partial for _, partial, _ in results),
        ANSWER_TIMEOUT_S,
        f"the final response of the terminated query {ponder_id}",
    )
    final_at, _, final_visits = next(r for r in results if not r[1])
    print(f"final response {final_at - stopped_at:.2f} s after the terminate, {final_visits} visits")
    # It ended by the terminate, not by its visit limit, with every visit reported before.
    assert final_visits >= last_partial_visits
    assert final_visits < 1_000_000
    wait_until(katrain, engine, engine.is_idle, ANSWER_TIMEOUT_S, "KaTrain's engine to have no queries left")

    # Nothing arrives for it afterwards, and the engine answers a new query.
    count = len(results)
    after = []
    engine.request_analysis(node, callback=lambda a, partial: after.append((partial, a)), visits=2)
    wait_until(
        katrain,
        engine,
        lambda: any(not p for p, _ in after),
        ANSWER_TIMEOUT_S,
        "the answer to a query sent after the terminate",
    )
    final = next(a for p, a in after if not p)
    assert final["rootInfo"]["visits"] >= 1 and final["moveInfos"]
    assert len(results) == count
    late = [line for line in list(katrain.lines) if f"Query result {ponder_id} discarded" in line]
    assert not late, f"{len(late)} responses for {ponder_id} came after its final one"

    # KaTrain's "stop" (analyze_extra): terminates every query and drops
    # their results (KaTrain logs each dropped one). The search must end with
    # its one final response, nothing for it after that, and the engine
    # answer again.
    game.analyze_extra("ponder")
    wait_until(
        katrain,
        engine,
        lambda: engine.ponder_query is not None,
        ANSWER_TIMEOUT_S,
        "the second pondering query to be sent",
    )
    second_id = engine.ponder_query["id"]
    visits_before = node.root_visits
    wait_until(
        katrain,
        engine,
        lambda: node.root_visits > visits_before,
        ANSWER_TIMEOUT_S,
        "a report from the second pondering query",
    )
    stopped_at = time.monotonic()
    game.analyze_extra("stop")

    def final_index():
        return next((i for i, (_, r) in enumerate(seen.of(second_id)) if r.get("isDuringSearch") is False), None)

    wait_until(
        katrain,
        engine,
        lambda: final_index() is not None,
        ANSWER_TIMEOUT_S,
        f"the final response of {second_id} after KaTrain's stop",
    )
    final_at, final = seen.of(second_id)[final_index()]
    print(f"{second_id}: final response {final_at - stopped_at:.2f} s after KaTrain's stop, "
          f"{final['rootInfo']['visits']} visits")
    assert final["rootInfo"]["visits"] < 1_000_000
    again = []
    engine.request_analysis(node, callback=lambda a, partial: again.append(partial), visits=2)
    wait_until(
        katrain, engine, lambda: False in again, ANSWER_TIMEOUT_S, "the answer to a query sent after KaTrain's stop"
    )
    later = [r for _, r in seen.of(second_id)[final_index() + 1:]]
    assert not later, f"{len(later)} responses for {second_id} after its final one: {later[:2]}"
    assert not katrain.errors, katrain.errors


def test_alternatives_and_region_of_interest_avoid_moves(katrain, engine):
    """KaTrain's "find alternatives" and "region of interest" send avoidMoves
    (untilDepth 1): the engine's candidates must keep out of them."""
    game = Game(katrain, engine, move_tree=KaTrainSGF.parse_sgf(MIDGAME_SGF))
    node = game.current_node
    wait_until(katrain, engine, lambda: node.analysis_complete, ANSWER_TIMEOUT_S, "the first analysis of the position")

    def ask(**kwargs):
        answers = []
        engine.request_analysis(node, callback=lambda a, partial: answers.append((partial, a)), **kwargs)
        wait_until(katrain, engine, lambda: any(not p for p, _ in answers), ANSWER_TIMEOUT_S, f"an answer to {kwargs}")
        return next(a for p, a in answers if not p)

    avoided = set(node.analysis["moves"])
    assert avoided, "no candidate moves to avoid"
    alternatives = ask(find_alternatives=True, visits=4)
    moves = [m["move"] for m in alternatives["moveInfos"]]
    assert moves, "no alternative candidates"
    assert not avoided & set(moves), f"avoided {sorted(avoided)} but the engine proposed {moves}"

    # Columns A-G, rows 1-9 (x 0..6, y 0..8): the lower left, where the
    # position has open points.
    xmin, xmax, ymin, ymax = 0, 6, 0, 8
    local = ask(region_of_interest=[xmin, xmax, ymin, ymax], visits=4)
    moves = [m["move"] for m in local["moveInfos"]]
    assert moves, "no candidates in the region"
    for gtp in moves:
        if gtp == "pass":  # KaTrain does not avoid passing
            continue
        column, row = "ABCDEFGHJKLMNOPQRST".index(gtp[0]), int(gtp[1:]) - 1
        assert xmin <= column <= xmax and ymin <= row <= ymax, f"{gtp} lies outside the region"
    assert not katrain.errors, katrain.errors
