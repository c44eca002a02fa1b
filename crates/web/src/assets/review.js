// Game review on the page: the analyses as the page keeps them, each
// position's win rate and score lead from one player's view, losses as
// labels, and the SVG graph over the moves. What a move or a candidate
// lost and which moves are mistakes is the server's to say (`POST
// /api/review`, the rule of `tengen review`); app.js asks, nothing here
// talks to the server.

import { BLACK, WHITE } from "./rules.js";

const SVG = "http://www.w3.org/2000/svg";

/** The graph's view box: one unit per pixel of a typical panel. */
const WIDTH = 320;
const HEIGHT = 120;
/** Room at the left and right so the marker at move 0 and the last shows whole. */
const PAD = 4;

/**
 * An analysis as the page keeps it, from the server's answer
 * (`POST /api/analyse/{bot}`): {perspective (BLACK or WHITE, the side to
 * move, whose view the numbers are), winrate, scoreLead (or null), visits,
 * target (the visits asked for), candidates [{move, visits, winrate,
 * scoreLead, pv}]}.
 */
export function keptAnalysis(answer) {
  const a = answer.analysis;
  return {
    perspective: a.perspective === "white" ? WHITE : BLACK,
    winrate: a.winrate,
    scoreLead: typeof a.scoreLead === "number" ? a.scoreLead : null,
    visits: a.playouts,
    target: answer.target_visits,
    candidates: (a.candidates || []).filter((c) => c.visits > 0).map((c) => ({
      move: c.move,
      visits: c.visits,
      winrate: c.winrate,
      scoreLead: typeof c.scoreLead === "number" ? c.scoreLead : null,
      pv: (c.pv || []).slice(0, 12),
    })),
  };
}

/** `analysis`'s win rate and score lead (null if none) from `color`'s view. */
export function seenBy(analysis, color) {
  const same = analysis.perspective === color;
  return {
    winrate: same ? analysis.winrate : 1 - analysis.winrate,
    scoreLead: analysis.scoreLead === null ? null : same ? analysis.scoreLead : -analysis.scoreLead,
  };
}

/**
 * A loss in its unit, signed for labels: "−3.2" (points lost), "−12%" (win
 * rate lost), "+0.4" for a gain, and "0.0" or "0%" for what rounds to
 * nothing (never "−0.0").
 */
export function formatLoss(loss, unit) {
  const points = unit === "points";
  const shown = points ? Math.round(loss * 10) / 10 : Math.round(loss);
  const size = points ? Math.abs(shown).toFixed(1) : `${Math.abs(shown)}%`;
  if (shown > 0) return `−${size}`;
  if (shown < 0) return `+${size}`;
  return size;
}

function el(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

/** The x of move `t` of `total`. */
function xOf(t, total) {
  return PAD + (total ? (t / total) * (WIDTH - 2 * PAD) : 0);
}

/**
 * Draws the graph into `svg`: the win rate (0 to 100%, bottom to top) and
 * the score lead (0 in the middle, the largest lead of the game near the
 * edges) of `color` over positions 0 to `total` (`analyses[t]`, holes where
 * a position is not analysed yet), and the marker at position `current`.
 * Returns the lead's scale (the lead drawn at the top edge), or null.
 */
export function drawGraph(svg, { analyses, total, current, color }) {
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
  svg.setAttribute("preserveAspectRatio", "none");
  svg.dataset.current = String(current);
  svg.dataset.total = String(total);
  el("rect", { x: 0, y: 0, width: WIDTH, height: HEIGHT, class: "graph-back" }, svg);
  el("line", { x1: 0, y1: HEIGHT / 2, x2: WIDTH, y2: HEIGHT / 2, class: "graph-mid" }, svg);
  const seen = analyses.map((a) => (a ? seenBy(a, color) : null));
  const leads = seen.filter((s) => s && s.scoreLead !== null).map((s) => Math.abs(s.scoreLead));
  const scale = leads.length ? Math.max(5, ...leads) * 1.1 : null;
  const path = (value) => {
    let d = "";
    let open = false;
    for (let t = 0; t <= total; t++) {
      const v = seen[t] ? value(seen[t]) : null;
      if (v === null || v === undefined) {
        open = false;
        continue;
      }
      d += `${open ? "L" : "M"}${xOf(t, total).toFixed(2)} ${v.toFixed(2)} `;
      open = true;
    }
    return d.trim();
  };
  if (scale !== null) {
    const lead = path((s) => (s.scoreLead === null ? null : HEIGHT / 2 - (s.scoreLead / scale) * (HEIGHT / 2)));
    if (lead) el("path", { d: lead, class: "graph-lead", "data-graph": "lead", "vector-effect": "non-scaling-stroke" }, svg);
  }
  const rate = path((s) => HEIGHT * (1 - s.winrate));
  if (rate) el("path", { d: rate, class: "graph-winrate", "data-graph": "winrate", "vector-effect": "non-scaling-stroke" }, svg);
  const x = xOf(current, total);
  el("line", {
    x1: x, y1: 0, x2: x, y2: HEIGHT, class: "graph-marker", "data-graph-marker": current, "vector-effect": "non-scaling-stroke",
  }, svg);
  return scale;
}

/** The position (0 to `total`) under a pointer event on the graph. */
export function positionAt(svg, event, total) {
  const box = svg.getBoundingClientRect();
  if (!box.width) return 0;
  const units = ((event.clientX - box.left) / box.width) * WIDTH;
  const t = Math.round(((units - PAD) / (WIDTH - 2 * PAD)) * total);
  return Math.max(0, Math.min(total, t));
}
