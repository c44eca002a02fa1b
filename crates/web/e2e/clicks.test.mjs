// Every click or tap on the board plays, whatever had the focus before: a
// button (Undo, Pass), another part of the page, nothing after a reload. On
// a desktop with the mouse and on a phone with touches.

import { test } from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { scaled, startServer } from "./server.mjs";
import {
  DESKTOP, PHONE, artifacts, emptyPoint, launch, moveList, newPage, startGame, waitForHumanTurn,
} from "./browser.mjs";

/**
 * Clicks (or taps) an empty point once and checks that the move is played,
 * then waits for the bot's answer. A click that only takes the focus never
 * plays, however long one waits: the wait is the steps' hang guard.
 */
async function playsFirstTime(page, how, after) {
  const v = await emptyPoint(page, ["E5", "C3", "G7", "C7", "G3", "D4", "F6", "D6", "F4"]);
  const before = (await moveList(page)).length;
  const target = page.locator(`[data-point="${v}"]`);
  if (how === "tap") await target.tap();
  else await target.click();
  try {
    await page.waitForFunction((n) => document.querySelectorAll("#move-list li").length > n, before);
  } catch {
    const message = await page.textContent("#message");
    assert.fail(`the first ${how} on ${v} after ${after} did not play (message: "${message}")`);
  }
  const list = await moveList(page);
  assert.equal(list[before], `B ${v}`, `after ${after}: ${list}`);
  await waitForHumanTurn(page);
}

async function press(page, how, selector) {
  if (how === "tap") await page.locator(selector).tap();
  else await page.click(selector);
}

for (const [name, options, how] of [["desktop", DESKTOP, "click"], ["phone", PHONE, "tap"]]) {
  test(`the first ${how} on the board plays (${name})`, { timeout: scaled(600_000) }, async () => {
    const server = await startServer();
    const browser = await launch();
    try {
      const { page, errors } = await newPage(browser, options);
      await page.goto(server.url);
      // A komi that favours Black keeps the page's random bot from passing
      // after the person's pass.
      await startGame(page, { komi: -50 });
      await playsFirstTime(page, how, "the start");

      await press(page, how, "#undo");
      await page.waitForFunction(() => document.getElementById("message").textContent === "Taken back.");
      await playsFirstTime(page, how, "Undo");

      await press(page, how, "#pass");
      await waitForHumanTurn(page);
      assert.match((await moveList(page)).at(-1), /^W [A-HJ]\d$/, "the bot played on after the pass");
      await playsFirstTime(page, how, "Pass");

      await press(page, how, "header h1");
      await playsFirstTime(page, how, "a click elsewhere");
      await press(page, how, "#players");
      await playsFirstTime(page, how, "a click on the status text");

      await page.reload();
      await page.waitForFunction(() => document.getElementById("message").textContent.includes("restored"));
      await playsFirstTime(page, how, "a reload");

      // The move list of the record is the one on the board.
      const stones = await page.locator("[data-stone=black]").count();
      const mine = (await moveList(page)).filter((m) => /^B [A-HJ]\d$/.test(m)).length;
      assert.equal(stones, mine);
      await page.screenshot({ path: resolve(artifacts, `clicks-${name}.png`) });
      assert.deepEqual(errors, [], "no errors in the page");
    } finally {
      await browser.close();
      await server.stop();
    }
  });
}
