// An opponent chosen by rank, as a player meets it on the page with the
// server's KataGo network: the bot's rank instead of its visits, the
// player's own rank setting colour, handicap and komi, the teaching mode
// (each move's loss, a bad move taken back, the three biggest mistakes at
// the end) and the results kept in the browser, with the next rank offered.
// On a desktop by clicks and on a phone by taps. The network is katrain
// 1.20.0's ($TENGEN_KATAGO_MODEL, else scripts/katago-model's cache).

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { repoRoot, scaled, startServer } from "./server.mjs";
import { DESKTOP, PHONE, artifacts, launch, moveList, newPage, waitForHumanTurn } from "./browser.mjs";

const model = process.env.TENGEN_KATAGO_MODEL || resolve(repoRoot, "target/katago/b10c384h6nbttflrs.bin.gz");

/** Clicks or taps, as the person on this device does. */
async function press(page, selector, how) {
  const target = page.locator(selector);
  if (how === "tap") await target.tap();
  else await target.click();
}

/** The dialog's colour, handicap and komi, as they stand. */
async function suggested(page) {
  return {
    color: await page.inputValue("#color"),
    handicap: await page.inputValue("#handicap"),
    komi: await page.inputValue("#komi"),
    text: await page.textContent("#rank-suggestion"),
  };
}

/** Waits for the teacher's word on the last move and returns it. */
async function lesson(page, pattern) {
  await page.waitForFunction((source) => {
    const text = document.getElementById("lesson").textContent;
    return new RegExp(source).test(text) && document.getElementById("thinking").hidden;
  }, pattern.source);
  return page.textContent("#lesson");
}

/** Resigns with the button's two presses and waits for the result. */
async function resign(page, how) {
  await press(page, "#resign", how);
  await press(page, "#resign", how);
  await page.waitForSelector("#result:not([hidden])");
}

/** The game's end as the teacher shows it: the three biggest mistakes, matching the review's list. */
async function checkLessons(page) {
  await page.waitForSelector("#lessons:not([hidden])");
  await page.waitForSelector('#mistakes[data-current="true"]');
  const lessons = await page.locator("#lessons-list li").allTextContents();
  const review = await page.locator('#mistakes ol[data-color="black"] li').allTextContents();
  assert.ok(lessons.length >= 1 && lessons.length <= 3, `lessons: ${lessons}`);
  assert.deepEqual(lessons, review.slice(0, 3));
  return lessons;
}

