// The page's rules (src/assets/rules.js) under Node: captures, suicide, ko,
// superko and handicap placement by hand, then random games checked move by
// move against the server, which replays them with tengen-core. The page
// must never think a move legal that the server refuses, nor refuse one the
// server allows.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Game, PRESETS, handicapVertices, parseVertex, readSgf, sgfMainLine, starPoints, vertex,
} from "../src/assets/rules.js";
import { scaled, startServer } from "./server.mjs";

function play(size, rules, moves) {
  return Game.replay(size, PRESETS[rules], 0, moves);
}

test("vertices", () => {
  assert.equal(vertex(19, parseVertex(19, "Q16")), "Q16");
  assert.equal(vertex(9, 0), "A9");
  assert.equal(vertex(9, 80), "J1");
  assert.equal(parseVertex(9, "pass"), -1);
  for (const bad of ["I5", "K1", "A10", "A0", "", "D"]) assert.equal(parseVertex(9, bad), null, bad);
});

test("handicap placement follows the GTP table", () => {
  assert.deepEqual(handicapVertices(19, 2), ["D4", "Q16"]);
  assert.deepEqual(handicapVertices(19, 5), ["D4", "Q16", "D16", "Q4", "K10"]);
  assert.deepEqual(handicapVertices(19, 6), ["D4", "Q16", "D16", "Q4", "D10", "Q10"]);
  assert.deepEqual(handicapVertices(19, 8), ["D4", "Q16", "D16", "Q4", "D10", "Q10", "K4", "K16"]);
  assert.deepEqual(handicapVertices(9, 4), ["C3", "G7", "C7", "G3"]);
  assert.deepEqual(handicapVertices(13, 3), ["D4", "K10", "D10"]);
  assert.deepEqual(handicapVertices(10, 5), []);
  assert.deepEqual(handicapVertices(5, 2), []);
  const game = new Game(9, PRESETS.chinese, 3);
  assert.equal(game.toMove, 2);
});

test("the button's pass does not count towards the end", () => {
  const game = play(9, "aga-button", ["E5", "pass"]);
  assert.equal(game.buttonTaker, 2);
  game.play("pass");
  assert.equal(game.isOver(), false);
  game.play("pass");
  assert.equal(game.isOver(), true);
  // Without the button two passes end the game.
  assert.equal(play(9, "aga", ["E5", "pass", "pass"]).isOver(), true);
});

test("star points", () => {
  assert.deepEqual(starPoints(9).map((p) => vertex(9, p)).sort(), ["C3", "C7", "E5", "G3", "G7"]);
  assert.equal(starPoints(19).length, 9);
  assert.equal(starPoints(13).length, 5);
  assert.equal(starPoints(5).length, 1);
});

test("captures, suicide and ko", () => {
  // Black captures White's A1 stone.
  const game = play(9, "chinese", ["B1", "A1", "A2"]);
  assert.equal(game.board[parseVertex(9, "A1")], 0);
  assert.equal(game.captures[1], 1);
  // White A1 inside Black's corner is suicide under most rules...
  const corner = play(9, "chinese", ["A2", "pass", "B1"]);
  assert.equal(corner.check("A1"), "suicide");
  // Tromp-Taylor allows suicide, but this one would recreate the position
  // before it: positional superko.
  assert.equal(play(9, "tromp-taylor", ["A2", "pass", "B1"]).check("A1"), "superko");
  // A two-stone suicide makes a new position: allowed under Tromp-Taylor and
  // New Zealand, the stones going to Black.
  const two = ["B1", "A1", "B2", "pass", "A3"];
  for (const rules of ["tromp-taylor", "new-zealand"]) {
    const g = play(9, rules, [...two, "A2"]);
    assert.equal(g.board[parseVertex(9, "A1")], 0);
    assert.equal(g.captures[1], 2);
  }
  assert.equal(play(9, "chinese", two).check("A2"), "suicide");
  // New Zealand allows only multi-stone suicide.
  assert.equal(play(9, "new-zealand", ["A2", "pass", "B1"]).check("A1"), "suicide");
  // The ko: Black takes at E4, White may not retake at D4 at once.
  const ko = ["D5", "E5", "C4", "D4", "D3", "F4", "pass", "E3", "E4"];
  const kogame = play(9, "japanese", ko);
  assert.equal(kogame.check("D4"), "ko");
  assert.equal(kogame.check("E4"), "occupied");
  assert.equal(play(9, "japanese", [...ko, "A9", "J1"]).check("D4"), null);
});

test("set-up stones and who moves first", () => {
  const game = Game.replay(9, PRESETS.chinese, 0, ["E5"], { black: ["C3", "G7"], white: ["E7"], to_move: "white" });
  assert.equal(game.firstColor, 2);
  assert.equal(game.colorAt(0), 2);
  assert.equal(game.colorAt(1), 1);
  assert.equal(game.board[parseVertex(9, "E5")], 2);
  assert.equal(game.board[parseVertex(9, "C3")], 1);
  assert.equal(game.toMove, 1);
  assert.throws(() => new Game(9, PRESETS.chinese, 0, { black: ["C3"], white: ["C3"] }), /occupied/);
  assert.throws(() => new Game(9, PRESETS.chinese, 0, { black: ["Z9"], white: [] }), /not a point/);
});

