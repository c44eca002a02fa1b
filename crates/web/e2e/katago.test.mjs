// The server's KataGo network as a player meets it on the page: `tengen
// serve --model` offers "KataGo network" on every board size it plays (up to
// 25×25), with a visits setting; a game on 19×19 is played by clicks on a
// desktop and by taps on a phone; the bot's candidates and the network's
// ownership are drawn on the board. The network is the one the PyPI package
// katrain 1.20.0 ships ($TENGEN_KATAGO_MODEL, else scripts/katago-model's
// cache under target/katago/).

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { repoRoot, scaled, startServer } from "./server.mjs";
import { DESKTOP, PHONE, artifacts, emptyPoint, launch, moveList, newPage, waitForHumanTurn } from "./browser.mjs";

const model = process.env.TENGEN_KATAGO_MODEL || resolve(repoRoot, "target/katago/b10c384h6nbttflrs.bin.gz");

/** The values of the bot menu as it stands. */
function botMenu(page) {
  return page.locator("#bot option").evaluateAll((options) => options.map((o) => o.value));
}

/** Chooses a board size in the new-game dialog, typing it in if it has no button. */
async function chooseSize(page, size) {
  const radio = page.locator(`input[name=size][value="${size}"]`);
  if (await radio.count()) await radio.check();
  else {
    await page.check("input[name=size][value=other]");
    await page.fill("#size-other", String(size));
  }
}

for (const [name, options, how] of [["desktop", DESKTOP, "click"], ["phone", PHONE, "tap"]]) {
  test(`a game against the KataGo network (${name})`, { timeout: scaled(600_000) }, async () => {
    assert.ok(existsSync(model), `no KataGo network at ${model}: run scripts/katago-model or set TENGEN_KATAGO_MODEL`);
    const server = await startServer(["--model", model]);
    const browser = await launch();
    try {
      const { page, errors } = await newPage(browser, options);
      await page.goto(server.url);
      await page.waitForSelector("body[data-ready]");
      const dialog = page.locator("#new-game-dialog");
      await dialog.waitFor({ state: "visible" });

      // Offered on the small, odd and largest sizes, under its own label.
      for (const size of [5, 9, 13, 25, 19]) {
        await chooseSize(page, size);
        assert.ok((await botMenu(page)).includes("katago"), `katago not offered on ${size}×${size}`);
      }
      const label = await page.locator('#bot option[value="katago"]').textContent();
      assert.match(label, /KataGo network/);

      // Its strength is counted in visits.
      await page.selectOption("#bot", "katago");
      assert.equal(await page.locator("#strength").isVisible(), true);
      assert.match(await page.textContent("#strength-label"), /Visits per move/);
      await page.fill("#strength", "4");
      await page.selectOption("#color", "black");
      await page.click("#start-game");
      await dialog.waitFor({ state: "hidden" });
      assert.match(await page.textContent("#players"), /Bot: KataGo network · 19×19/);

      // Two moves each, by click or tap; the network answers each.
      for (const wanted of ["Q16", "D4"]) {
        const vertex = await emptyPoint(page, [wanted]);
        const target = page.locator(`[data-point="${vertex}"]`);
        if (how === "tap") await target.tap();
        else await target.click();
        await waitForHumanTurn(page);
      }
      const moves = await moveList(page);
      assert.equal(moves.length, 4, `moves: ${moves}`);
      assert.match(moves[0], /^B Q16$/);
      assert.match(moves[1], /^W [A-T]\d+$/);
      assert.match(await page.textContent("#analysis-body"), /after \d+ visits/);

      // Its candidates and the network's ownership of the whole board.
      await page.check("#show-candidates");
      assert.ok((await page.locator("[data-candidate]").count()) >= 1, "candidates on the board");
      assert.equal(await page.locator("[data-candidate].best").count(), 1);
      await page.check("#show-ownership");
      // Points the network gives to one side by at least 0.15 are marked:
      // after four moves, the corners around the stones.
      const owned = await page.locator("[data-ownership]").count();
      assert.ok(owned > 0 && owned <= 361, `ownership on ${owned} points`);
      await page.screenshot({ path: resolve(artifacts, `katago-${name}.png`) });
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await server.stop();
    }
  });
}
