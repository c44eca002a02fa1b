// The rules of Go as the page needs them: captures, suicide, simple ko and
// superko, the same way tengen-core decides them, so that an illegal click is
// explained at once and never sent to the server. The server replays every
// move again; this file only has to agree with it. Also the main line of an
// SGF record, for the page to open one. No DOM here, so Node's test runner
// can load it too.

/** GTP column letters: A to Z without I. */
export const COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

export const EMPTY = 0;
export const BLACK = 1;
export const WHITE = 2;

/**
 * The rule presets of tengen-core (crates/core/src/rules.rs): KataGo's rule
 * sets, with the parts the page plays (ko, suicide, the button's pass) and
 * its komi; the count is the server's.
 */
export const PRESETS = {
  chinese: { ko: "simple", suicide: "forbidden", scoring: "area", komi: 7.5 },
  "chinese-ogs": { ko: "positional", suicide: "forbidden", scoring: "area", komi: 7.5 },
  japanese: { ko: "simple", suicide: "forbidden", scoring: "territory", komi: 6.5 },
  korean: { ko: "simple", suicide: "forbidden", scoring: "territory", komi: 6.5 },
  aga: { ko: "situational", suicide: "forbidden", scoring: "area", komi: 7.5 },
  "aga-button": { ko: "situational", suicide: "forbidden", scoring: "area", komi: 7, button: true },
  "new-zealand": { ko: "situational", suicide: "multi-stone", scoring: "area", komi: 7 },
  "stone-scoring": { ko: "simple", suicide: "forbidden", scoring: "area", komi: 7.5 },
  "tromp-taylor": { ko: "positional", suicide: "allowed", scoring: "area", komi: 7.5 },
};

/** Why a move is refused, in words for the player. */
export const REASONS = {
  over: "the game is over",
  occupied: "the point is occupied",
  suicide: "suicide is not allowed: the stone would have no liberties",
  ko: "ko: the stone cannot be retaken at once; play elsewhere first",
  superko: "superko: it would repeat an earlier position",
};

export function opponent(color) {
  return color === BLACK ? WHITE : BLACK;
}

export function colorName(color) {
  return color === BLACK ? "Black" : "White";
}

/** The vertex text of point index `p` (row 0 at the top), e.g. "D4". */
export function vertex(size, p) {
  const x = p % size;
  const y = Math.floor(p / size);
  return COLUMNS[x] + String(size - y);
}

/** The point index of a vertex text, or -1 for "pass", or null if invalid. */
export function parseVertex(size, text) {
  const t = String(text).trim().toUpperCase();
  if (t === "PASS") return -1;
  const m = /^([A-HJ-Z])([1-9][0-9]?)$/.exec(t);
  if (!m) return null;
  const x = COLUMNS.indexOf(m[1]);
  const row = Number(m[2]);
  if (x < 0 || x >= size || row < 1 || row > size) return null;
  return (size - row) * size + x;
}

/** The largest fixed handicap a square board allows (as tengen-core). */
export function maxHandicap(size) {
  if (size < 7) return 0;
  if (size === 7 || size % 2 === 0) return 4;
  return 9;
}

/** The fixed handicap points in GTP placement, as vertex texts. */
export function handicapVertices(size, stones) {
  if (stones < 2 || stones > maxHandicap(size)) return [];
  const edge = size >= 13 ? 3 : 2;
  const low = edge;
  const mid = Math.floor(size / 2);
  const high = size - 1 - edge;
  // (column, row) from the bottom-left, as the GTP specification counts.
  const at = (c, r) => COLUMNS[c] + String(r + 1);
  const points = [at(low, low), at(high, high)];
  if (stones >= 3) points.push(at(low, high));
  if (stones >= 4) points.push(at(high, low));
  if (stones >= 6) points.push(at(low, mid), at(high, mid));
  if (stones >= 8) points.push(at(mid, low), at(mid, high));
  if (stones % 2 === 1 && stones >= 5) points.push(at(mid, mid));
  return points;
}

/** Star points (hoshi) to draw, as point indices (row 0 at the top). */
export function starPoints(size) {
  const odd = size % 2 === 1;
  const mid = Math.floor(size / 2);
  const center = odd && size >= 5 ? [mid * size + mid] : [];
  if (size < 7) return center;
  const edge = size >= 13 ? 3 : 2;
  const lines = [edge, size - 1 - edge];
  const points = [];
  for (const y of lines) for (const x of lines) points.push(y * size + x);
  if (odd && size >= 15) {
    points.push(mid * size + edge, mid * size + size - 1 - edge, edge * size + mid, (size - 1 - edge) * size + mid);
  }
  return points.concat(center);
}

