// Game review: "Analyse the game" runs the analysis over every position of
// a short 9×9 game, with the KataGo network (win rate and score lead; the
// network of scripts/katago-model, $TENGEN_KATAGO_MODEL, is required) and
// with mcts (win rate only); the graph is clicked and tapped, the keys move
// its marker, a mistake is followed to its move, a preferred move's line is
// shown on hover and tap, the hint is toggled during play, a review is
// cancelled; a bot that cannot analyse says so. Screenshots in target/e2e/.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { repoRoot, scaled, startServer } from "./server.mjs";
import {
  DESKTOP, PHONE, artifacts, emptyPoint, launch, moveList, newPage, startGame, waitForHumanTurn,
} from "./browser.mjs";

const model = process.env.TENGEN_KATAGO_MODEL || resolve(repoRoot, "target/katago/b10c384h6nbttflrs.bin.gz");
const OPENINGS = ["E5", "C3", "G7", "C7", "G3", "E3", "E7", "D6"];

/** Starts a 9×9 game as Black against `bot` with `strength` playouts or visits. */
async function start(page, bot, strength) {
  await page.waitForSelector("body[data-ready]");
  const dialog = page.locator("#new-game-dialog");
  await dialog.waitFor({ state: "visible" });
  await page.check('input[name=size][value="9"]');
  await page.selectOption("#color", "black");
  await page.selectOption("#bot", bot);
  await page.fill("#strength", String(strength));
  await page.click("#start-game");
  await dialog.waitFor({ state: "hidden" });
}

/** Plays `count` moves of the person's by click or tap, each answered by the bot. */
async function playMoves(page, count, how) {
  for (let i = 0; i < count; i++) {
    const v = await emptyPoint(page, OPENINGS);
    const target = page.locator(`[data-point="${v}"]`);
    if (how === "tap") await target.tap();
    else await target.click();
    await waitForHumanTurn(page);
  }
}

/** The server's last answer to `POST /api/review` on `page`, kept as they come. */
const reviews = new WeakMap();

function keepReviews(page) {
  page.on("response", async (response) => {
    if (!response.url().endsWith("/api/review") || !response.ok()) return;
    const answer = await response.json().catch(() => null);
    if (answer) reviews.set(page, answer);
  });
}

/**
 * Runs "Analyse the game" with `visits` per position and waits for the
 * end, and for the server's losses of every position analysed.
 */
async function analyseGame(page, visits) {
  keepReviews(page);
  await page.fill("#review-visits", String(visits));
  await page.click("#analyse");
  const started = Date.now();
  // A search of every position of the game: longer than one step.
  await page.waitForFunction(() => {
    const running = !document.getElementById("review-progress").hidden;
    const current = document.getElementById("mistakes").dataset.current === "true";
    return !running && current && !document.getElementById("review-results").hidden;
  }, null, { timeout: scaled(600_000) });
  return Date.now() - started;
}

async function where(page) {
  return page.textContent("#nav-where");
}

/** The graph's current move, as its marker says. */
async function marker(page) {
  return Number(await page.getAttribute("[data-graph-marker]", "data-graph-marker"));
}

/** Clicks or taps the graph at move `t` of `total`. */
async function pointGraph(page, t, total, how) {
  await page.locator("#graph").scrollIntoViewIfNeeded();
  const box = await page.locator("#graph").boundingBox();
  // The graph's 320 units have 4 of padding at each end.
  const x = box.x + box.width * ((4 + (t / total) * 312) / 320);
  const y = box.y + box.height / 2;
  if (how === "tap") await page.touchscreen.tap(x, y);
  else await page.mouse.click(x, y);
}

