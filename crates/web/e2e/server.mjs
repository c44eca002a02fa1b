// Starts `tengen serve --port 0` and reads the address it prints.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
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
    const timer = setTimeout(() => reject(new Error(`tengen serve printed no address: ${out}`)), 15_000);
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
