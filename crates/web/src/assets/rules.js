// The rules of Go as the page needs them: captures, suicide, simple ko and
// superko, the same way tengen-core decides them, so that an illegal click is
// explained at once and never sent to the server. The server replays every
// move again; this file only has to agree with it. No DOM here, so Node's
// test runner can load it too.

/** GTP column letters: A to Z without I. */
export const COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

export const EMPTY = 0;
export const BLACK = 1;
export const WHITE = 2;

/** The rule presets of tengen-core (crates/core/src/rules.rs). */
export const PRESETS = {
  "tromp-taylor": { ko: "positional", suicide: "allowed", scoring: "area", komi: 7.5 },
  chinese: { ko: "positional", suicide: "forbidden", scoring: "area", komi: 7.5 },
  aga: { ko: "situational", suicide: "forbidden", scoring: "area", komi: 7.5 },
  japanese: { ko: "simple", suicide: "forbidden", scoring: "territory", komi: 6.5 },
  "new-zealand": { ko: "situational", suicide: "multi-stone", scoring: "area", komi: 7 },
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
   * @param {{ko: string, suicide: string}} rules
   * @param {number} handicap fixed handicap stones for Black (White starts)
   */
  constructor(size, rules, handicap = 0) {
    this.size = size;
    this.rules = rules;
    this.board = new Uint8Array(size * size);
    this.toMove = BLACK;
    this.captures = { [BLACK]: 0, [WHITE]: 0 };
    this.ko = -1;
    this.koBarred = EMPTY;
    this.passes = 0;
    this.resigned = EMPTY;
    this.moves = [];
    this.lastMove = null;
    for (const v of handicapVertices(size, handicap)) {
      this.board[parseVertex(size, v)] = BLACK;
    }
    if (handicap >= 2) this.toMove = WHITE;
    this.seen = new Set([this.key(this.board, this.toMove)]);
  }

  /** A game with `moves` (vertex texts, "pass", "resign") replayed. */
  static replay(size, rules, handicap, moves) {
    const game = new Game(size, rules, handicap);
    for (const mv of moves) game.play(mv);
    return game;
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
      this.passes += 1;
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
