// The page's rules (src/assets/rules.js) under Node: captures, suicide, ko,
// superko and handicap placement by hand, then random games checked move by
// move against the server, which replays them with tengen-core. The page
// must never think a move legal that the server refuses, nor refuse one the
// server allows.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Game, PRESETS, handicapVertices, parseVertex, starPoints, vertex } from "../src/assets/rules.js";
import { startServer } from "./server.mjs";

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

test("the page and the server agree on random games", { timeout: 120_000 }, async () => {
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