/**
 * A game: the board, whose turn it is, captures, the ko point, every
 * position seen (for superko), passes and resignation.
 */
export class Game {
  /**
   * @param {number} size side of the board
   * @param {{ko: string, suicide: string, button?: boolean}} rules
   * @param {number} handicap fixed handicap stones for Black (White starts)
   * @param {{black: string[], white: string[], to_move: string} | null} setup
   *   stones on the board before the first move instead of a handicap, and
   *   who moves first ("black" or "white"), as the server's requests give them
   */
  constructor(size, rules, handicap = 0, setup = null) {
    this.size = size;
    this.rules = rules;
    this.board = new Uint8Array(size * size);
    this.toMove = BLACK;
    this.captures = { [BLACK]: 0, [WHITE]: 0 };
    this.ko = -1;
    this.koBarred = EMPTY;
    this.passes = 0;
    /** Under a button rule, who took it (the first to pass), else EMPTY. */
    this.buttonTaker = EMPTY;
    this.resigned = EMPTY;
    this.moves = [];
    this.lastMove = null;
    for (const v of handicapVertices(size, handicap)) {
      this.board[parseVertex(size, v)] = BLACK;
    }
    if (handicap >= 2) this.toMove = WHITE;
    if (setup) {
      for (const [color, list] of [[BLACK, setup.black || []], [WHITE, setup.white || []]]) {
        for (const v of list) {
          const p = parseVertex(size, v);
          if (p === null || p < 0) throw new Error(`setup stone '${v}' is not a point of this board`);
          if (this.board[p] !== EMPTY) throw new Error(`setup stone ${v}: the point is already occupied`);
          this.board[p] = color;
        }
      }
      this.toMove = setup.to_move === "white" ? WHITE : BLACK;
    }
    /** Who plays the first move of `moves`. */
    this.firstColor = this.toMove;
    this.seen = new Set([this.key(this.board, this.toMove)]);
  }

  /** A game with `moves` (vertex texts, "pass", "resign") replayed. */
  static replay(size, rules, handicap, moves, setup = null) {
    const game = new Game(size, rules, handicap, setup);
    for (const mv of moves) game.play(mv);
    return game;
  }

  /** Who played move `i` (from 0) of the list. */
  colorAt(i) {
    return i % 2 === 0 ? this.firstColor : opponent(this.firstColor);
  }

  isOver() {
    return this.passes >= 2 || this.resigned !== EMPTY;
  }

  key(board, toMove) {
    const situational = this.rules.ko === "situational";
    return String.fromCharCode(...board) + (situational ? String(toMove) : "");
  }

  neighbors(p) {
    const n = this.size;
    const x = p % n;
    const result = [];
    if (x > 0) result.push(p - 1);
    if (x < n - 1) result.push(p + 1);
    if (p >= n) result.push(p - n);
    if (p < n * n - n) result.push(p + n);
    return result;
  }

  /** The chain through `p` and its liberty count on `board`. */
  chain(board, p) {
    const color = board[p];
    const stones = [p];
    const seen = new Set(stones);
    const liberties = new Set();
    for (let i = 0; i < stones.length; i++) {
      for (const q of this.neighbors(stones[i])) {
        if (board[q] === EMPTY) liberties.add(q);
        else if (board[q] === color && !seen.has(q)) {
          seen.add(q);
          stones.push(q);
        }
      }
    }
    return { stones, liberties: liberties.size };
  }

  /**
   * What playing `p` for `color` does: the board after, stones captured,
   * own stones lost (suicide), and whether it sets a ko.
   */
  simulate(p, color) {
    const board = this.board.slice();
    board[p] = color;
    const enemy = opponent(color);
    let captured = 0;
    let capturedAt = -1;
    for (const q of this.neighbors(p)) {
      if (board[q] !== enemy) continue;
      const { stones, liberties } = this.chain(board, q);
      if (liberties === 0) {
        for (const s of stones) board[s] = EMPTY;
        captured += stones.length;
        capturedAt = q;
      }
    }
    const own = this.chain(board, p);
    let lost = 0;
    if (own.liberties === 0) {
      for (const s of own.stones) board[s] = EMPTY;
      lost = own.stones.length;
    }
    const setsKo = lost === 0 && captured === 1 && own.stones.length === 1 && own.liberties === 1;
    return { board, captured, lost, ko: setsKo ? capturedAt : -1 };
  }

