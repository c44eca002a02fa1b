"""A record reviewed by `tengen review`, opened with KaTrain's own SGF reader:
KaTrain unpacks every node's analysis (`KT`) and reads the score, the win
rate, the points each move lost and the candidates from it without asking
an engine, as it does with the records it saved itself."""

import math
import os
import pathlib
import re
import subprocess

import pytest
from conftest import EngineUnavailable, engine_command, scaled  # noqa: F401 - same checks as the engine tests

from katrain.core.game import KaTrainSGF

RECORD = (
    pathlib.Path(__file__).resolve().parents[3]
    / "gtp/tests/data/finished/mcts-vs-gnugo-level10-9x9/game-0001.sgf"
)
MOVES = 50


def main_line(root):
    nodes = [root]
    while nodes[-1].children:
        nodes.append(nodes[-1].children[0])
    return nodes


def review(tmp_path):
    try:
        engine_command()
    except EngineUnavailable as error:
        pytest.fail(str(error), pytrace=False)
    out = tmp_path / "reviewed.sgf"
    done = subprocess.run(
        [
            os.environ["TENGEN_BIN"],
            "review",
            str(RECORD),
            "--model",
            os.environ["TENGEN_KATAGO_MODEL"],
            "--visits",
            "3",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=scaled(600),  # a hang guard: the review takes seconds
    )
    assert done.returncode == 0, done.stderr
    return out


def test_katrain_reads_the_review(katrain, tmp_path):
    path = review(tmp_path)
    root = KaTrainSGF.parse_file(str(path))
    nodes = main_line(root)
    assert len(nodes) == MOVES + 1
    for node in nodes:
        where = f"position after move {node.depth}"
        assert node.load_analysis(), f"KaTrain cannot unpack the analysis of the {where}"
        analysis = node.analysis
        assert analysis["completed"], where
        assert analysis["root"]["visits"] >= 3, where
        assert 0.0 <= node.winrate <= 1.0, where
        # The same numbers as Sabaki's properties (rounded there to 0.01).
        assert node.score == pytest.approx(float(node.get_property("SBKS")), abs=0.0051), where
        assert 100 * node.winrate == pytest.approx(float(node.get_property("SBKV")), abs=0.0051), where
        assert len(analysis["policy"]) == 9 * 9 + 1, where
        assert len(analysis["ownership"]) == 9 * 9, where
        # Half precision, as KaTrain packs them.
        assert all(-1.001 <= v <= 1.001 for v in analysis["ownership"]), where
        assert abs(sum(p for p in analysis["policy"] if p >= 0) - 1.0) < 0.02, where
        assert node.candidate_moves, where
        if node.depth > 0:
            # KaTrain's points lost, from the scores it read: the mover's
            # score lead before minus after.
            lost = node.points_lost
            assert lost is not None and math.isfinite(lost), where
            sign = 1 if node.move.player == "B" else -1
            assert lost == pytest.approx(sign * (node.parent.score - node.score)), where
            # tengen's comment on the move says the same, to a tenth.
            note = node.note
            assert f"Move {node.depth}, " in note, (where, note)
            if node.depth > MOVES - 2:
                # The two passes that end the game are not rated.
                assert "ends the game; not rated" in note, (where, note)
                continue
            said = re.search(r"(-?\d+\.\d) points lost", note)
            assert said and abs(float(said.group(1)) - lost) <= 0.051, (where, lost, note)
    # White won the game by 2: the last position is White's from Black's side.
    assert nodes[-1].score < 0, nodes[-1].analysis["root"]
    assert not katrain.errors, katrain.errors