for (const [name, options, how] of [["desktop", DESKTOP, "click"], ["phone", PHONE, "tap"]]) {
  test(`an opponent by rank, the game the ranks suggest, teaching and the results kept (${name})`, { timeout: scaled(900_000) }, async () => {
    assert.ok(existsSync(model), `no KataGo network at ${model}: run scripts/katago-model or set TENGEN_KATAGO_MODEL`);
    const server = await startServer(["--model", model]);
    const browser = await launch();
    try {
      const { page, errors } = await newPage(browser, options);
      await page.goto(server.url);
      await page.waitForSelector("body[data-ready]");
      const dialog = page.locator("#new-game-dialog");
      await dialog.waitFor({ state: "visible" });

      // By rank, not by visits.
      await page.check('input[name=size][value="19"]');
      await page.selectOption("#bot", "katago:rank");
      assert.equal(await page.locator("#strength-row").isVisible(), false);
      assert.equal(await page.locator("#rank-row").isVisible(), true);
      const ranks = await page.locator("#rank option").evaluateAll((all) => all.map((o) => o.value));
      assert.equal(ranks[0], "20k");
      assert.ok(ranks.includes("5d") && !ranks.includes("off"), `ranks: ${ranks}`);
      await page.selectOption("#rank", "5k");
      assert.match(await page.textContent("#rank-suggestion"), /Give your rank/);
      assert.match(await page.textContent("#rank-record-text"), /No games against 5k yet/);

      // Your rank sets the game: 8k against 5k on 19x19 is three stones for you.
      await page.selectOption("#your-rank", "8k");
      let game = await suggested(page);
      assert.deepEqual([game.color, game.handicap, game.komi], ["black", "3", "0.5"]);
      assert.match(game.text, /3 stones for you/);
      // 2d against 5k: the bot takes Black and six stones.
      await page.selectOption("#your-rank", "2d");
      game = await suggested(page);
      assert.deepEqual([game.color, game.handicap, game.komi], ["white", "6", "0.5"]);
      // On 9x9 three ranks are about one stone: Black, komi 0.5, no stones.
      await page.selectOption("#your-rank", "8k");
      await page.check('input[name=size][value="9"]');
      game = await suggested(page);
      assert.deepEqual([game.color, game.handicap, game.komi], ["black", "0", "0.5"]);
      assert.match(game.text, /about one stone apart/);

      // Teaching: on the desktop a move losing more than 3 points is taken back.
      assert.equal(await page.isChecked("#teaching"), false, "teaching is off by default");
      await page.check("#teaching");
      if (how === "click") {
        await page.check("#takeback");
        await page.fill("#takeback-points", "3");
      }
      await press(page, "#start-game", how);
      await dialog.waitFor({ state: "hidden" });
      assert.match(await page.textContent("#players"), /Bot: KataGo network at 5k · 9×9, chinese, komi 0.5/);

      // The 1-1 point on the empty board: a big loss.
      await press(page, '[data-point="A1"]', how);
      if (how === "click") {
        assert.match(await lesson(page, /taken back/), /^Move 1, A1, lost \d+\.\d points, more than 3: taken back/);
        assert.deepEqual(await moveList(page), []);
        assert.equal(await page.locator('[data-stone][data-vertex="A1"]').count(), 0);
        // The centre: kept, with its lesson, and the bot answers.
        await press(page, '[data-point="E5"]', how);
        const said = await lesson(page, /^Move 1, E5/);
        assert.doesNotMatch(said, /taken back/);
      } else {
        assert.match(await lesson(page, /^Move 1, A1/), /lost \d+\.\d points\.$/);
      }
      await waitForHumanTurn(page);
      const moves = await moveList(page);
      assert.equal(moves.length, 2, `moves: ${moves}`);
      assert.match(moves[1], /^W [A-J]\d$/);

      // The end: the three biggest mistakes, as the review lists them.
      await resign(page, how);
      const lessons = await checkLessons(page);
      if (how === "tap") assert.match(lessons[0], /^1\. .*A1/);

      // The loss is kept, and the next rank down offered.
      assert.match(await page.textContent("#result"), /Your games against 5k: 0 wins, 1 loss\. You lost to 5k: try 6k\./);
      await page.screenshot({ path: resolve(artifacts, `opponents-${name}.png`) });
      await page.reload();
      await page.waitForSelector("body[data-ready]");
      await press(page, "#new-game", how);
      await dialog.waitFor({ state: "visible" });
      assert.equal(await page.inputValue("#bot"), "katago:rank");
      assert.equal(await page.inputValue("#your-rank"), "8k", "your rank is remembered");
      assert.match(await page.textContent("#rank-record-text"), /You lost to 5k: try 6k\. Your games against 5k: 0 wins, 1 loss\./);
      assert.equal(await page.textContent("#next-rank"), "Play 6k");
      await press(page, "#next-rank", how);
      assert.equal(await page.inputValue("#rank"), "6k");
      assert.match(await page.textContent("#rank-record-text"), /No games against 6k yet/);
      assert.equal(await page.locator("#next-rank").isVisible(), false);
      // 8k against 6k on 9x9: under half a stone, an even game.
      assert.match(await page.textContent("#rank-suggestion"), /an even game, komi 7\.5/);
      assert.equal(await page.inputValue("#komi"), "7.5");
      await page.screenshot({ path: resolve(artifacts, `opponents-dialog-${name}.png`) });
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await server.stop();
    }
  });
}
