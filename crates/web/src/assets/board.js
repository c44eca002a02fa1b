// The board as SVG: grid, coordinates, star points, stones, the last-move
// mark, the ghost stone under the pointer, the keyboard cursor, territory and
// dead stones at the end. One unit of the view box is one line spacing, so
// every size draws the same way.

import { BLACK, WHITE, COLUMNS, EMPTY, starPoints, vertex } from "./rules.js";
import { formatLoss } from "./review.js";

const SVG = "http://www.w3.org/2000/svg";

/** The smallest coordinate label, in CSS pixels, that reads well. */
const LABEL_PX = 11;

/** Label sizes in view-box units (one line spacing): the usual and the largest. */
const LABEL_MIN = 0.32;
const LABEL_MAX = 0.62;

function el(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

/** A count in at most four characters: 950, 12k, 1.2M. */
function compact(count) {
  if (count < 1000) return String(count);
  if (count < 10_000) return `${(count / 1000).toFixed(1)}k`;
  if (count < 1_000_000) return `${Math.round(count / 1000)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

export class BoardView {
  /**
   * @param {SVGSVGElement} svg
   * @param {{onPlay: (p: number) => void, onCursor: (p: number) => void}} handlers
   */
  constructor(svg, handlers) {
    this.svg = svg;
    this.handlers = handlers;
    this.size = 0;
    this.hover = -1;
    this.cursor = -1;
    this.state = null;
    this.pressed = null; // the pointer pressed on the board: {id, point}
    svg.addEventListener("pointerleave", () => this.setHover(-1));
    svg.addEventListener("pointermove", (event) => {
      // A finger has no hover: the ghost stone would stay where it lifted.
      if (event.pointerType !== "touch") this.setHover(this.pointAt(event));
    });
    // A press and a release on the same point play it. This is read from the
    // pointer's position on the board, which is never replaced, and not from
    // a click on a point's target: focusing the board or the bot's answer may
    // redraw the targets between press and release, and the browser then
    // sends no click at all.
    svg.addEventListener("pointerdown", (event) => {
      if (!event.isPrimary || event.button !== 0) return;
      const at = this.unitsAt(event);
      const p = this.pointAt(event);
      this.pressed = p >= 0 && at ? { id: event.pointerId, point: p, at } : null;
    });
    svg.addEventListener("pointerup", (event) => {
      const pressed = this.pressed;
      this.pressed = null;
      if (!pressed || pressed.id !== event.pointerId) return;
      // Released on another point, the press is taken back; a finger that
      // shifted a little across a point's edge still plays where it landed.
      const at = this.unitsAt(event);
      const moved = at ? Math.hypot(at.x - pressed.at.x, at.y - pressed.at.y) : Infinity;
      if (this.pointAt(event) !== pressed.point && moved > 0.3) return;
      const p = pressed.point;
      if (event.pointerType === "touch") this.setHover(-1);
      this.cursor = p;
      this.handlers.onPlay(p);
    });
    svg.addEventListener("pointercancel", () => { this.pressed = null; });
    svg.addEventListener("keydown", (event) => this.onKey(event));
    // Focus changes only the cursor: redrawing the whole board here would
    // swallow the click that gave the focus.
    svg.addEventListener("focus", () => {
      if (this.cursor < 0 && this.size) this.cursor = Math.floor(this.size / 2) * (this.size + 1);
      this.drawOverlay();
      this.handlers.onCursor(this.current());
    });
    svg.addEventListener("blur", () => {
      this.drawOverlay();
      this.handlers.onCursor(this.current());
    });
    // The labels' size follows the board's size on the screen.
    this.label = LABEL_MIN;
    if (typeof ResizeObserver !== "undefined") {
      new ResizeObserver(() => {
        if (Math.abs(this.labelSize() - this.label) > 0.01) this.draw();
      }).observe(svg);
    }
  }

  /**
   * The coordinates' font size in view-box units: the usual one where a
   * line spacing is wide enough on the screen, larger on a small screen (a
   * 19×19 board on a phone) so that they stay readable.
   */
  labelSize() {
    const width = this.svg.getBoundingClientRect().width;
    if (!this.size || !width) return LABEL_MIN;
    const spacing = width / (this.size + 1.3);
    return Math.min(LABEL_MAX, Math.max(LABEL_MIN, LABEL_PX / spacing));
  }

  /** Where a pointer event is, in view-box units, or null before the board is laid out. */
  unitsAt(event) {
    const matrix = this.svg.getScreenCTM();
    if (!matrix) return null;
    return new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
  }

  /** The point under a pointer event, or -1 off the grid. */
  pointAt(event) {
    const n = this.size;
    const at = this.unitsAt(event);
    if (!n || !at) return -1;
    const x = Math.round(at.x) - 1;
    const y = Math.round(at.y) - 1;
    if (x < 0 || y < 0 || x >= n || y >= n) return -1;
    return y * n + x;
  }

  /**
   * The point the line under the board describes: the one under the mouse,
   * else the keyboard cursor while the board has the keyboard's focus, else
   * none (-1).
   */
  current() {
    if (this.hover >= 0) return this.hover;
    if (this.svg.matches(":focus-visible")) return this.cursor;
    return -1;
  }

  /** Point index (row 0 at the top) to view-box coordinates. */
  xy(p) {
    return [1 + (p % this.size), 1 + Math.floor(p / this.size)];
  }

  setHover(p) {
    if (p !== this.hover) {
      this.hover = p;
      this.drawOverlay();
      this.handlers.onCursor(this.current());
    }
  }

  onKey(event) {
    if (!this.size) return;
    const n = this.size;
    let p = this.cursor < 0 ? Math.floor(n / 2) * (n + 1) : this.cursor;
    const x = p % n;
    const y = Math.floor(p / n);
    switch (event.key) {
      case "ArrowLeft": p = y * n + Math.max(0, x - 1); break;
      case "ArrowRight": p = y * n + Math.min(n - 1, x + 1); break;
      case "ArrowUp": p = Math.max(0, y - 1) * n + x; break;
      case "ArrowDown": p = Math.min(n - 1, y + 1) * n + x; break;
      case "Home": p = y * n; break;
      case "End": p = y * n + n - 1; break;
      case "Enter":
      case " ":
        event.preventDefault();
        this.handlers.onPlay(p);
        return;
      default:
        return;
    }
    event.preventDefault();
    this.cursor = p;
    this.drawOverlay();
    this.handlers.onCursor(p);
  }

  /**
   * Draws `state`: {game, ghost (colour or 0), ownership (rows of
   * "B"/"W"/"." from the top, or null), dead (Set of point indices),
   * candidates ({point, visits, winrate, best} or null), heat (Black's
   * expected ownership per point from -1 to 1, rows from the top, or null),
   * review ({candidates: [{point, loss, best, played, pv, color}], played:
   * {point, loss, color} or null} or null), hints (candidates as in review,
   * or null), unit ("points" or "percent", the losses' unit), line (a
   * candidate whose line is drawn, or null)}.
   */
  render(state) {
    this.state = state;
    if (state.game.size !== this.size) {
      this.size = state.game.size;
      this.hover = -1;
      this.cursor = -1;
    }
    this.draw();
  }

  draw() {
    const svg = this.svg;
    const state = this.state;
    if (!state) return;
    const n = this.size;
    const game = state.game;
    svg.replaceChildren();
    // The margin around the grid holds the labels: two digits of the label
    // size, beside the edge stones (which reach half a spacing out).
    const label = this.labelSize();
    this.label = label;
    const margin = Math.max(0.15, 1.2 * label - 0.42);
    const side = n + 1 + 2 * margin;
    svg.setAttribute("viewBox", `${-margin} ${-margin} ${side} ${side}`);

    const defs = el("defs", {}, svg);
    const black = el("radialGradient", { id: "stone-black", cx: "0.35", cy: "0.3", r: "0.75" }, defs);
    el("stop", { offset: "0", "stop-color": "#6b6b6b" }, black);
    el("stop", { offset: "0.45", "stop-color": "#222" }, black);
    el("stop", { offset: "1", "stop-color": "#000" }, black);
    const white = el("radialGradient", { id: "stone-white", cx: "0.35", cy: "0.3", r: "0.8" }, defs);
    el("stop", { offset: "0", "stop-color": "#ffffff" }, white);
    el("stop", { offset: "0.7", "stop-color": "#ececec" }, white);
    el("stop", { offset: "1", "stop-color": "#c4c4c4" }, white);

    el("rect", { x: -margin, y: -margin, width: side, height: side, rx: 0.12, class: "wood" }, svg);

    // Grid, slightly thicker at the edge.
    const grid = el("g", { class: "grid" }, svg);
    for (let i = 0; i < n; i++) {
      el("line", { x1: 1, y1: 1 + i, x2: n, y2: 1 + i }, grid);
      el("line", { x1: 1 + i, y1: 1, x2: 1 + i, y2: n }, grid);
    }
    el("rect", { x: 1, y: 1, width: n - 1, height: n - 1, class: "edge" }, grid);
    for (const p of starPoints(n)) {
      const [x, y] = this.xy(p);
      el("circle", { cx: x, cy: y, r: 0.09, class: "star" }, svg);
    }

    // Coordinates on all four sides, letters skipping I as in GTP.
    const labels = el("g", { class: "coords", "aria-hidden": "true", "font-size": label }, svg);
    // Halfway between the board's edge and the edge stones, a little nearer
    // the stones.
    const near = (0.5 - margin) / 2 + 0.06;
    for (let i = 0; i < n; i++) {
      for (const y of [near + 0.02, n + 1 - near - 0.02]) {
        const t = el("text", { x: 1 + i, y, "dominant-baseline": "central" }, labels);
        t.textContent = COLUMNS[i];
      }
      for (const x of [near, n + 1 - near]) {
        const t = el("text", { x, y: 1 + i, "dominant-baseline": "central" }, labels);
        t.textContent = String(n - i);
      }
    }

    // Territory under the stones, so that dead stones sit on their owner's mark.
    const dead = state.dead || new Set();
    const stones = el("g", { class: "stones" }, svg);
    for (let p = 0; p < n * n; p++) {
      const c = game.board[p];
      if (c === EMPTY) continue;
      const [x, y] = this.xy(p);
      const color = c === BLACK ? "black" : "white";
      el(
        "circle",
        {
          cx: x,
          cy: y,
          r: 0.475,
          class: `stone ${color}${dead.has(p) ? " dead" : ""}`,
          fill: `url(#stone-${color})`,
          "data-stone": color,
          "data-vertex": vertex(n, p),
        },
        stones,
      );
    }

    if (state.ownership) {
      const marks = el("g", { class: "territory" }, svg);
      for (let y = 0; y < n; y++) {
        const row = state.ownership[y] || "";
        for (let x = 0; x < n; x++) {
          const p = y * n + x;
          const owner = row[x];
          if ((owner !== "B" && owner !== "W") || (game.board[p] !== EMPTY && !dead.has(p))) continue;
          el(
            "rect",
            {
              x: 1 + x - 0.17,
              y: 1 + y - 0.17,
              width: 0.34,
              height: 0.34,
              class: owner === "B" ? "black" : "white",
              "data-territory": owner === "B" ? "black" : "white",
            },
            marks,
          );
        }
      }
    }

    const last = game.lastMove;
    if (last && last.point >= 0 && game.board[last.point] !== EMPTY) {
      const [x, y] = this.xy(last.point);
      el("circle", {
        cx: x,
        cy: y,
        r: 0.2,
        class: `last-move ${game.board[last.point] === BLACK ? "on-black" : "on-white"}`,
        "data-last-move": vertex(n, last.point),
      }, svg);
    }

    // The bot's view, when shown: who it expects to own each point, then its
    // candidate moves with their win rates and visits.
    if (state.heat) {
      const heat = el("g", { class: "heat" }, svg);
      for (let p = 0; p < n * n; p++) {
        const v = state.heat[p];
        if (!(Math.abs(v) >= 0.15)) continue;
        const [x, y] = this.xy(p);
        const owner = v > 0 ? "black" : "white";
        el("rect", {
          x: x - 0.22,
          y: y - 0.22,
          width: 0.44,
          height: 0.44,
          class: owner,
          opacity: Math.min(0.85, Math.abs(v)).toFixed(2),
          "data-ownership": owner,
        }, heat);
      }
    }
    if (state.candidates) {
      const marks = el("g", { class: "candidates" }, svg);
      for (const c of state.candidates) {
        const [x, y] = this.xy(c.point);
        const mark = el("g", { class: c.best ? "candidate best" : "candidate", "data-candidate": vertex(n, c.point) }, marks);
        el("circle", { cx: x, cy: y, r: 0.44 }, mark);
        const rate = el("text", { x, y: y - 0.1, class: "rate", "dominant-baseline": "central" }, mark);
        rate.textContent = `${Math.round(100 * c.winrate)}%`;
        const visits = el("text", { x, y: y + 0.19, class: "visits", "dominant-baseline": "central" }, mark);
        visits.textContent = compact(c.visits);
      }
    }

    // Review: the engine's preferred moves where the next move was played,
    // each with what it loses (the server's review says), and the move
    // played there.
    // Hints: the engine's top moves for the side to move.
    if (state.review || state.hints) {
      const marks = el("g", { class: "review-marks" }, svg);
      const label = (loss) => (loss === null ? "?" : formatLoss(loss, state.unit));
      for (const c of state.review ? state.review.candidates : state.hints) {
        const [x, y] = this.xy(c.point);
        const hint = !state.review;
        const mark = el("g", {
          class: `mark ${c.best ? "best" : ""} ${c.played ? "played" : ""}`,
          [hint ? "data-hint" : "data-review-candidate"]: vertex(n, c.point),
        }, marks);
        el("circle", { cx: x, cy: y, r: 0.42 }, mark);
        const text = el("text", { x, y, "dominant-baseline": "central" }, mark);
        text.textContent = c.best ? "1" : label(c.loss);
      }
      const played = state.review && state.review.played;
      if (played && played.point >= 0) {
        const [x, y] = this.xy(played.point);
        const mark = el("g", {
          class: `played-move ${played.color === WHITE ? "white" : "black"}`,
          "data-played": vertex(n, played.point),
        }, marks);
        el("circle", { cx: x, cy: y, r: 0.46 }, mark);
        if (played.loss !== null) {
          const text = el("text", { x, y, "dominant-baseline": "central" }, mark);
          text.textContent = label(Math.max(0, played.loss));
        }
      }
    }

    this.overlay = el("g", { class: "overlay" }, svg);

    // Targets last, on top: one square per point, for the pointer's shape
    // and for tests to find a point by its vertex. Presses are read on the
    // whole board (see the constructor).
    const hits = el("g", { class: "hits" }, svg);
    for (let p = 0; p < n * n; p++) {
      const [x, y] = this.xy(p);
      el("rect", { x: x - 0.5, y: y - 0.5, width: 1, height: 1, "data-point": vertex(n, p) }, hits);
    }
    this.drawOverlay();
    // The point described may have changed (a stone played or taken).
    this.handlers.onCursor(this.current());
  }

  /**
   * The line to draw over the board: the one chosen (`state.line`, a tapped
   * candidate), else that of the review or hint mark under the pointer.
   */
  shownLine() {
    const state = this.state;
    if (state.line) return state.line;
    if (this.hover < 0) return null;
    const marks = state.review ? state.review.candidates : state.hints || [];
    return marks.find((c) => c.point === this.hover) || null;
  }

  /**
   * A principal variation as numbered ghost stones: {pv (point indices, -1
   * a pass), color (who plays its first move)}; a point met again keeps its
   * first number. Nothing on the board itself changes.
   */
  drawLine(overlay, line) {
    const game = this.state.game;
    const group = el("g", { class: "pv", "data-pv-of": vertex(this.size, line.point) }, overlay);
    const seen = new Set();
    let color = line.color;
    line.pv.forEach((p, i) => {
      if (p >= 0 && !seen.has(p) && game.board[p] === EMPTY) {
        seen.add(p);
        const [x, y] = this.xy(p);
        const name = color === WHITE ? "white" : "black";
        el("circle", { cx: x, cy: y, r: 0.46, class: `pv-stone ${name}`, fill: `url(#stone-${name})`, "data-pv": vertex(this.size, p) }, group);
        const text = el("text", { x, y, class: name, "dominant-baseline": "central" }, group);
        text.textContent = String(i + 1);
      }
      color = color === WHITE ? BLACK : WHITE;
    });
  }

  /** The ghost stone, a candidate's line and the keyboard cursor, redrawn on every pointer move. */
  drawOverlay() {
    if (!this.overlay || !this.state) return;
    const overlay = this.overlay;
    overlay.replaceChildren();
    const game = this.state.game;
    const ghost = this.state.ghost;
    const line = this.shownLine();
    if (line) this.drawLine(overlay, line);
    else if (ghost && this.hover >= 0 && game.board[this.hover] === EMPTY) {
      const [x, y] = this.xy(this.hover);
      const color = ghost === WHITE ? "white" : "black";
      el("circle", { cx: x, cy: y, r: 0.475, class: `ghost ${color}`, fill: `url(#stone-${color})` }, overlay);
    }
    // The cursor is for keyboard players; a mouse click focuses the board too.
    if (this.svg.matches(":focus-visible") && this.cursor >= 0) {
      const [x, y] = this.xy(this.cursor);
      el("rect", { x: x - 0.5, y: y - 0.5, width: 1, height: 1, rx: 0.1, class: "cursor" }, overlay);
    }
  }
}