test("SGF: the main line, text escapes, point lists", () => {
  const nodes = sgfMainLine("(;FF[4]C[a \\] b\\\nc]\n;B[aa] ;W[bb](;B[cc](;W[dd])(;W[ee]))(;B[ff]))");
  assert.deepEqual(nodes.map((n) => Object.keys(n)[0]), ["FF", "B", "W", "B", "W"]);
  assert.equal(nodes[0].C[0], "a ] bc");
  assert.equal(nodes[4].W[0], "dd");
  // FF[3]'s lower-case letters in property names are dropped.
  assert.deepEqual(sgfMainLine("(;GaMe[1]AB[aa][bb])")[0], { GM: ["1"], AB: ["aa", "bb"] });
  assert.throws(() => sgfMainLine("no tree here"), /no game tree/);
  assert.throws(() => sgfMainLine("(;C[unclosed"), /no closing/);
  assert.throws(() => sgfMainLine("(;B[aa]!)"), /unexpected '!'/);
});

test("SGF: a record as the page plays it", () => {
  const record = readSgf("(;GM[1]SZ[9]KM[6.5]RU[Japanese]HA[2]AB[cc][gg]PB[A]PW[B]RE[B+R];W[ee];B[];W[tt];B[aa]W[bb])");
  assert.equal(record.size, 9);
  assert.equal(record.komi, 6.5);
  assert.equal(record.rules, "japanese");
  assert.deepEqual(record.setup, { black: ["C7", "G3"], white: [], to_move: "white" });
  // Passes as B[] and W[tt]; two moves in one node are read in order.
  assert.deepEqual(record.moves, ["E5", "pass", "pass", "A9", "B8"]);
  assert.deepEqual(record.players, { black: "A", white: "B" });
  assert.equal(record.result, "B+R");
  // A move out of turn: a pass of the other colour before it.
  assert.deepEqual(readSgf("(;SZ[5];B[aa];B[bb])").moves, ["A5", "pass", "B4"]);
  // Rectangles of points; White first by PL; no komi given is none.
  const setup = readSgf("(;SZ[5]AB[aa:bb]AW[ee]PL[W])");
  assert.deepEqual(setup.setup, { black: ["A5", "B5", "A4", "B4"], white: ["E1"], to_move: "white" });
  assert.equal(setup.komi, 0);
  assert.equal(readSgf("(;SZ[19];B[pd])").setup, null);
  assert.equal(readSgf("(;RU[NZ])").rules, "new-zealand");
  assert.equal(readSgf("(;RU[whatever])").rules, "chinese");
  assert.equal(readSgf("(;)").size, 19);
  // What the page cannot play, said in words.
  assert.throws(() => readSgf("(;SZ[9:13])"), /only square boards/);
  assert.throws(() => readSgf("(;SZ[26])"), /2×2 to 25×25/);
  assert.throws(() => readSgf("(;GM[2])"), /not Go/);
  assert.throws(() => readSgf("(;SZ[9];B[aa];AB[bb])"), /after the first move/);
  assert.throws(() => readSgf("(;SZ[9]AE[aa])"), /removes stones/);
  assert.throws(() => readSgf("(;SZ[9];B[zz])"), /'zz' is not a point of a 9×9 board/);
  assert.throws(() => readSgf("(;KM[1e308])"), /komi/);
});

test("the page and the server agree on random games", { timeout: scaled(600_000) }, async () => {
  const server = await startServer();
  try {
    let seed = 12345;
    const random = (n) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let checked = 0;
    const refused = {};
    for (const rules of Object.keys(PRESETS)) {
      for (const size of [2, 3, 4, 5, 7]) {
        for (let round = 0; round < 12; round++) {
          const game = new Game(size, PRESETS[rules]);
          let illegalTried = 0;
          for (let attempt = 0; attempt < 500 && !game.isOver() && game.moves.length < 60; attempt++) {
            // -1 is a pass; a fresh ko point is tried often, as it is rare.
            const p = game.ko >= 0 && random(2) === 0 ? game.ko : random(size * size + 1) - 1;
            const passOk = game.moves.length > 20 || attempt > 300;
            const reason = p < 0 ? (passOk ? null : "skip") : game.check(p);
            if (reason === "skip") continue;
            const text = p < 0 ? "pass" : vertex(size, p);
            if (reason) {
              if (illegalTried++ > 20 || reason === "occupied") continue;
              // The server must refuse it too, for the same reason.
              const response = await fetch(`${server.url}api/score`, {
                method: "POST",
                headers: { "Content-Type": "application/json" },
                body: JSON.stringify({ board_size: size, rules, moves: [...game.moves, text] }),
              });
              const body = await response.json();
              assert.equal(response.status, 400, `${rules} ${size}: ${game.moves} ${text}`);
              assert.match(body.error, new RegExp(reason === "superko" ? "superko" : reason), body.error);
              checked += 1;
              refused[reason] = (refused[reason] || 0) + 1;
              continue;
            }
            game.play(text);
          }
          const response = await fetch(`${server.url}api/score`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ board_size: size, rules, moves: game.moves, dead: [] }),
          });
          const body = await response.json();
          assert.equal(response.status, 200, `${rules} ${size}: ${game.moves}: ${body.error}`);
          assert.deepEqual(body.captures, { black: game.captures[1], white: game.captures[2] });
          checked += 1;
        }
      }
    }
    assert.ok(checked > 60, `checked ${checked}`);
    // The random games reached every kind of refusal the server checks.
    for (const reason of ["suicide", "ko", "superko"]) {
      assert.ok(refused[reason] > 0, `no ${reason} case in ${JSON.stringify(refused)}`);
    }
  } finally {
    await server.stop();
  }
});