  /**
   * Why `mv` ("D4", "pass" or a point index) is illegal for the side to
   * move, as a key of REASONS, or null when it is legal.
   */
  check(mv) {
    if (this.isOver()) return "over";
    const p = typeof mv === "number" ? mv : parseVertex(this.size, mv);
    if (p === null) return "occupied";
    if (p < 0) return null;
    const color = this.toMove;
    if (this.board[p] !== EMPTY) return "occupied";
    const after = this.simulate(p, color);
    if (after.lost > 0) {
      if (this.rules.suicide === "forbidden") return "suicide";
      if (this.rules.suicide === "multi-stone" && after.lost < 2) return "suicide";
    }
    if (p === this.ko && color === this.koBarred) return "ko";
    if (this.rules.ko !== "simple" && this.seen.has(this.key(after.board, opponent(color)))) {
      return "superko";
    }
    return null;
  }

  /** Plays `mv` (vertex text, "pass", "resign" or point index); throws when illegal. */
  play(mv) {
    const text = typeof mv === "number" ? vertex(this.size, mv) : String(mv).trim();
    if (text.toLowerCase() === "resign") {
      if (this.isOver()) throw new Error(REASONS.over);
      this.resigned = this.toMove;
      this.moves.push("resign");
      return;
    }
    const p = typeof mv === "number" ? mv : parseVertex(this.size, text);
    if (p === null) throw new Error(`'${text}' is not a point of this board`);
    const reason = this.check(p);
    if (reason) throw new Error(`${text}: ${REASONS[reason]}`);
    const color = this.toMove;
    if (p < 0) {
      // The pass that takes the button does not count towards the two
      // that end the game.
      if (this.rules.button && this.buttonTaker === EMPTY) this.buttonTaker = color;
      else this.passes += 1;
      this.ko = -1;
      this.koBarred = EMPTY;
      this.moves.push("pass");
      this.lastMove = { color, point: -1 };
    } else {
      const after = this.simulate(p, color);
      this.board = after.board;
      this.captures[color] += after.captured;
      this.captures[opponent(color)] += after.lost;
      this.ko = after.ko;
      this.koBarred = after.ko >= 0 ? opponent(color) : EMPTY;
      this.passes = 0;
      this.moves.push(vertex(this.size, p));
      this.lastMove = { color, point: p };
    }
    this.toMove = opponent(color);
    this.seen.add(this.key(this.board, this.toMove));
  }
}

// ---- SGF records ------------------------------------------------------

/** The rule presets an SGF `RU` names, by a word in it (lower case). */
const SGF_RULES = [
  ["japanese", "japanese"],
  ["korean", "korean"],
  ["chinese", "chinese"],
  ["aga", "aga"],
  ["new zealand", "new-zealand"],
  ["nz", "new-zealand"],
  ["tromp", "tromp-taylor"],
];

/**
 * The nodes of the first game tree's main line (the first variation at every
 * branch), each a map from property name to its list of values, with the
 * escapes of SGF text undone. Throws on text that is not SGF.
 */
export function sgfMainLine(text) {
  let i = text.indexOf("(");
  if (i < 0) throw new Error("no game tree: an SGF record starts with '(;'");
  const nodes = [];
  const fail = (why) => {
    throw new Error(`${why} (at character ${i})`);
  };
  // The main line is every node up to the first tree that closes: the
  // first variation is always entered before any later one.
  while (i < text.length) {
    const c = text[i];
    if (c === "(") {
      i += 1;
    } else if (c === ")") {
      break;
    } else if (c === ";") {
      i += 1;
      const node = {};
      for (;;) {
        while (i < text.length && /\s/.test(text[i])) i += 1;
        const name = /^[A-Za-z]+/.exec(text.slice(i, i + 32));
        if (!name) break;
        i += name[0].length;
        // FF[3] allowed lower-case letters in names; only the capitals count.
        const key = name[0].replace(/[a-z]/g, "");
        const values = [];
        for (;;) {
          while (i < text.length && /\s/.test(text[i])) i += 1;
          if (text[i] !== "[") break;
          i += 1;
          let value = "";
          while (i < text.length && text[i] !== "]") {
            if (text[i] === "\\") {
              i += 1;
              // An escaped line break is no character at all.
              if (text[i] === "\r" && text[i + 1] === "\n") i += 1;
              if (text[i] !== "\n" && text[i] !== "\r") value += text[i] ?? "";
            } else {
              value += text[i];
            }
            i += 1;
          }
          if (i >= text.length) fail(`property ${key} has no closing ']'`);
          i += 1;
          values.push(value);
        }
        if (!values.length) fail(`property ${key} has no value`);
        node[key] = (node[key] || []).concat(values);
      }
      nodes.push(node);
    } else if (/\s/.test(c)) {
      i += 1;
    } else {
      fail(`unexpected '${c}'`);
    }
  }
  if (!nodes.length) throw new Error("the game tree has no node");
  return nodes;
}

