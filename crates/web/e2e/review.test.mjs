// Review: stepping through the moves with the buttons, the keys and the
// move list; playing on from an earlier move, in either colour; the bot's
// candidates and ownership drawn on the board and toggled; an SGF record
// opened, reviewed and played on.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { scaled, startServer } from "./server.mjs";
import {
  DESKTOP, artifacts, emptyPoint, launch, moveList, newPage, startGame, waitForHumanTurn,
} from "./browser.mjs";

const OPENINGS = ["E5", "C3", "G7", "C7", "G3", "E3", "E7"];

async function stones(page) {
  return page.locator("[data-stone]").count();
}

async function where(page) {
  return page.textContent("#nav-where");
}

/** Plays `count` moves of the person's, each answered by the bot. */
async function playMoves(page, count) {
  for (let i = 0; i < count; i++) {
    const v = await emptyPoint(page, OPENINGS);
    await page.locator(`[data-point="${v}"]`).click();
    await waitForHumanTurn(page);
  }
}

/** Starts a 9x9 game against mcts with a small budget. */
async function startMcts(page, playouts) {
  await page.locator("#new-game-dialog").waitFor({ state: "visible" });
  await page.check('input[name=size][value="9"]');
  await page.selectOption("#color", "black");
  await page.selectOption("#bot", "mcts");
  await page.fill("#strength", String(playouts));
  await page.click("#start-game");
  await page.locator("#new-game-dialog").waitFor({ state: "hidden" });
}

test("stepping through the moves and playing on from one", { timeout: scaled(600_000) }, async () => {
  const server = await startServer();
  const browser = await launch();
  try {
    const { page, errors } = await newPage(browser, DESKTOP);
    await page.goto(server.url);
    await startGame(page, { size: 9, komi: -50 });
    await playMoves(page, 3);
    const game = await moveList(page);
    assert.equal(game.length, 6);
    assert.equal(await where(page), "Move 6 of 6");
    assert.equal(await page.isDisabled("#nav-next"), true);
    assert.equal(await page.locator("#play-here").isVisible(), false);

    // The buttons.
    await page.click("#nav-prev");
    assert.equal(await where(page), "Move 5 of 6");
    assert.equal(await stones(page), 5);
    assert.match(await page.textContent("#turn"), /^Move 5 of 6, after Black .*: White to move\.$/);
    assert.equal(await page.textContent("#move-list li.last"), game[4]);
    await page.click("#nav-first");
    assert.equal(await stones(page), 0);
    assert.equal(await page.isDisabled("#nav-prev"), true);
    await page.click("#nav-next");
    assert.equal(await stones(page), 1);
    await page.click("#nav-last");
    assert.equal(await where(page), "Move 6 of 6");
    assert.match(await page.textContent("#turn"), /\(you\)/);

    // The keys, away from the board...
    await page.click("header h1");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    assert.equal(await where(page), "Move 4 of 6");
    await page.keyboard.press("Home");
    assert.equal(await stones(page), 0);
    await page.keyboard.press("ArrowRight");
    assert.equal(await where(page), "Move 1 of 6");
    await page.keyboard.press("End");
    assert.equal(await where(page), "Move 6 of 6");
    await page.keyboard.press("ArrowRight");
    assert.equal(await where(page), "Move 6 of 6");
    // ...and on the board, where the arrows move the cursor: with Shift.
    await page.focus("#board");
    await page.keyboard.press("ArrowLeft");
    assert.equal(await where(page), "Move 6 of 6");
    await page.keyboard.press("Shift+ArrowLeft");
    assert.equal(await where(page), "Move 5 of 6");

    // A click on the board while reviewing plays nothing, and says why.
    const empty = await emptyPoint(page, ["A1"]);
    await page.locator(`[data-point="${empty}"]`).click();
    assert.match(await page.textContent("#message"), /^This is move 5 of 6\. Press "Play from here"/);
    assert.equal((await moveList(page)).length, 6);
    assert.equal(await stones(page), 5);

    // The move list shows a move when clicked.
    await page.locator('#move-list li[data-move="2"]').click();
    assert.equal(await where(page), "Move 2 of 6");
    assert.equal(await stones(page), 2);
    await page.screenshot({ path: resolve(artifacts, "review.png") });

    // Play on from move 2, Black to move: the later moves are dropped.
    assert.equal(await page.textContent("#play-here"), "Play from here as Black");
    await page.click("#play-here");
    assert.deepEqual(await moveList(page), game.slice(0, 2));
    assert.match(await page.textContent("#turn"), /^Black to move \(you\)/);
    await playMoves(page, 1);
    assert.equal((await moveList(page)).length, 4);

    // From move 1, White to move: the person takes White, the bot Black.
    await page.click("#nav-first");
    await page.click("#nav-next");
    assert.equal(await page.textContent("#play-here"), "Play from here as White");
    await page.click("#play-here");
    assert.match(await page.textContent("#players"), /^You: White/);
    assert.match(await page.textContent("#turn"), /^White to move \(you\)/);
    await playMoves(page, 1);
    const list = await moveList(page);
    assert.equal(list.length, 3);
    assert.match(list[1], /^W /);
    assert.match(list[2], /^B ([A-HJ]\d|pass)$/, "the bot answers as Black");
    assert.deepEqual(errors, [], "no errors in the page");
  } finally {
    await browser.close();
    await server.stop();
  }
});

