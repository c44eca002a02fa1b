// The end of a game as on a Go server: after both players pass, the
// server's estimate of the dead stones is proposed, the player marks groups
// dead or alive by clicking them (the count follows), and accepting makes
// the result final, in the page and in the SGF record. Resigning asks for a
// second press.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { scaled, startServer, tengenBinary } from "./server.mjs";
import {
  DESKTOP, artifacts, emptyPoint, launch, moveList, newPage, startGame, waitForHumanTurn,
} from "./browser.mjs";

/** The count the page keeps with the game. */
function storedScore(page) {
  return page.evaluate(() => JSON.parse(localStorage.getItem("tengen.game.v1")));
}

/** Waits for the count after a change of the dead stones. */
async function waitForCount(page) {
  await page.waitForFunction(() => {
    const data = JSON.parse(localStorage.getItem("tengen.game.v1"));
    return data && data.score;
  });
  return (await storedScore(page)).score;
}

test("counting after two passes: proposal, corrections, acceptance", { timeout: scaled(600_000) }, async () => {
  const server = await startServer();
  const browser = await launch();
  try {
    const { page, errors } = await newPage(browser, { ...DESKTOP, acceptDownloads: true });
    await page.goto(server.url);
    await startGame(page, { size: 9, rules: "chinese" });
    for (let i = 0; i < 6; i++) {
      const v = await emptyPoint(page, ["E5", "C3", "G7", "C7", "G3", "E3", "E7"]);
      await page.locator(`[data-point="${v}"]`).click();
      await waitForHumanTurn(page);
    }
    // Pass until the bot passes too (the page's random bot does once the
    // count favours it).
    for (let turn = 0; turn < 200; turn++) {
      if ((await page.textContent("#turn")).startsWith("Game over")) break;
      await page.click("#pass");
      await waitForHumanTurn(page);
    }
    assert.equal(await page.textContent("#turn"), "Game over: both passed. Counting.");
    let score = await waitForCount(page);
    const proposed = (await storedScore(page)).dead;
    assert.deepEqual([...proposed].sort(), [...score.dead].sort(), "the server's estimate is proposed");
    await page.locator("#accept").waitFor({ state: "visible" });
    assert.match(await page.textContent("#result"), /if this count is accepted/);
    await page.screenshot({ path: resolve(artifacts, "scoring-proposed.png") });

    // A white group the estimate counts alive: marked dead, White's count
    // drops (its stones and any area they held).
    const whites = await page.locator('[data-stone="white"]').evaluateAll((stones) =>
      stones.filter((s) => !s.classList.contains("dead")).map((s) => s.dataset.vertex));
    assert.ok(whites.length > 0, "a live white stone to mark");
    const target = whites[0];
    const before = score;
    await page.locator(`[data-point="${target}"]`).click();
    assert.equal(await page.locator(`[data-stone][data-vertex="${target}"].dead`).count(), 1, "marked dead at once");
    assert.match(await page.textContent("#message"), /^Marked the (stone|group) at .* dead\.$/);
    score = await waitForCount(page);
    assert.ok(score.dead.includes(target), `${target} in ${score.dead}`);
    assert.ok(score.white < before.white, `White ${before.white} -> ${score.white}`);
    assert.ok((await page.textContent("#result")).startsWith(score.result));
    // And alive again: the count is the proposal's.
    await page.locator(`[data-point="${target}"]`).click();
    score = await waitForCount(page);
    assert.ok(!score.dead.includes(target));
    assert.equal(score.result, before.result);
    // Marked dead once more, and the count accepted.
    await page.locator(`[data-point="${target}"]`).click();
    score = await waitForCount(page);
    await page.screenshot({ path: resolve(artifacts, "scoring-marked.png") });
    await page.click("#accept");
    assert.equal(await page.textContent("#turn"), "Game over.");
    assert.equal(await page.locator("#accept").isVisible(), false);
    const result = (await page.textContent("#result")).split(" ")[0];
    assert.equal(result, score.result);
    assert.doesNotMatch(await page.textContent("#result"), /if this count is accepted/);
    // The count is final: clicks no longer change it.
    await page.locator(`[data-point="${target}"]`).click();
    assert.match(await page.textContent("#message"), /The game is over/);
    assert.ok((await storedScore(page)).score.dead.includes(target));
    // It survives a reload.
    await page.reload();
    await page.waitForFunction(() => document.getElementById("message").textContent.includes("restored"));
    assert.equal((await page.textContent("#result")).split(" ")[0], result);
    assert.equal(await page.locator("#accept").isVisible(), false);
    await page.screenshot({ path: resolve(artifacts, "scoring-accepted.png") });

    // The record's result is the accepted one.
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
    const sgfPath = resolve(artifacts, "scored.sgf");
    await download.saveAs(sgfPath);
    const sgf = readFileSync(sgfPath, "utf8");
    assert.ok(sgf.includes(`RE[${result}]`), `RE[${result}] in ${sgf.slice(0, 200)}`);
    // Bounded: a synchronous call that hung would stop the test's own timeout too.
    const check = execFileSync(tengenBinary(), ["sgf", "check", sgfPath], { encoding: "utf8", timeout: scaled(120_000) });
    assert.match(check, /games 1, moves \d+, failures 0/);

    // Undo goes back to the game: no count, the passes taken back.
    const moves = (await moveList(page)).length;
    await page.click("#undo");
    assert.ok((await moveList(page)).length < moves);
    assert.equal(await page.locator("#result").isVisible(), false);
    assert.equal(await page.locator("[data-stone].dead").count(), 0);

    assert.deepEqual(errors, [], "no errors in the page");
  } finally {
    await browser.close();
    await server.stop();
  }
});

test("resigning takes a second press", { timeout: scaled(300_000) }, async () => {
  const server = await startServer();
  const browser = await launch();
  try {
    const { page, errors } = await newPage(browser, DESKTOP);
    // The page's clock is the test's: the confirmation's few seconds are
    // counted on it, so a busy machine cannot run them out between two
    // steps of the test.
    await page.clock.install();
    await page.goto(server.url);
    await startGame(page, { size: 9 });
    await page.locator('[data-point="E5"]').click();
    await waitForHumanTurn(page);
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);

    // One press asks; a few seconds later the button is as before.
    await page.click("#resign");
    assert.equal(await page.textContent("#resign"), "Really resign?");
    assert.ok(!(await page.textContent("#turn")).startsWith("Game over"));
    await page.clock.runFor(1000);
    assert.equal(await page.textContent("#resign"), "Really resign?", "disarmed within a second");
    await page.clock.runFor(4000);
    assert.equal(await page.textContent("#resign"), "Resign", "still armed five seconds after the press");
    assert.ok(!(await page.textContent("#turn")).startsWith("Game over"));
    // A move in between disarms it too.
    await page.click("#resign");
    assert.equal(await page.textContent("#resign"), "Really resign?");
    const v = await emptyPoint(page, ["C3", "G7"]);
    await page.locator(`[data-point="${v}"]`).click();
    await waitForHumanTurn(page);
    assert.equal(await page.textContent("#resign"), "Resign");

    // Two presses resign.
    await page.click("#resign");
    await page.click("#resign");
    assert.equal(await page.textContent("#turn"), "Game over.");
    assert.match(await page.textContent("#result"), /^W\+R — the bot wins by resignation/);
    assert.equal((await moveList(page)).at(-1), "B resign");
    assert.deepEqual(errors, [], "no errors in the page");
  } finally {
    await browser.close();
    await server.stop();
  }
});
