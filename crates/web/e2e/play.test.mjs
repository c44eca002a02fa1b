// End to end: `tengen serve` and the page in Debian's Chromium. A 9x9 game
// against the random bot played by clicks (and once by keyboard), an illegal
// click explained and not sent, undo, a reload that keeps the game, passes to
// the end, the result with territory, and the SGF download re-read by
// `tengen sgf check`. Screenshots are kept under target/e2e/.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { artifacts, launch, newContext } from "./browser.mjs";
import { scaled, startServer, tengenBinary } from "./server.mjs";


async function moveCount(page) {
  return page.locator("#move-list li").count();
}

/** Waits until it is the human's turn again (the bot has answered). */
async function waitForHumanTurn(page) {
  await page.waitForFunction(() => {
    const turn = document.getElementById("turn").textContent;
    const thinking = !document.getElementById("thinking").hidden;
    return !thinking && (turn.includes("(you)") || turn.startsWith("Game over"));
  });
}

/**
 * Yields, one at a time, the first `count` points of `candidates` that are
 * still empty when asked for: the bot's answers are looked at between moves.
 */
async function* freePoints(page, candidates, count) {
  let given = 0;
  for (const v of candidates) {
    if (given === count) return;
    if ((await page.locator(`[data-stone][data-vertex="${v}"]`).count()) > 0) continue;
    given += 1;
    yield v;
  }
  if (given < count) throw new Error(`fewer than ${count} of ${candidates} were free`);
}