test("the bot's candidates and ownership on the board", { timeout: scaled(600_000) }, async () => {
  const server = await startServer();
  const browser = await launch();
  try {
    const { page, errors } = await newPage(browser, DESKTOP);
    await page.goto(server.url);
    await startMcts(page, 300);
    await playMoves(page, 2);

    // Off at first; on, the candidates of the bot's last move, the best
    // marked, with the win rate the table gives.
    assert.equal(await page.isChecked("#show-candidates"), false);
    assert.equal(await page.locator("[data-candidate]").count(), 0);
    await page.check("#show-candidates");
    const marks = page.locator("[data-candidate]");
    assert.ok((await marks.count()) >= 1, "candidates on the board");
    assert.equal(await page.locator("[data-candidate].best").count(), 1);
    const best = await page.locator("[data-candidate].best").getAttribute("data-candidate");
    const row = await page.locator("#analysis-body tbody tr").first().locator("td").allTextContents();
    assert.equal(row[0], best, "the best mark is the table's first candidate");
    // The mark rounds to a whole percent, the table to a tenth.
    const label = await page.locator("[data-candidate].best .rate").textContent();
    assert.match(label, /^\d+%$/);
    assert.ok(Math.abs(parseInt(label, 10) - parseFloat(row[2])) <= 0.55, `${label} against ${row[2]}`);
    assert.match(await page.locator("[data-candidate].best .visits").textContent(), /^\d+(\.\d)?k?$/);

    // Ownership, on and off.
    assert.equal(await page.locator("[data-ownership]").count(), 0);
    await page.check("#show-ownership");
    assert.ok((await page.locator("[data-ownership]").count()) > 0, "ownership on the board");
    await page.screenshot({ path: resolve(artifacts, "candidates-ownership.png") });
    await page.uncheck("#show-ownership");
    assert.equal(await page.locator("[data-ownership]").count(), 0);

    // Kept over a reload.
    await page.reload();
    await page.waitForFunction(() => document.getElementById("message").textContent.includes("restored"));
    assert.equal(await page.isChecked("#show-candidates"), true);
    assert.ok((await marks.count()) >= 1);

    // In review: the position the bot thought about shows its candidates
    // (move 1, White to move); the start, before any, shows none.
    await page.click("#nav-first");
    assert.equal(await marks.count(), 0);
    await page.click("#nav-next");
    assert.ok((await marks.count()) >= 1, "candidates where the bot was to move");
    assert.match(await page.textContent("#analysis-body"), /Win rate \d+\.\d%/);

    await page.uncheck("#show-candidates");
    assert.equal(await marks.count(), 0);
    assert.deepEqual(errors, [], "no errors in the page");
  } finally {
    await browser.close();
    await server.stop();
  }
});

test("an SGF record opened, reviewed and played on", { timeout: scaled(600_000) }, async () => {
  const server = await startServer();
  const browser = await launch();
  try {
    const { page, errors } = await newPage(browser, { ...DESKTOP, acceptDownloads: true });
    await page.goto(server.url);
    await startGame(page, { size: 9 });

    // Not a record: said so, and the game stays.
    const bad = resolve(artifacts, "bad.sgf");
    writeFileSync(bad, "(;GM[1]SZ[9];B[zz])");
    await page.setInputFiles("#sgf-file", bad);
    await page.waitForFunction(() => document.getElementById("message").textContent.startsWith("Cannot open"));
    assert.match(await page.textContent("#message"), /^Cannot open bad\.sgf: 'zz' is not a point of a 9×9 board/);
    assert.match(await page.textContent("#players"), /9×9, chinese, komi 7\.5$/);

    // Two handicap stones as set-up stones, White first, a variation (only
    // the main line is read), an escaped bracket in a comment.
    const record = "(;GM[1]FF[4]SZ[9]KM[0.5]HA[2]RU[Japanese]PB[Alice]PW[Bob]RE[W+3.5]AB[cc][gg]" +
      "C[handicap \\] two];W[ee];B[ec];W[ce](;B[gc];W[cg])(;B[aa]))";
    const path = resolve(artifacts, "review.sgf");
    writeFileSync(path, record);
    await page.setInputFiles("#sgf-file", path);
    await page.waitForFunction(() => document.getElementById("message").textContent.startsWith("Opened"));
    assert.equal(
      await page.textContent("#message"),
      "Opened review.sgf: 5 moves (Alice – Bob, W+3.5). ‹ and › step through them; play on as Black.",
    );
    assert.deepEqual(await moveList(page), ["W E5", "B E7", "W C5", "B G7", "W C3"]);
    assert.equal(await stones(page), 7);
    assert.match(await page.textContent("#players"), /^You: Black .* 9×9, japanese, komi 0\.5, set-up stones$/);
    await page.screenshot({ path: resolve(artifacts, "sgf-opened.png") });

    // Reviewed: the set-up stones alone at the start, White to move.
    await page.click("#nav-first");
    assert.equal(await stones(page), 2);
    assert.equal(await page.textContent("#turn"), "Move 0 of 5: White to move.");
    await page.click("#nav-last");

    // Played on: the server replays the set-up stones and the bot answers.
    await playMoves(page, 1);
    const list = await moveList(page);
    assert.equal(list.length, 7);
    assert.match(list[6], /^W ([A-HJ]\d|pass)$/);

    // The record written back has the set-up stones and every move.
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
    const written = resolve(artifacts, "review-played.sgf");
    await download.saveAs(written);
    const sgf = readFileSync(written, "utf8");
    assert.match(sgf, /AB(\[(cc|gg)\]){2}/, sgf);
    assert.ok(sgf.includes(";W[ee];B[ec];W[ce];B[gc];W[cg]"), sgf);

    // Played on from an earlier move of the record.
    await page.click("#nav-first");
    await page.click("#nav-next");
    await page.click("#play-here");
    assert.deepEqual(await moveList(page), ["W E5"]);
    await playMoves(page, 1);
    assert.equal((await moveList(page)).length, 3);
    assert.deepEqual(errors, [], "no errors in the page");
  } finally {
    await browser.close();
    await server.stop();
  }
});