/** The review of an analysed game of `total` moves: graph, keys, mistakes, marks, lines. */
async function checkReview(page, total, how, { lead }) {
  assert.equal(await page.locator("[data-graph=winrate]").count(), 1);
  assert.equal(await page.locator("[data-graph=lead]").count(), lead ? 1 : 0);
  const whatLost = await page.textContent("#mistakes");
  assert.match(whatLost, lead ? /points lost/ : /win rate lost, percentage points/);
  // The game as it stands: the marker at its end.
  assert.equal(await marker(page), total);

  // A click or a tap on the graph shows that move.
  await pointGraph(page, 3, total, how);
  assert.equal(await where(page), `Move 3 of ${total}`);
  assert.equal(await marker(page), 3);
  await pointGraph(page, 1, total, how);
  assert.equal(await where(page), `Move 1 of ${total}`);
  assert.equal(await marker(page), 1);

  // The keys move the marker.
  await page.locator("#graph").focus();
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  assert.equal(await marker(page), 3);
  await page.keyboard.press("ArrowLeft");
  assert.equal(await marker(page), 2);
  assert.equal(await where(page), `Move 2 of ${total}`);

  // The mistakes listed are the server's, by the review rule: the page
  // computes none.
  const answer = reviews.get(page);
  assert.ok(answer, "the page asked the server for no review");
  for (const color of ["black", "white"]) {
    const listed = await page.locator(`#mistakes ol[data-color=${color}] button[data-move]`)
      .evaluateAll((buttons) => buttons.map((b) => Number(b.dataset.move)));
    assert.deepEqual(listed, answer.mistakes[color].map((m) => m.move), `${color}'s mistakes`);
    // Each side's estimated strength is the server's too, shown under its
    // mistakes when the server gives one.
    const shown = await page.locator(`#mistakes p.strength-estimate[data-color=${color}]`).allTextContents();
    const strength = answer.strength[color];
    if (strength) {
      assert.equal(shown.length, 1, `${color}'s strength`);
      assert.match(shown[0], new RegExp(`^Plays about ${strength.rank}: `));
    } else {
      assert.deepEqual(shown, [], `${color}'s strength, none estimated`);
    }
  }

  // A mistake is followed to the position where it was played.
  const mistakes = page.locator("#mistakes button[data-move]");
  assert.ok((await mistakes.count()) >= 1, "no mistakes listed");
  const first = mistakes.first();
  const number = Number(await first.getAttribute("data-move"));
  const text = await first.textContent();
  assert.match(text, /^\d+\. [A-HJ-T]\d+ {2}−\d/);
  if (how === "tap") await first.tap();
  else await first.click();
  assert.equal(await where(page), `Move ${number - 1} of ${total}`);
  assert.equal(await marker(page), number - 1);
  const played = (await moveList(page))[number - 1].split(" ")[1];
  assert.equal(await page.getAttribute("[data-played]", "data-played"), played);
  assert.match(await page.textContent("[data-played]"), /^−\d/);

  // The engine's preferred moves there, and a line on hover or tap that
  // leaves the board as it was.
  const candidates = page.locator("[data-review-candidate]");
  assert.ok((await candidates.count()) >= 1, "no preferred moves on the board");
  assert.equal(await page.locator(".mark.best").count(), 1);
  const stones = await page.locator("[data-stone]").count();
  const best = await page.getAttribute(".mark.best", "data-review-candidate");
  const point = page.locator(`[data-point="${best}"]`);
  assert.equal(await page.locator("[data-pv]").count(), 0);
  if (how === "tap") await point.tap();
  else await point.hover();
  await page.locator(`[data-pv-of="${best}"]`).waitFor();
  assert.ok((await page.locator("[data-pv]").count()) >= 1);
  assert.equal(await page.getAttribute("[data-pv]", "data-pv"), best);
  assert.equal(await page.locator("[data-stone]").count(), stones);
  return { best, point, stones };
}

/** Puts the line away again (pointer away, or a second tap). */
async function hideLine(page, point, how) {
  if (how === "tap") await point.tap();
  else await page.mouse.move(1, 1);
  assert.equal(await page.locator("[data-pv]").count(), 0);
}

/** The hint: off by default, the engine's moves for the person when on. */
async function checkHint(page, how) {
  await page.click("#nav-last");
  assert.equal(await page.isChecked("#show-hint"), false);
  assert.equal(await page.locator("[data-hint]").count(), 0);
  if (how === "tap") await page.locator("#show-hint").tap();
  else await page.check("#show-hint");
  // The hint is a search of its own.
  await page.locator("[data-hint]").first().waitFor({ timeout: scaled(300_000) });
  const hinted = await page.getAttribute(".mark.best[data-hint]", "data-hint");
  assert.match(hinted, /^[A-HJ]\d$/);
  await page.uncheck("#show-hint");
  assert.equal(await page.locator("[data-hint]").count(), 0);
}