/** An SGF point (`dd`, letters from a at the top left) as a vertex, or null for a pass. */
function sgfPoint(size, value) {
  if (value === "" || (value === "tt" && size <= 19)) return null;
  const letter = (ch) => {
    const code = ch.charCodeAt(0);
    if (code >= 97 && code <= 122) return code - 97;
    if (code >= 65 && code <= 90) return code - 65 + 26;
    return -1;
  };
  const x = letter(value[0] || "");
  const y = letter(value[1] || "");
  if (value.length !== 2 || x < 0 || y < 0 || x >= size || y >= size) {
    throw new Error(`'${value}' is not a point of a ${size}×${size} board`);
  }
  return vertex(size, y * size + x);
}

/** The points of an SGF point list, whose entries may be rectangles such as `aa:cc`. */
function sgfPoints(size, values) {
  const points = [];
  for (const value of values) {
    const [from, to] = value.split(":");
    if (to === undefined) {
      const v = sgfPoint(size, from);
      if (v) points.push(v);
      continue;
    }
    const a = parseVertex(size, sgfPoint(size, from));
    const b = parseVertex(size, sgfPoint(size, to));
    const [ax, ay, bx, by] = [a % size, Math.floor(a / size), b % size, Math.floor(b / size)];
    for (let y = Math.min(ay, by); y <= Math.max(ay, by); y++) {
      for (let x = Math.min(ax, bx); x <= Math.max(ax, bx); x++) {
        points.push(vertex(size, y * size + x));
      }
    }
  }
  return points;
}

/**
 * The main line of an SGF record as the page plays it: {size, komi (0
 * when the record gives none), handicap (HA, informative: the stones are in
 * setup), rules (a preset name), setup ({black, white, to_move} or null),
 * moves (vertices and "pass"), players ({black, white}), result}. A move out
 * of turn gets a pass of the other colour before it, as the page's move
 * list alternates. Throws, saying why, on what the page cannot play: a
 * board that is not square or larger than 25×25, stones added or removed
 * after the first move, another game than Go.
 */
export function readSgf(text) {
  const nodes = sgfMainLine(text);
  const root = nodes[0];
  const one = (key) => (root[key] ? root[key][0].trim() : null);
  if (one("GM") && one("GM") !== "1") throw new Error(`the record is of game ${one("GM")}, not Go (GM[1])`);
  const sz = one("SZ") || "19";
  if (!/^\d+$/.test(sz)) throw new Error(`board size ${sz}: only square boards can be played here`);
  const size = Number(sz);
  if (size < 2 || size > 25) throw new Error(`board size ${size}: boards from 2×2 to 25×25 can be played here`);
  // A record without komi is taken to have none.
  let komi = 0;
  if (one("KM") !== null && one("KM") !== "") {
    komi = Number(one("KM"));
    if (!Number.isFinite(komi) || Math.abs(komi) > 1000) throw new Error(`komi ${one("KM").slice(0, 20)} is not a number between -1000 and 1000`);
  }
  const ru = (one("RU") || "").toLowerCase();
  const found = SGF_RULES.find(([word]) => ru.includes(word));
  const rules = found ? found[1] : "chinese";
  const handicap = Number(one("HA")) || 0;

  const black = [];
  const white = [];
  const moves = [];
  let next = null; // the colour to move next, once known
  let first = null;
  for (const [index, node] of nodes.entries()) {
    const setupHere = node.AB || node.AW || node.AE;
    if (setupHere) {
      if (moves.length) throw new Error(`node ${index} adds or removes stones after the first move; the page cannot play that`);
      if (node.AE) throw new Error("the record removes stones (AE); the page cannot play that");
      black.push(...sgfPoints(size, node.AB || []));
      white.push(...sgfPoints(size, node.AW || []));
    }
    if (node.PL && !moves.length) first = /^w/i.test(node.PL[0]) ? "white" : "black";
    for (const [key, color] of [["B", "black"], ["W", "white"]]) {
      if (!node[key]) continue;
      if (next === null) {
        next = color;
        first = color;
      }
      if (color !== next) moves.push("pass");
      moves.push(sgfPoint(size, node[key][0].trim()) || "pass");
      next = color === "black" ? "white" : "black";
    }
  }
  if (first === null) first = handicap >= 2 && black.length ? "white" : "black";
  const setup = black.length || white.length || first === "white" ? { black, white, to_move: first } : null;
  return {
    size,
    komi,
    handicap,
    rules,
    setup,
    moves,
    players: { black: one("PB"), white: one("PW") },
    result: one("RE"),
  };
}
