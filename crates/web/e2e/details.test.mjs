// The page's details at a desktop's and a phone's size: no empty strength
// box for a bot without one, the new-game dialog within a phone's screen,
// bots offered only on the sizes they play, a komi out of range refused in
// words, readable coordinates on a 19×19 board on a phone, the line under
// the board up to date after a move. Screenshots of each are kept under
// target/e2e/.

import { test } from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { scaled, startServer } from "./server.mjs";
import { DESKTOP, PHONE, artifacts, launch, newPage, startGame, waitForHumanTurn } from "./browser.mjs";

/** The values of the bot menu as it stands. */
function botMenu(page) {
  return page.locator("#bot option").evaluateAll((options) => options.map((o) => o.value));
}

for (const [name, options] of [["desktop", DESKTOP], ["phone", PHONE]]) {
  test(`the page's details (${name})`, { timeout: scaled(600_000) }, async () => {
    const server = await startServer();
    const browser = await launch();
    try {
      const { page, errors } = await newPage(browser, options);
      await page.goto(server.url);
      const dialog = page.locator("#new-game-dialog");
      await dialog.waitFor({ state: "visible" });

      // A bot without a strength setting shows no strength box; one with
      // playouts does.
      await page.selectOption("#bot", "random:pass=opponent");
      assert.equal(await page.locator("#strength-row").isVisible(), false, "no strength box for random");
      assert.equal(await page.locator("#strength").isVisible(), false);
      assert.match(await page.textContent("#strength-note"), /no strength setting/);
      await page.selectOption("#bot", "mcts");
      assert.equal(await page.locator("#strength").isVisible(), true, "a strength box for mcts");

      // The dialog and every field in it fit the screen (the rules' long
      // names included).
      const fit = await page.evaluate(() => {
        const box = document.getElementById("new-game-dialog");
        const frame = box.getBoundingClientRect();
        const outside = [...box.querySelectorAll("select, input, button")]
          .filter((field) => field.offsetParent !== null)
          .map((field) => [field.id || field.name, field.getBoundingClientRect()])
          .filter(([, r]) => r.left < frame.left - 0.5 || r.right > frame.right + 0.5)
          .map(([id]) => id);
        return {
          outside,
          scrolls: box.scrollWidth > box.clientWidth,
          inWindow: frame.left >= 0 && frame.right <= window.innerWidth,
        };
      });
      assert.deepEqual(fit.outside, [], "fields outside the dialog");
      assert.equal(fit.scrolls, false, "the dialog scrolls sideways");
      assert.equal(fit.inWindow, true, "the dialog is within the window");
      await page.screenshot({ path: resolve(artifacts, `dialog-${name}.png`) });

      // The search guided by the shipped 9×9 network is offered on 9×9 only.
      await page.check('input[name=size][value="9"]');
      assert.ok((await botMenu(page)).includes("mcts:network=builtin"));
      await page.selectOption("#bot", "mcts:network=builtin");
      await page.check('input[name=size][value="13"]');
      let menu = await botMenu(page);
      assert.ok(!menu.includes("mcts:network=builtin"), `offered on 13×13: ${menu}`);
      assert.ok(menu.includes("random:pass=opponent") && menu.includes("mcts"), `${menu}`);
      await page.check('input[name=size][value="other"]');
      await page.fill("#size-other", "9");
      assert.ok((await botMenu(page)).includes("mcts:network=builtin"), "offered on 9 typed in");
      await page.fill("#size-other", "11");
      assert.ok(!(await botMenu(page)).includes("mcts:network=builtin"), "not on 11");
      menu = await botMenu(page);
      // The listing says which sizes each bot plays; the page offers no bot
      // on a size its entry leaves out.
      const listing = await (await fetch(`${server.url}api/bots`)).json();
      for (const bot of listing.bots.filter((b) => b.sizes)) {
        const shown = menu.some((value) => value.split(":")[0] === bot.name);
        assert.equal(shown, bot.sizes.min <= 11 && 11 <= bot.sizes.max, `${bot.name} on 11×11`);
      }

      // A komi out of range is refused, in words.
      await page.check('input[name=size][value="9"]');
      await page.selectOption("#bot", "random:pass=opponent");
      await page.fill("#komi", "1e308");
      await page.click("#start-game");
      assert.equal(await dialog.isVisible(), true, "the dialog stays open");
      const message = await page.$eval("#komi", (input) => input.validationMessage);
      assert.equal(message, "Komi must be a number between -1000 and 1000.");
      await page.fill("#komi", "7.25");
      assert.match(await page.$eval("#komi", (input) => input.validationMessage), /whole or half number/);
      await page.fill("#komi", "-1000");
      assert.equal(await page.$eval("#komi", (input) => input.validationMessage), "");
      await page.fill("#komi", "7.5");

      // The line under the board describes the point under the pointer, and
      // is up to date after a move there.
      await startGame(page, { size: 9 });
      const e5 = page.locator('[data-point="E5"]');
      if (name === "desktop") {
        await e5.hover();
        assert.equal(await page.textContent("#cursor-info"), "E5: empty");
        await e5.click();
        await waitForHumanTurn(page);
        assert.equal(await page.textContent("#cursor-info"), "E5: black stone");
      } else {
        await e5.tap();
        await waitForHumanTurn(page);
        // A finger leaves nothing under a pointer: the line is empty, not stale.
        assert.notEqual(await page.textContent("#cursor-info"), "E5: empty");
      }
      await page.screenshot({ path: resolve(artifacts, `game-9x9-${name}.png`), fullPage: true });

      // 19×19: the coordinates are at least 10 CSS pixels high and lie on
      // the board, between its edge and the edge lines' stones.
      await startGame(page, { size: 19 });
      const labels = await page.evaluate(() => {
        const board = document.getElementById("board").getBoundingClientRect();
        const texts = [...document.querySelectorAll("#board .coords text")].map((t) => t.getBoundingClientRect());
        return {
          smallest: Math.min(...texts.map((r) => r.height)),
          inside: texts.every((r) => r.left >= board.left - 0.5 && r.right <= board.right + 0.5
            && r.top >= board.top - 0.5 && r.bottom <= board.bottom + 0.5),
          count: texts.length,
        };
      });
      assert.equal(labels.count, 4 * 19);
      assert.ok(labels.smallest >= 10, `labels ${labels.smallest.toFixed(1)} px high`);
      assert.ok(labels.inside, "every label is on the board");
      await page.locator('[data-point="D4"]').click();
      await waitForHumanTurn(page);
      await page.screenshot({ path: resolve(artifacts, `game-19x19-${name}.png`), fullPage: true });

      assert.deepEqual(errors, [], "no errors in the page");
    } finally {
      await browser.close();
      await server.stop();
    }
  });
}