test("a game against the random bot in the browser", { timeout: scaled(600_000) }, async () => {
  const server = await startServer();
  const browser = await launch();
  try {
    const context = await newContext(browser, { acceptDownloads: true, viewport: { width: 1200, height: 860 } });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    let moveRequests = 0;
    page.on("request", (request) => {
      if (request.url().includes("/select-move/")) moveRequests += 1;
    });

    await page.goto(server.url);
    // No saved game: the new-game dialog opens by itself.
    const dialog = page.locator("#new-game-dialog");
    await dialog.waitFor({ state: "visible" });
    await page.check('input[name=size][value="9"]');
    await page.selectOption("#color", "black");
    await page.selectOption("#rules", "chinese");
    await page.selectOption("#bot", "random");
    assert.equal(await page.inputValue("#komi"), "7.5");
    await page.click("#start-game");
    await dialog.waitFor({ state: "hidden" });

    // The board: 81 points, coordinates, star points, nothing on it yet.
    assert.equal(await page.locator("[data-point]").count(), 81);
    assert.equal(await page.locator("#board .star").count(), 5);
    const coords = await page.locator("#board .coords text").allTextContents();
    assert.ok(coords.includes("J") && !coords.includes("I") && coords.includes("9"));
    assert.equal(await page.locator("[data-stone]").count(), 0);

    // Several moves by clicking; each time the bot answers on the board.
    // Five moves, on the first of these points the bot has not taken.
    const mine = ["E5", "C3", "G7", "C7", "G3", "E3", "E7", "C5", "G5", "D4", "F6"];
    for (let i = 0; i < 5; i++) {
      const taken = new Set(await page.locator("[data-stone]").evaluateAll((s) => s.map((x) => x.dataset.vertex)));
      const v = mine.find((point) => !taken.has(point));
      const point = page.locator(`[data-point="${v}"]`);
      await point.click();
      await waitForHumanTurn(page);
      const count = await moveCount(page);
      assert.equal(count % 2, 0, "the bot answered every move");
      const list = await page.locator("#move-list li").allTextContents();
      assert.ok(list.includes(`B ${v}`), `${v} is in the move list ${list}`);
      assert.match(list[list.length - 1], /^W ([A-HJ-T]\d+|pass)$/);
      // The bot's reply is the marked stone, unless it passed.
      const last = list[list.length - 1].slice(2);
      if (last !== "pass") {
        assert.equal(await page.locator(`[data-stone="white"][data-vertex="${last}"]`).count(), 1);
        assert.equal(await page.locator(`[data-last-move="${last}"]`).count(), 1);
      }
      if (i === 2) await page.screenshot({ path: resolve(artifacts, "midgame.png") });
    }
    const stones = await page.locator("[data-stone]").count();
    assert.ok(stones >= 8, `stones on the board: ${stones}`);

    // An illegal click: occupied. Explained, and nothing sent.
    const before = moveRequests;
    const movesBefore = await moveCount(page);
    await page.locator('[data-point="E5"]').click();
    await page.waitForFunction(() => document.getElementById("message").textContent.includes("occupied"));
    assert.match(await page.textContent("#message"), /Illegal move at E5: the point is occupied/);
    // Time for a request the page should not send to go out: a slower
    // machine needs longer to show one.
    await page.waitForTimeout(scaled(200));
    assert.equal(moveRequests, before, "an illegal click sends no move");
    assert.equal(await moveCount(page), movesBefore);

    // A ghost stone follows the pointer on an empty point.
    const empty = await page.locator("[data-point]").evaluateAll((targets) => {
      const taken = new Set([...document.querySelectorAll("[data-stone]")].map((s) => s.dataset.vertex));
      return targets.map((t) => t.dataset.point).find((v) => !taken.has(v));
    });
    await page.locator(`[data-point="${empty}"]`).hover();
    assert.equal(await page.locator("#board .ghost").count(), 1);

    // Keyboard: focus the board, move the cursor, play with Enter.
    await page.focus("#board");
    const atCursor = async () => (await page.textContent("#cursor-info")).split(":")[0];
    for (const key of ["ArrowUp", "ArrowLeft", "ArrowDown", "ArrowRight", "ArrowRight", "ArrowDown"]) {
      await page.keyboard.press(key);
      const v = await atCursor();
      if ((await page.locator(`[data-stone][data-vertex="${v}"]`).count()) === 0) break;
    }
    const cursorVertex = await atCursor();
    const countBeforeKey = await moveCount(page);
    await page.keyboard.press("Enter");
    await waitForHumanTurn(page);
    const afterKey = await page.locator("#move-list li").allTextContents();
    assert.equal(afterKey.length, countBeforeKey + 2, "Enter played a move and the bot answered");
    assert.equal(afterKey[countBeforeKey], `B ${cursorVertex}`);

    // Undo takes back the keyboard move and the bot's reply.
    await page.click("#undo");
    await page.waitForFunction((n) => document.querySelectorAll("#move-list li").length === n, countBeforeKey);

    // A reload keeps the game.
    const listBeforeReload = await page.locator("#move-list li").allTextContents();
    await page.reload();
    await page.waitForFunction(() => document.getElementById("message").textContent.includes("restored"));
    assert.deepEqual(await page.locator("#move-list li").allTextContents(), listBeforeReload);
    assert.equal(await page.locator("#new-game-dialog").isVisible(), false);

    // More moves on the left side, then pass until the bot passes too (the
    // page's random bot passes after the person once the count favours it).
    for (const v of ["B5", "C5", "D5", "D6", "D4", "C6", "C4", "B3", "B7", "D8", "D2", "A5"]) {
      const taken = await page.locator(`[data-stone][data-vertex="${v}"]`).count();
      if (taken || (await page.textContent("#turn")).startsWith("Game over")) continue;
      await page.locator(`[data-point="${v}"]`).click();
      if ((await page.textContent("#message")).startsWith("Illegal")) continue;
      await waitForHumanTurn(page);
    }
    for (let turn = 0; turn < 200; turn++) {
      if ((await page.textContent("#turn")).startsWith("Game over")) break;
      await page.click("#pass");
      await waitForHumanTurn(page);
    }
    assert.ok((await page.textContent("#turn")).startsWith("Game over"));
    await page.waitForFunction(() => /^(B\+|W\+|0)/.test(document.getElementById("result").textContent));
    const result = (await page.textContent("#result")).split(" ")[0];
    assert.match(result, /^(B\+\d+(\.5)?|W\+\d+(\.5)?|0)$/);
    // Every territory point of the server's count is marked, and nothing
    // else (the page's random bot may pass early, with little territory).
    const score = await page.evaluate(() => JSON.parse(localStorage.getItem("tengen.game.v1")).score);
    assert.ok(score, "the count is kept with the game");
    assert.equal(await page.locator("[data-territory=black]").count(), score.territory.black, "Black's territory is shown");
    assert.equal(await page.locator("[data-territory=white]").count(), score.territory.white, "White's territory is shown");
    await page.screenshot({ path: resolve(artifacts, "final.png") });

    // The SGF download re-reads.
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
    const sgfPath = resolve(artifacts, "game.sgf");
    await download.saveAs(sgfPath);
    const sgf = readFileSync(sgfPath, "utf8");
    assert.match(sgf, /^\(;FF\[4\]GM\[1\]/);
    assert.ok(sgf.includes(`RE[${result}]`), `RE[${result}] in ${sgf.slice(0, 200)}`);
    assert.ok(sgf.includes("PB[You]") && sgf.includes("PW[tengen random:pass=opponent]"));
    // Bounded: a synchronous call that hung would stop the test's own timeout too.
    const check = execFileSync(tengenBinary(), ["sgf", "check", sgfPath], { encoding: "utf8", timeout: scaled(120_000) });
    assert.match(check, /games 1, moves \d+, failures 0/);

    assert.deepEqual(errors, [], "no errors in the page");
    await context.close();
  } finally {
    await browser.close();
    await server.stop();
  }
});

test("the neural policy bot answers on 9x9, is not offered on 13x13, and explains why not there", { timeout: scaled(600_000) }, async () => {
  const server = await startServer();
  const browser = await launch();
  try {
    const page = await (await newContext(browser, { viewport: { width: 1200, height: 860 } })).newPage();
    const errors = [];
    page.on("pageerror", (error) => errors.push(String(error)));

    await page.goto(server.url);
    const dialog = page.locator("#new-game-dialog");
    await dialog.waitFor({ state: "visible" });
    await page.check('input[name=size][value="9"]');
    await page.selectOption("#color", "black");
    await page.selectOption("#bot", "policy");
    assert.match(await page.textContent("#bot-description"), /policy network/);
    await page.click("#start-game");
    await dialog.waitFor({ state: "hidden" });

    // The shipped network answers every move with a stone of its own: it
    // passes only after the opponent does.
    // The bot may already have taken a point on the list: the human plays
    // the next free one, so each game has as many human moves as asked for.
    for await (const v of freePoints(page, ["E5", "C3", "G7", "C7", "G3", "E3", "E7"], 3)) {
      await page.locator(`[data-point="${v}"]`).click();
      await waitForHumanTurn(page);
      const list = await page.locator("#move-list li").allTextContents();
      assert.match(list[list.length - 1], /^W [A-HJ]\d$/, `the network's reply in ${list}`);
      const last = list[list.length - 1].slice(2);
      assert.equal(await page.locator(`[data-stone="white"][data-vertex="${last}"]`).count(), 1);
    }
    await page.screenshot({ path: resolve(artifacts, "policy-bot.png") });

    // The tree search guided by the same network, with a small budget.
    const asked = [];
    page.on("request", (request) => {
      if (request.url().includes("/select-move/")) asked.push(decodeURIComponent(request.url()));
    });
    await page.click("#new-game");
    await dialog.waitFor({ state: "visible" });
    await page.check('input[name=size][value="9"]');
    await page.selectOption("#color", "black");
    await page.selectOption("#bot", "mcts:network=builtin");
    assert.match(await page.textContent("#bot-description"), /9×9 policy network/);
    await page.fill("#strength", "300");
    await page.click("#start-game");
    await dialog.waitFor({ state: "hidden" });
    for await (const v of freePoints(page, ["E5", "C3", "G7", "C7", "G3"], 2)) {
      await page.locator(`[data-point="${v}"]`).click();
      await waitForHumanTurn(page);
      const list = await page.locator("#move-list li").allTextContents();
      assert.match(list[list.length - 1], /^W [A-HJ]\d$/, `the search's reply in ${list}`);
    }
    assert.ok(asked.length >= 2 && asked.every((url) => url.includes("/select-move/mcts:network=builtin")), asked.join(" "));
    assert.match(await page.textContent("#analysis-body"), /Win rate \d+\.\d%/, "the search reports its win rate");

    // The shipped model is for 9x9: on 13x13 the menu does not offer it.
    await page.click("#new-game");
    await dialog.waitFor({ state: "visible" });
    await page.check('input[name=size][value="13"]');
    const menu = await page.locator("#bot option").evaluateAll((options) => options.map((o) => o.value));
    assert.ok(!menu.includes("policy") && menu.includes("random:pass=opponent"), `${menu}`);
    await page.click("#cancel-new-game");
    // A game that asks for it anyway (kept from an older page): the page
    // says why the bot cannot answer, and the game stays as it was.
    await page.evaluate(() => {
      const settings = { size: 13, human: "black", humanChoice: "black", handicap: 0, komi: 7.5, rules: "chinese", bot: "policy", budget: null };
      localStorage.setItem("tengen.game.v1", JSON.stringify({ settings, moves: [], score: null, analysis: null }));
    });
    await page.reload();
    await page.waitForFunction(() => document.getElementById("message").textContent.includes("restored"));
    await page.locator('[data-point="D4"]').click();
    await page.waitForFunction(() => document.getElementById("message").textContent.includes("could not answer"));
    assert.match(await page.textContent("#message"), /9x9/);
    assert.equal(await page.locator("[data-stone]").count(), 1, "only the human's stone");

    assert.deepEqual(errors, [], "no errors in the page");
  } finally {
    await browser.close();
    await server.stop();
  }
});
