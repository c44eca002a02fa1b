// What the page's browser tests share: Chromium started the same way each
// time, the desktop and phone contexts, an error collector, and the steps
// every game begins with.

import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { chromium } from "playwright-core";
import { repoRoot, scaled } from "./server.mjs";

/** Where screenshots and downloads are kept. */
export const artifacts = resolve(repoRoot, "target/e2e");

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * How long any one Playwright step (a click, a locator's wait, a
 * waitForFunction, a navigation) may take before it is called a hang:
 * Playwright's own default, 30 s, is short for a bot's answer from a debug
 * build on a busy machine.
 */
export const STEP_TIMEOUT_MS = scaled(120_000);

/** A desktop window. */
export const DESKTOP = { viewport: { width: 1280, height: 800 } };

/** A phone: a narrow screen that is touched, not clicked. */
export const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  hasTouch: true,
  isMobile: true,
};

/** Debian's Chromium (or $CHROMIUM), headless. */
export function launch() {
  mkdirSync(artifacts, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: CHROMIUM_ARGS,
  });
}

/** A browser context whose pages wait STEP_TIMEOUT_MS for each step. */
export async function newContext(browser, options) {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  context.setDefaultNavigationTimeout(STEP_TIMEOUT_MS);
  return context;
}

/** A new page whose errors (uncaught, or logged as errors) are collected in `errors`. */
export async function newPage(browser, options) {
  const context = await newContext(browser, options);
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  return { context, page, errors };
}

/** Waits until it is the human's turn again (the bot has answered) or the game is over. */
export async function waitForHumanTurn(page) {
  await page.waitForFunction(() => {
    const turn = document.getElementById("turn").textContent;
    const thinking = !document.getElementById("thinking").hidden;
    return !thinking && (turn.includes("(you)") || turn.startsWith("Game over"));
  });
}

/** The move list as shown, e.g. ["B E5", "W C3"]. */
export function moveList(page) {
  return page.locator("#move-list li").allTextContents();
}

/**
 * Starts a game from the new-game dialog (opening it if needed): `size`,
 * `color`, `bot` (a menu value), `komi` and `rules` when given.
 */
export async function startGame(page, { size = 9, color = "black", bot = "random:pass=opponent", komi, rules } = {}) {
  const dialog = page.locator("#new-game-dialog");
  // The page opens the dialog by itself when it has no saved game, once
  // its bot menu is loaded: wait for that before deciding to click.
  await page.waitForSelector("body[data-ready]");
  if (!(await dialog.isVisible())) await page.click("#new-game");
  await dialog.waitFor({ state: "visible" });
  const radio = page.locator(`input[name=size][value="${size}"]`);
  if (await radio.count()) await radio.check();
  else {
    await page.check("input[name=size][value=other]");
    await page.fill("#size-other", String(size));
  }
  await page.selectOption("#color", color);
  if (rules) await page.selectOption("#rules", rules);
  await page.selectOption("#bot", bot);
  if (komi !== undefined) await page.fill("#komi", String(komi));
  await page.click("#start-game");
  await dialog.waitFor({ state: "hidden" });
}

/** An empty point of the board, preferring those of `wanted` in order. */
export async function emptyPoint(page, wanted = []) {
  return page.evaluate((wanted) => {
    const taken = new Set([...document.querySelectorAll("[data-stone]")].map((s) => s.dataset.vertex));
    const all = [...document.querySelectorAll("[data-point]")].map((t) => t.dataset.point);
    const onBoard = new Set(all);
    const columns = [...new Set(all.map((v) => v[0]))].sort();
    // An empty point beside another empty point is always a legal move:
    // never suicide, never a ko recapture. (The bot's stones can leave an
    // empty point of the list with no liberty: an eye.)
    const hasLiberty = (v) => {
      const c = columns.indexOf(v[0]);
      const r = Number(v.slice(1));
      return [[c - 1, r], [c + 1, r], [c, r - 1], [c, r + 1]].some(([nc, nr]) => {
        const n = `${columns[nc] ?? ""}${nr}`;
        return onBoard.has(n) && !taken.has(n);
      });
    };
    const playable = (v) => onBoard.has(v) && !taken.has(v) && hasLiberty(v);
    return wanted.find(playable) || all.find(playable) || all.find((v) => !taken.has(v));
  }, wanted);
}
