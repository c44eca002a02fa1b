// Ranks on the page: the ranks a bot's `rank` option offers, the game two
// players of given ranks should play (handicap, komi, who takes Black), and
// the results the browser keeps against each rank, with the next rank they
// suggest. Nothing here touches the page or the server.

/** Where the results against each rank and the player's own rank are kept. */
export const RANKS_KEY = "tengen.ranks.v1";

/** The ranks a bot's `rank` option offers (its listing's values), `off` left out. */
export function ranksOf(option) {
  if (!option || typeof option.values !== "string") return [];
  return option.values.split(" or ").map((word) => word.trim()).filter((word) => kyuNumber(word) !== null);
}

/**
 * A rank's kyu number on KaTrain's scale: 1k is 1, 1d is 0, 5d is -4, so
 * that a smaller number is a stronger player; null for anything else.
 */
export function kyuNumber(rank) {
  const found = /^(\d{1,2})([kd])$/.exec(String(rank));
  if (!found) return null;
  const n = Number(found[1]);
  if (n < 1) return null;
  return found[2] === "k" ? n : 1 - n;
}

/**
 * How many ranks one handicap stone is worth on a `size`×`size` board: one
 * on 19×19, and more on smaller boards, where a move (and so a stone) is
 * worth about as many points while a rank's difference over a game is
 * smaller, in proportion to the board's area (about 2 on 13×13, 4.5 on 9×9).
 */
export function ranksPerStone(size) {
  return (19 * 19) / (size * size);
}

/**
 * The game a player of rank `you` and a bot of rank `bot` should play on a
 * `size`×`size` board: the weaker takes Black; a difference worth one stone
 * is Black without komi (0.5, so no draw), one worth n ≥ 2 stones is n
 * handicap stones (at most `maxHandicap`) and komi 0.5; ranks within half a
 * stone play even with the rules' komi `evenKomi`. Returns {human ("black",
 * "white" or null when either will do), handicap, komi, stones (the
 * difference in stones, before rounding), capped (more stones were due than
 * the board takes), text}; null when a rank is not one.
 */
export function suggestGame(you, bot, size, evenKomi, maxHandicap) {
  const yours = kyuNumber(you);
  const its = kyuNumber(bot);
  if (yours === null || its === null || !(size >= 2)) return null;
  const difference = yours - its; // > 0: you are the weaker
  const stones = Math.abs(difference) / ranksPerStone(size);
  const whole = Math.round(stones);
  if (whole === 0) {
    return {
      human: null,
      handicap: 0,
      komi: evenKomi,
      stones,
      capped: false,
      text: `${you} against ${bot} on ${size}×${size}: an even game, komi ${evenKomi}.`,
    };
  }
  const weaker = difference > 0 ? "you" : "the bot";
  const human = difference > 0 ? "black" : "white";
  if (whole === 1 || maxHandicap < 2) {
    return {
      human,
      handicap: 0,
      komi: 0.5,
      stones,
      capped: whole > 1,
      text: `${you} against ${bot} on ${size}×${size}: about one stone apart, so ${weaker} take${weaker === "you" ? "" : "s"} Black with komi 0.5.`,
    };
  }
  const handicap = Math.min(whole, maxHandicap);
  const capped = whole > maxHandicap;
  const more = capped ? ` (${whole} were due; ${size}×${size} takes at most ${maxHandicap})` : "";
  return {
    human,
    handicap,
    komi: 0.5,
    stones,
    capped,
    text: `${you} against ${bot} on ${size}×${size}: ${handicap} stones for ${weaker === "you" ? "you" : "the bot"}${more}, komi 0.5.`,
  };
}

/** The results kept as they are read back: {you (the player's rank or null), ranks ({rank: {wins, losses, draws}}), last ({rank, outcome} or null)}. */
export function emptyResults() {
  return { you: null, ranks: {}, last: null };
}

/** Results as stored (any JSON text, or null), checked field by field; what does not fit is dropped. */
export function parseResults(text) {
  const results = emptyResults();
  let data = null;
  try {
    data = JSON.parse(text || "null");
  } catch {
    return results;
  }
  if (!data || typeof data !== "object") return results;
  if (kyuNumber(data.you) !== null) results.you = data.you;
  if (data.ranks && typeof data.ranks === "object") {
    for (const [rank, tally] of Object.entries(data.ranks)) {
      if (kyuNumber(rank) === null || !tally || typeof tally !== "object") continue;
      const count = (x) => (Number.isInteger(x) && x >= 0 ? x : 0);
      results.ranks[rank] = { wins: count(tally.wins), losses: count(tally.losses), draws: count(tally.draws) };
    }
  }
  const last = data.last;
  if (last && kyuNumber(last.rank) !== null && ["win", "loss", "draw"].includes(last.outcome)) {
    results.last = { rank: last.rank, outcome: last.outcome };
  }
  return results;
}

/** The results with one more game against `rank` ("win", "loss" or "draw"), as a new value. */
export function withResult(results, rank, outcome) {
  const ranks = { ...results.ranks };
  const tally = { wins: 0, losses: 0, draws: 0, ...(ranks[rank] || {}) };
  if (outcome === "win") tally.wins++;
  else if (outcome === "loss") tally.losses++;
  else tally.draws++;
  ranks[rank] = tally;
  return { ...results, ranks, last: { rank, outcome } };
}

/**
 * The rank to offer after the last game, among `ranks` (weakest first, as
 * a bot's listing gives them): one up after a win, one down after a loss,
 * the same after a draw. Returns {rank, text} or null before any game.
 */
export function nextRank(results, ranks) {
  const last = results.last;
  if (!last) return null;
  const i = ranks.indexOf(last.rank);
  if (i < 0) return null;
  if (last.outcome === "win") {
    if (i + 1 >= ranks.length) return { rank: last.rank, text: `You beat ${last.rank}, the strongest rank offered.` };
    return { rank: ranks[i + 1], text: `You beat ${last.rank}: try ${ranks[i + 1]}.` };
  }
  if (last.outcome === "loss") {
    if (i === 0) return { rank: last.rank, text: `You lost to ${last.rank}, the weakest rank offered: try it again.` };
    return { rank: ranks[i - 1], text: `You lost to ${last.rank}: try ${ranks[i - 1]}.` };
  }
  return { rank: last.rank, text: `A draw with ${last.rank}: play it again.` };
}

/** One rank's tally in words: "2 wins, 1 loss". */
export function describeTally(tally) {
  const words = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  const parts = [words(tally.wins, "win", "wins"), words(tally.losses, "loss", "losses")];
  if (tally.draws) parts.push(words(tally.draws, "draw", "draws"));
  return parts.join(", ");
}
