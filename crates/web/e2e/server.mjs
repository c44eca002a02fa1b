// Starts `tengen serve --port 0` and reads the address it prints; and the
// scale of every hang guard in these tests.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** The environment variable that multiplies every hang guard: a positive number, 1 when unset. */
export const TIME_SCALE_VARIABLE = "TENGEN_TEST_TIME_SCALE";

// A mistyped setting must not silently mean 1: every test file imports this
// module, so each fails at once, naming the variable.
function readTimeScale() {
  const text = process.env[TIME_SCALE_VARIABLE];
  if (text === undefined) return 1;
  const scale = text.trim() === "" ? NaN : Number(text);
  if (!(Number.isFinite(scale) && scale > 0)) {
    throw new Error(`${TIME_SCALE_VARIABLE}=${JSON.stringify(text)}: expected a positive number, such as 2 or 0.5`);
  }
  return scale;
}

/** The factor every hang guard is multiplied by. */
export const TIME_SCALE = readTimeScale();

/**
 * `ms` multiplied by $TENGEN_TEST_TIME_SCALE: how long a test waits before it
 * calls a wait a hang. A wait only guards against a hang, so the figures it
 * is given are generous; tests assert on what happened, never on how fast.
 * Capped at the longest delay a timer takes (beyond it Node fires at once).
 */
export function scaled(ms) {
  return Math.min(Math.round(ms * TIME_SCALE), 2 ** 31 - 1);
}
export const repoRoot = resolve(here, "../../..");

/** The tengen binary: $TENGEN_BIN, else target/debug/tengen, else target/release/tengen. */
export function tengenBinary() {
  const candidates = [
    process.env.TENGEN_BIN,
    resolve(repoRoot, "target/debug/tengen"),
    resolve(repoRoot, "target/release/tengen"),
  ].filter(Boolean);
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error(`no tengen binary (tried ${candidates.join(", ")}); run cargo build first`);
  return found;
}

/** Starts the server; resolves to {url, stop}. */
export function startServer(extraArgs = []) {
  const child = spawn(tengenBinary(), ["serve", "--port", "0", ...extraArgs], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolvePromise, reject) => {
    let out = "";
    // A debug build on a loaded machine can take a while to load its networks.
    const timer = setTimeout(() => reject(new Error(`tengen serve printed no address: ${out}`)), scaled(120_000));
    child.on("exit", (code) => reject(new Error(`tengen serve exited with ${code}: ${out}`)));
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /open (http:\/\/[^\s]+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolvePromise({
          url: match[1],
          stop: () => new Promise((done) => {
            child.removeAllListeners("exit");
            child.on("exit", () => done());
            child.kill("SIGTERM");
          }),
        });
      }
    });
  });
}
