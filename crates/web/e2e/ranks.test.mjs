// The page's ranks (src/assets/ranks.js) under Node: kyu numbers, the
// handicap and komi for a difference in rank on each board size, the
// results kept against each rank and the next rank they offer.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  describeTally, emptyResults, kyuNumber, nextRank, parseResults, ranksOf, suggestGame, withResult,
} from "../src/assets/ranks.js";

/** The `rank` option as `GET /api/bots` lists it. */
const OPTION = {
  name: "rank",
  default: "off",
  values: "off or 20k or 19k or 18k or 17k or 16k or 15k or 14k or 13k or 12k or 11k or 10k or 9k or 8k or 7k or 6k or 5k or 4k or 3k or 2k or 1k or 1d or 2d or 3d or 4d or 5d or 6d or 7d or 8d or 9d",
};
const RANKS = ranksOf(OPTION);

test("the ranks of the option, weakest first, without off", () => {
  assert.equal(RANKS.length, 29);
  assert.equal(RANKS[0], "20k");
  assert.equal(RANKS[19], "1k");
  assert.equal(RANKS[20], "1d");
  assert.equal(RANKS.at(-1), "9d");
  assert.deepEqual(ranksOf(undefined), []);
  assert.deepEqual(ranksOf({ values: "off or on" }), []);
});

test("kyu numbers on KaTrain's scale", () => {
  assert.equal(kyuNumber("15k"), 15);
  assert.equal(kyuNumber("1k"), 1);
  assert.equal(kyuNumber("1d"), 0);
  assert.equal(kyuNumber("5d"), -4);
  for (const bad of ["", "0k", "k", "5x", "1dan", null, undefined, "123k"]) assert.equal(kyuNumber(bad), null, String(bad));
  // Each rank in the listing stronger than the one before.
  for (let i = 1; i < RANKS.length; i++) assert.ok(kyuNumber(RANKS[i]) < kyuNumber(RANKS[i - 1]));
});

test("19x19: one stone a rank, the weaker takes Black", () => {
  const even = suggestGame("5k", "5k", 19, 7.5, 9);
  assert.deepEqual([even.human, even.handicap, even.komi], [null, 0, 7.5]);
  const one = suggestGame("6k", "5k", 19, 6.5, 9);
  assert.deepEqual([one.human, one.handicap, one.komi], ["black", 0, 0.5]);
  const three = suggestGame("8k", "5k", 19, 7.5, 9);
  assert.deepEqual([three.human, three.handicap, three.komi], ["black", 3, 0.5]);
  assert.match(three.text, /3 stones for you/);
  // The person stronger: the bot takes Black and the stones.
  const stronger = suggestGame("2d", "5k", 19, 7.5, 9);
  assert.deepEqual([stronger.human, stronger.handicap, stronger.komi], ["white", 6, 0.5]);
  assert.match(stronger.text, /6 stones for the bot/);
  // Across the dan line: 2k against 2d is three ranks.
  assert.equal(suggestGame("2k", "2d", 19, 7.5, 9).handicap, 3);
  // More than the board takes: capped, and said.
  const far = suggestGame("20k", "2d", 19, 7.5, 9);
  assert.equal(far.handicap, 9);
  assert.equal(far.capped, true);
  assert.match(far.text, /at most 9/);
});

test("smaller boards: a stone is worth more ranks", () => {
  // 9x9: about 4.5 ranks a stone. 3 ranks round to one stone: Black, komi 0.5.
  const nine = suggestGame("8k", "5k", 9, 7.5, 9);
  assert.deepEqual([nine.human, nine.handicap, nine.komi], ["black", 0, 0.5]);
  // 2 ranks on 9x9 is under half a stone: even.
  assert.equal(suggestGame("7k", "5k", 9, 7.5, 9).human, null);
  // 13x13: about 2.1 ranks a stone; 9 ranks is about 4 stones.
  assert.equal(suggestGame("14k", "5k", 13, 7.5, 9).handicap, 4);
  // A board that takes no handicap stones: Black with komi 0.5 at most.
  const tiny = suggestGame("20k", "1d", 7, 9, 0);
  assert.deepEqual([tiny.human, tiny.handicap, tiny.komi, tiny.capped], ["black", 0, 0.5, true]);
  assert.equal(suggestGame("5x", "5k", 19, 7.5, 9), null);
});

test("results: tallies, the last game, and what is offered next", () => {
  let results = emptyResults();
  assert.equal(nextRank(results, RANKS), null);
  results = withResult(results, "8k", "win");
  assert.deepEqual(nextRank(results, RANKS).rank, "7k");
  results = withResult(results, "7k", "loss");
  assert.deepEqual(nextRank(results, RANKS).rank, "8k");
  results = withResult(results, "8k", "draw");
  assert.deepEqual(nextRank(results, RANKS).rank, "8k");
  results = withResult(results, "8k", "win");
  assert.deepEqual(results.ranks["8k"], { wins: 2, losses: 0, draws: 1 });
  assert.equal(describeTally(results.ranks["8k"]), "2 wins, 0 losses, 1 draw");
  assert.equal(describeTally({ wins: 1, losses: 1, draws: 0 }), "1 win, 1 loss");
  // The ends of the ladder.
  assert.equal(nextRank(withResult(results, "9d", "win"), RANKS).rank, "9d");
  assert.equal(nextRank(withResult(results, "20k", "loss"), RANKS).rank, "20k");
});

test("results read back from storage, whatever it holds", () => {
  const kept = withResult({ ...emptyResults(), you: "12k" }, "10k", "loss");
  assert.deepEqual(parseResults(JSON.stringify(kept)), kept);
  for (const junk of [null, "", "{", "[]", "42", '"x"', '{"ranks": 5}', '{"you": "99x", "last": {"rank": "8k", "outcome": "maybe"}}']) {
    const read = parseResults(junk);
    assert.deepEqual(read, emptyResults(), junk);
  }
  const partly = parseResults('{"you": "3d", "ranks": {"8k": {"wins": 2, "losses": -1}, "bad": {"wins": 1}}}');
  assert.deepEqual(partly, { you: "3d", ranks: { "8k": { wins: 2, losses: 0, draws: 0 } }, last: null });
});