/** Cancel: a slow review stops part-way, the button comes back, what was done stays. */
async function checkCancel(page, visits) {
  await page.fill("#review-visits", String(visits));
  await page.click("#analyse");
  await page.locator("#review-progress").waitFor({ state: "visible" });
  assert.match(await page.textContent("#review-status"), /^Analysing move \d+ of \d+/);
  assert.equal(await page.isDisabled("#analyse"), true);
  await page.click("#review-cancel");
  await page.locator("#review-progress").waitFor({ state: "hidden" });
  assert.equal(await page.isDisabled("#analyse"), false);
  assert.match(await page.textContent("#message"), /Analysis cancelled/);
  // The results analysed before are still shown.
  assert.equal(await page.locator("#review-results").isVisible(), true);
}

for (const [name, options, how] of [["desktop", DESKTOP, "click"], ["phone", PHONE, "tap"]]) {
  test(`reviewing a game with the KataGo network (${name})`, { timeout: scaled(900_000) }, async (t) => {
    assert.ok(existsSync(model), `no KataGo network at ${model}: run scripts/katago-model or set TENGEN_KATAGO_MODEL`);
    const server = await startServer(["--model", model]);
    const browser = await launch();
    try {
      const { page, errors } = await newPage(browser, options);
      await page.goto(server.url);
      await start(page, "katago", 2);
      // Nothing to review yet, and the visits suit a CPU.
      assert.equal(await page.locator("#review-results").isVisible(), false);
      assert.equal(await page.inputValue("#review-visits"), "16");
      await playMoves(page, 4, how);
      const total = (await moveList(page)).length;
      assert.equal(total, 8);
      t.diagnostic(`analysed ${total} positions at 8 visits in ${await analyseGame(page, 8)} ms`);
      assert.match(await page.textContent("#message"), /The game is analysed/);
      const { point } = await checkReview(page, total, how, { lead: true });
      assert.match(await page.textContent("#graph-where"), /^Move \d+: Black wins \d+\.\d%, (leads|trails) by \d+\.\d points/);
      await page.screenshot({ path: resolve(artifacts, `analyse-katago-${name}.png`), fullPage: true });
      await hideLine(page, point, how);

      // White's view: the win rate mirrored.
      const before = await page.getAttribute("[data-graph=winrate]", "d");
      await page.selectOption("#graph-view", "white");
      assert.notEqual(await page.getAttribute("[data-graph=winrate]", "d"), before);
      assert.match(await page.textContent("#graph-where"), /White wins/);

      await checkHint(page, how);
      await checkCancel(page, 400);
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await server.stop();
    }
  });
}

test("reviewing a game with mcts: win rate only", { timeout: scaled(900_000) }, async (t) => {
  const server = await startServer();
  const browser = await launch();
  try {
    const { page, errors } = await newPage(browser, DESKTOP);
    await page.goto(server.url);
    await start(page, "mcts", 200);
    await playMoves(page, 4, "click");
    const total = (await moveList(page)).length;
    t.diagnostic(`analysed ${total} positions at 300 visits in ${await analyseGame(page, 300)} ms`);
    const { point } = await checkReview(page, total, "click", { lead: false });
    assert.match(await page.textContent("#lead-legend"), /No score lead/);
    await page.screenshot({ path: resolve(artifacts, "analyse-mcts-desktop.png"), fullPage: true });
    await hideLine(page, point, "click");
    // Analysed positions are not analysed again.
    await page.click("#analyse");
    assert.match(await page.textContent("#message"), /analysed already/);
    await checkHint(page, "click");
    await checkCancel(page, 200000);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.stop();
  }
});

test("a bot without analysis cannot review", { timeout: scaled(300_000) }, async () => {
  const server = await startServer();
  const browser = await launch();
  try {
    const { page, errors } = await newPage(browser, DESKTOP);
    await page.goto(server.url);
    await startGame(page, { size: 9 });
    assert.equal(await page.isDisabled("#analyse"), true);
    assert.equal(await page.isDisabled("#show-hint"), true);
    assert.match(await page.textContent("#review-note"), /cannot analyse the game/);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.stop();
  }
});
