// The page: a game against one of tengen's bots. The game lives here (and in
// localStorage, so a reload keeps it); the server is asked for the bot's move,
// the final count and the SGF record, each time with the whole move list.

import { BoardView } from "./board.js";
import {
  drawGraph, formatLoss, keptAnalysis, positionAt, seenBy,
} from "./review.js";
import {
  RANKS_KEY, describeTally, kyuNumber, nextRank, parseResults, ranksOf, suggestGame, withResult,
} from "./ranks.js";
import {
  BLACK, WHITE, PRESETS, REASONS, Game, colorName, maxHandicap, opponent, parseVertex, readSgf, vertex,
} from "./rules.js";

const STORAGE_KEY = "tengen.game.v1";
const PREFS_KEY = "tengen.view.v1";
const $ = (id) => document.getElementById(id);

/**
 * Everything that survives a reload: {settings, moves, score (the server's
 * count), analyses (what the bot reported, by the number of moves before
 * its move), dead (vertices of the stones counted as dead once both players
 * passed), accepted (whether the count is final)}.
 */
let saved = null;
let game = null;
let bots = [];
/** The server's limits, as `GET /api/bots` lists them. */
let limits = {};
let thinking = false;
let request = null; // the bot request in flight: {controller}

const view = new BoardView($("board"), { onPlay: clickPoint, onCursor: describeCursor });

/**
 * Review: how many of the game's moves the board shows, or null for the game
 * as it stands; `shown` is the game at that move.
 */
let viewAt = null;
let shown = null;

/** What the board shows of the bot's analysis, kept apart from the game. */
let prefs = { candidates: false, ownership: false, hint: false };

function save() {
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(saved));
  } catch {
    // Private windows may refuse storage; the game still plays.
  }
}

function loadPrefs() {
  try {
    const data = JSON.parse(localStorage.getItem(PREFS_KEY) || "null");
    if (data) prefs = { candidates: Boolean(data.candidates), ownership: Boolean(data.ownership), hint: Boolean(data.hint) };
  } catch {
    // Defaults, as for a first visit.
  }
}

function savePrefs() {
  try {
    localStorage.setItem(PREFS_KEY, JSON.stringify(prefs));
  } catch {
    // Not kept; the page still shows them.
  }
}

/**
 * The player's rank and results against each rank (`ranks.js`), kept in
 * the browser across games.
 */
let rankResults = parseResults(null);

function loadRankResults() {
  try {
    rankResults = parseResults(localStorage.getItem(RANKS_KEY));
  } catch {
    // Storage refused: nothing remembered, as for a first visit.
  }
}

function saveRankResults() {
  try {
    localStorage.setItem(RANKS_KEY, JSON.stringify(rankResults));
  } catch {
    // Not kept; the game still plays.
  }
}

function load() {
  try {
    const data = JSON.parse(localStorage.getItem(STORAGE_KEY) || "null");
    if (!data || !data.settings || !Array.isArray(data.moves)) return null;
    return data;
  } catch {
    return null;
  }
}

function rulesOf(settings) {
  return PRESETS[settings.rules] || PRESETS.chinese;
}

function humanColor() {
  return saved.settings.human === "white" ? WHITE : BLACK;
}

function botColor() {
  return opponent(humanColor());
}

function botName() {
  return `tengen ${saved.settings.bot}`;
}

/** The request body every endpoint takes. */
function gameBody(moves = saved.moves) {
  const s = saved.settings;
  const body = { board_size: s.size, moves, rules: s.rules, komi: s.komi };
  if (s.setup) body.setup = s.setup;
  else if (s.handicap >= 2) body.handicap = s.handicap;
  return body;
}

async function postJson(path, body, signal) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const why = data && data.error ? data.error : `HTTP ${response.status}`;
    const error = new Error(why);
    error.status = response.status;
    throw error;
  }
  return data;
}

function say(text) {
  $("message").textContent = text;
}

// ---- Playing ----------------------------------------------------------

/** The game after the first `n` moves of the list (all of them by default). */
function replayTo(n = saved.moves.length) {
  const s = saved.settings;
  return Game.replay(s.size, rulesOf(s), s.setup ? 0 : s.handicap, saved.moves.slice(0, n), s.setup || null);
}

function rebuild() {
  game = replayTo();
  if (viewAt !== null && viewAt >= saved.moves.length) viewAt = null;
  shown = viewAt === null ? null : replayTo(viewAt);
}

/** Whether the board shows an earlier position than the game's. */
function reviewing() {
  return viewAt !== null;
}

/** The game as the board shows it. */
function shownGame() {
  return reviewing() ? shown : game;
}

/** Shows the position after `n` moves (the game as it stands for its length or more). */
function goTo(n) {
  if (!saved || !game) return;
  const last = saved.moves.length;
  const target = Math.max(0, Math.min(last, n));
  viewAt = target >= last ? null : target;
  shown = viewAt === null ? null : replayTo(viewAt);
  pinnedLine = null;
  // What was said was about another position.
  say("");
  render();
}

/** How many moves the board shows. */
function shownMoves() {
  return reviewing() ? viewAt : saved.moves.length;
}

/**
 * Continues the game from the position shown: the later moves are dropped,
 * and the player takes the colour to move there (the bot the other).
 */
function playFromHere() {
  if (!reviewing()) return;
  if (request) {
    request.controller.abort();
    request = null;
    thinking = false;
  }
  const n = viewAt;
  const color = shown.toMove;
  saved.settings.human = color === WHITE ? "white" : "black";
  saved.settings.humanChoice = saved.settings.human;
  keepMoves(n);
  say(`Playing on from move ${n} as ${colorName(color)}.`);
  afterMove();
}

/**
 * Whether the game is being counted: both players passed and the count is
 * not yet accepted, so clicks on the board mark groups dead or alive.
 */
function scoring() {
  return Boolean(game && game.isOver() && !game.resigned && !saved.accepted);
}

function clickPoint(p) {
  if (!game) return;
  // In review, a tap on one of the engine's moves shows its line (a second
  // tap, or a tap elsewhere, takes it away).
  const marks = reviewMarks();
  if (marks) {
    const mark = marks.candidates.find((c) => c.point === p);
    if (mark || pinnedLine) {
      pinnedLine = mark && (!pinnedLine || pinnedLine.point !== p) ? mark : null;
      render();
      if (pinnedLine) say(`The engine's line from ${vertex(game.size, p)}: ${pinnedLine.moves.join(" ")}.`);
      return;
    }
  }
  if (reviewing()) {
    say(`This is move ${viewAt} of ${saved.moves.length}. Press "Play from here" to play on from it, or » to go back to the game.`);
    return;
  }
  if (scoring()) {
    toggleDead(p);
    return;
  }
  if (game.isOver()) {
    say("The game is over. Start a new game or undo.");
    return;
  }
  if (thinking) {
    say("Wait for the bot's move.");
    return;
  }
  if (game.toMove !== humanColor()) {
    say("It is the bot's turn.");
    return;
  }
  const reason = game.check(p);
  if (reason) {
    // Never sent: the server would refuse it anyway, and this says why now.
    say(`Illegal move at ${vertex(game.size, p)}: ${REASONS[reason]}.`);
    return;
  }
  say("");
  playHuman(p);
}

function playHuman(mv) {
  game.play(mv);
  saved.moves = game.moves.slice();
  save();
  afterMove();
}

function afterMove() {
  render();
  if (game.isOver()) {
    if (game.resigned) noteResult();
    finish();
    // The last move's lesson, and with it the game's mistakes.
    if (lessonDue()) teach();
  } else if (game.toMove === botColor()) {
    if (lessonDue()) teach();
    else askBot();
  }
}

/**
 * What of the bot's report is kept with the game (in localStorage, for
 * every move): the analysis with ownership to two decimals and short lines.
 */
function keptDiagnostics(diagnostics) {
  if (!diagnostics) return null;
  const analysis = diagnostics.analysis;
  return {
    bot: diagnostics.bot,
    think_ms: diagnostics.think_ms,
    analysis: analysis && {
      playouts: analysis.playouts,
      winrate: analysis.winrate,
      candidates: (analysis.candidates || []).map((c) => ({
        move: c.move,
        visits: c.visits,
        winrate: c.winrate,
        pv: (c.pv || []).slice(0, 8),
      })),
      ownership: (analysis.ownership || []).map((x) => Math.round(x * 100) / 100),
    },
  };
}

async function askBot() {
  if (request) request.controller.abort();
  const controller = new AbortController();
  const mine = { controller };
  request = mine;
  thinking = true;
  render();
  const s = saved.settings;
  const body = gameBody();
  if (s.budget) body.budget = s.budget;
  try {
    const data = await postJson(`/select-move/${encodeURIComponent(s.bot)}`, body, controller.signal);
    if (request !== mine) return;
    request = null;
    thinking = false;
    const mv = data.bot_move;
    const reason = mv === "resign" ? null : game.check(mv);
    if (reason) throw new Error(`the bot's move ${mv} looks illegal here (${REASONS[reason]})`);
    const before = game.moves.length;
    game.play(mv);
    saved.moves = game.moves.slice();
    saved.analyses = saved.analyses || {};
    saved.analyses[before] = { move: mv, color: colorName(botColor()), data: keptDiagnostics(data.diagnostics) };
    save();
    if (mv === "pass") say("The bot passes.");
    else if (mv === "resign") say("The bot resigns.");
    afterMove();
    // Analyses waited while the bot thought.
    pump();
  } catch (error) {
    if (request !== mine) return;
    request = null;
    thinking = false;
    if (error.name === "AbortError") return;
    say(`The bot could not answer: ${error.message}`);
    render();
    pump();
  }
}

// ---- Teaching ---------------------------------------------------------

/** What the teacher said of the person's last move, shown under the status. */
let lessonText = "";

/**
 * Whether the teacher has a move to check: teaching is on, the game's
 * moves can be analysed, and the last move is the person's (not a
 * resignation) and has no lesson yet.
 */
function lessonDue() {
  const s = saved.settings;
  if (!s.teaching || !canAnalyse() || reviewing()) return false;
  const t = saved.moves.length - 1;
  if (t < 0 || saved.moves[t] === "resign" || game.colorAt(t) !== humanColor()) return false;
  return !(saved.lessons && String(t) in saved.lessons);
}

/**
 * Analyses the position after `t` moves for the review's cache, unless it
 * holds it: the analysis bot at the review's visits, waiting while the
 * server is busy.
 */
async function analysePosition(t, signal) {
  const key = positionKey(t);
  if (analysed(key)) return;
  for (;;) {
    try {
      reviewCache.set(key, await requestAnalysis(analysisBot(), saved.moves.slice(0, t), wantedVisits(), signal));
      return;
    } catch (error) {
      if (error.status !== 503) throw error;
      await new Promise((done) => setTimeout(done, 700));
    }
  }
}

/**
 * Checks the person's last move before the bot answers: the positions
 * before and after it analysed, what it lost by the review's rule (`POST
 * /api/review`), and, when it lost more than the game's take-back limit,
 * the move taken back. The analyses stay in the review's cache, so a
 * taught game is reviewed as it goes.
 */
async function teach() {
  const t = saved.moves.length - 1;
  const mv = saved.moves[t];
  if (request) request.controller.abort();
  const mine = { controller: new AbortController(), teaching: true };
  request = mine;
  thinking = true;
  render();
  let lesson;
  try {
    await analysePosition(t, mine.controller.signal);
    await analysePosition(t + 1, mine.controller.signal);
    const analyses = allAnalyses().slice(0, t + 2).map(wireAnalysis);
    const answer = await postJson("/api/review", { ...gameBody(), analyses }, mine.controller.signal);
    const loss = answer.moves[t] && typeof answer.moves[t].loss === "number" ? answer.moves[t].loss : null;
    lesson = { move: mv, loss, unit: answer.unit };
  } catch (error) {
    if (request !== mine || error.name === "AbortError") return;
    lesson = { move: mv, loss: null, unit: "points", error: error.message };
  }
  if (request !== mine) return;
  request = null;
  thinking = false;
  const number = t + 1;
  const unit = lesson.unit === "points" ? "points" : "percentage points of win rate";
  const limit = saved.settings.teaching.takeback;
  if (lesson.loss !== null && typeof limit === "number" && lesson.loss > limit) {
    keepMoves(t);
    lessonText = `Move ${number}, ${mv}, lost ${lesson.loss.toFixed(1)} ${unit}, more than ${limit}: taken back. Try another move.`;
    render();
    return;
  }
  saved.lessons = saved.lessons || {};
  saved.lessons[t] = lesson;
  save();
  if (lesson.error) lessonText = `Move ${number}, ${mv}, could not be checked: ${lesson.error}`;
  else if (lesson.loss === null) lessonText = `Move ${number}, ${mv}: not rated.`;
  else if (lesson.loss < 0.05) lessonText = `Move ${number}, ${mv}: lost nothing.`;
  else lessonText = `Move ${number}, ${mv}, lost ${lesson.loss.toFixed(1)} ${unit}.`;
  render();
  if (!game.isOver() && game.toMove === botColor()) askBot();
}

/** The person's three biggest mistakes once a taught game is over (the review's), or null. */
function renderLessons() {
  const box = $("lessons");
  const s = saved.settings;
  const review = currentSummary();
  const over = game.isOver() && !reviewing();
  box.hidden = !(s.teaching && over && review);
  if (box.hidden) return;
  const mine = review.mistakes[colorName(humanColor()).toLowerCase()].slice(0, 3);
  fillMistakes($("lessons-list"), mine, review.unit);
}

/** Fills `list` with `mistakes` (the review's), each a button to its position, or "None found.". */
function fillMistakes(list, mistakes, unit) {
  list.replaceChildren();
  for (const m of mistakes) {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.move = String(m.move);
    button.textContent = `${m.move}. ${m.text}  ${formatLoss(m.loss, unit)}`;
    button.title = `Show the position where move ${m.move} was played, with the engine's moves`;
    item.append(button);
    list.append(item);
  }
  if (!mistakes.length) {
    const none = document.createElement("li");
    none.className = "muted";
    none.textContent = "None found.";
    list.append(none);
  }
}

// ---- Results against ranks --------------------------------------------

/** The ranks the game's bot offers (weakest first), or none. */
function ranksOfBot(spec) {
  const bot = botInfo(spec);
  return ranksOf(bot && bot.options.find((o) => o.name === "rank"));
}

/**
 * Keeps the result of a finished game against a rank (once per game): a
 * resignation, or a count accepted.
 */
function noteResult() {
  const s = saved.settings;
  if (!s.rank || saved.recorded) return;
  let winner;
  if (game.resigned) winner = opponent(game.resigned);
  else if (saved.score && saved.accepted) winner = saved.score.winner === "black" ? BLACK : saved.score.winner === "white" ? WHITE : 0;
  else return;
  const outcome = winner === 0 ? "draw" : winner === humanColor() ? "win" : "loss";
  rankResults = withResult(rankResults, s.rank, outcome);
  saveRankResults();
  saved.recorded = true;
  save();
}

/** The results against the game's rank and the next rank offered, in words, once recorded. */
function resultsText() {
  const s = saved.settings;
  if (!s.rank || !saved.recorded) return "";
  const tally = rankResults.ranks[s.rank];
  const offer = nextRank(rankResults, ranksOfBot(s.bot));
  const record = tally ? `Your games against ${s.rank}: ${describeTally(tally)}.` : "";
  return [record, offer ? `${offer.text} New game offers it.` : ""].filter(Boolean).join(" ");
}

/** Counts so far asked for; an answer is shown only if no later one was asked. */
let counts = 0;

/**
 * Asks the server for the count of the finished game: with the stones of
 * `saved.dead` counted as dead, or, the first time, with the server's own
 * estimate of them, which becomes the proposal the player corrects.
 */
async function finish() {
  const mine = ++counts;
  render();
  const body = gameBody();
  if (Array.isArray(saved.dead)) body.dead = saved.dead;
  try {
    const score = await postJson("/api/score", body);
    if (mine !== counts) return;
    saved.score = score;
    if (!Array.isArray(saved.dead)) saved.dead = score.dead.slice();
    save();
    render();
  } catch (error) {
    if (mine !== counts) return;
    say(`Counting failed: ${error.message}`);
  }
}

/** Marks the group at `p` dead, or alive again if it was, and counts anew. */
function toggleDead(p) {
  if (game.board[p] === 0) {
    say("Click a stone to mark its group dead or alive.");
    return;
  }
  const stones = game.chain(game.board, p).stones.map((q) => vertex(game.size, q));
  const dead = new Set(saved.dead || []);
  const wasDead = stones.every((v) => dead.has(v));
  for (const v of stones) {
    if (wasDead) dead.delete(v);
    else dead.add(v);
  }
  saved.dead = [...dead];
  saved.score = null;
  save();
  const what = stones.length === 1 ? `the stone at ${stones[0]}` : `the group at ${vertex(game.size, p)}`;
  say(`Marked ${what} ${wasDead ? "alive" : "dead"}.`);
  finish();
}

/** Makes the count final: the result stands, and goes into the record. */
function acceptCount() {
  if (!scoring() || !saved.score) return;
  saved.accepted = true;
  save();
  say("Count accepted.");
  noteResult();
  render();
}

function pass() {
  if (!game || reviewing() || game.isOver() || thinking || game.toMove !== humanColor()) return;
  say("You pass.");
  playHuman("pass");
}

/** How long the resign button waits for its confirming second press, in ms. */
const RESIGN_CONFIRM_MS = 3000;
let resignTimer = null;

function disarmResign() {
  clearTimeout(resignTimer);
  resignTimer = null;
  $("resign").textContent = "Resign";
  $("resign").classList.remove("confirm");
}

/**
 * The first press asks "Really resign?" on the button itself for a few
 * seconds; a second press in that time resigns. A dialog of the browser's
 * own would block the page and could not be styled.
 */
function resign() {
  if (!game || reviewing() || game.isOver() || thinking) return;
  // Resigning is the human's act whoever is to move; the record needs it on
  // the human's turn, so wait for the bot otherwise.
  if (game.toMove !== humanColor()) return;
  if (!resignTimer) {
    $("resign").textContent = "Really resign?";
    $("resign").classList.add("confirm");
    resignTimer = setTimeout(disarmResign, RESIGN_CONFIRM_MS);
    return;
  }
  disarmResign();
  playHuman("resign");
  say("You resign.");
}

/**
 * Keeps the first `n` moves of the game and drops the rest with everything
 * that described them (the count, its dead stones and acceptance, the bot's
 * analyses), leaves review, and shows the game from there.
 */
function keepMoves(n) {
  cancelReview();
  saved.moves = saved.moves.slice(0, n);
  saved.score = null;
  saved.dead = null;
  saved.accepted = false;
  for (const key of Object.keys(saved.analyses || {})) {
    if (Number(key) >= n) delete saved.analyses[key];
  }
  for (const key of Object.keys(saved.lessons || {})) {
    if (Number(key) >= n) delete saved.lessons[key];
  }
  viewAt = null;
  save();
  rebuild();
}

function undo() {
  if (!game) return;
  if (request) {
    request.controller.abort();
    request = null;
    thinking = false;
  }
  // Take back to just before the human's last move: the bot's reply (if
  // any) and the human's move.
  const moves = saved.moves.slice();
  const human = humanColor();
  let i = moves.length - 1;
  while (i >= 0 && game.colorAt(i) !== human) i--;
  if (i < 0) {
    say("Nothing of yours to take back.");
    return;
  }
  keepMoves(i);
  say("Taken back.");
  render();
  if (game.toMove === botColor() && !game.isOver()) askBot();
}

async function downloadSgf() {
  if (!saved) return;
  try {
    const body = gameBody();
    // The record's result is the count as shown: with the stones marked dead.
    if (game && game.isOver() && Array.isArray(saved.dead)) body.dead = saved.dead;
    const names = { [humanColor()]: "You", [botColor()]: botName() };
    body.players = { black: names[BLACK], white: names[WHITE] };
    const response = await fetch("/api/sgf", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      const data = await response.json().catch(() => ({}));
      throw new Error(data.error || `HTTP ${response.status}`);
    }
    const blob = new Blob([await response.text()], { type: "application/x-go-sgf" });
    const url = URL.createObjectURL(blob);
    const link = document.createElement("a");
    const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, "-");
    link.href = url;
    link.download = `tengen-${saved.settings.size}x${saved.settings.size}-${stamp}.sgf`;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (error) {
    say(`Download failed: ${error.message}`);
  }
}

// ---- Showing ----------------------------------------------------------

/** The line under the board: what is at the point under the pointer or the keyboard cursor. */
function describeCursor(p) {
  const board = shownGame();
  if (!board || p < 0 || p >= board.size * board.size) {
    $("cursor-info").textContent = "";
    return;
  }
  const c = board.board[p];
  let what = c === BLACK ? "black stone" : c === WHITE ? "white stone" : "empty";
  const candidate = (boardAnalysis() || []).find((x) => x.point === p);
  if (candidate) what += `; the bot's candidate: ${candidate.visits} visits, win rate ${percent(candidate.winrate)}`;
  $("cursor-info").textContent = `${vertex(board.size, p)}: ${what}`;
}

/**
 * The bot's report for the position shown: the one it made there (it was
 * to move), or the one that led to the move just shown; null if none.
 */
function analysisShown() {
  const all = saved.analyses || {};
  const n = shownMoves();
  return all[n] || all[n - 1] || null;
}

/** The bot's candidates for the board, as {point, visits, winrate, best}, when shown. */
function boardAnalysis() {
  const info = analysisShown();
  const analysis = info && info.data && info.data.analysis;
  if (!prefs.candidates || !analysis || !game) return null;
  return (analysis.candidates || [])
    .filter((c) => c.visits > 0)
    .slice(0, 8)
    .map((c, i) => ({ point: parseVertex(game.size, c.move), visits: c.visits, winrate: c.winrate, best: i === 0 }))
    .filter((c) => c.point !== null && c.point >= 0);
}

/** Black's expected ownership per point (rows from the top), when shown and reported. */
function boardHeat() {
  const info = analysisShown();
  const analysis = info && info.data && info.data.analysis;
  if (!prefs.ownership || !analysis || !game) return null;
  const heat = analysis.ownership || [];
  return heat.length === game.size * game.size ? heat : null;
}

function render() {
  if (!game) return;
  const review = reviewing();
  const over = game.isOver() && !review;
  const humanTurn = !review && !over && !thinking && game.toMove === humanColor();
  const score = over ? saved.score : null;
  const counting = !review && scoring();
  const board = shownGame();
  // The stones marked dead show at once; the count follows from the server.
  const deadList = Array.isArray(saved.dead) ? saved.dead : score ? score.dead : [];
  const dead = new Set(over ? deadList.map((v) => parseVertex(game.size, v)).filter((p) => p >= 0) : []);
  view.render({
    game: board,
    ghost: humanTurn ? humanColor() : 0,
    ownership: score && !game.resigned ? score.ownership : null,
    dead,
    candidates: over ? null : boardAnalysis(),
    heat: over ? null : boardHeat(),
    ...reviewBoard(),
  });

  const toMove = colorName(board.toMove);
  const who = board.toMove === humanColor() ? "you" : botName();
  if (review) {
    const last = viewAt > 0 ? `, after ${colorName(board.colorAt(viewAt - 1))} ${saved.moves[viewAt - 1]}` : "";
    $("turn").textContent = `Move ${viewAt} of ${saved.moves.length}${last}: ${toMove} to move.`;
  } else {
    $("turn").textContent = counting
      ? "Game over: both passed. Counting."
      : over ? "Game over." : `${toMove} to move (${who}).`;
  }
  $("thinking").hidden = !thinking;
  $("thinking-text").textContent = request && request.teaching ? "Checking your move…" : "The bot is thinking…";
  $("lesson").hidden = !lessonText;
  $("lesson").textContent = lessonText;
  $("captures-black").textContent = String(board.captures[BLACK]);
  $("captures-white").textContent = String(board.captures[WHITE]);
  const s = saved.settings;
  $("players").textContent =
    `You: ${colorName(humanColor())} · Bot: ${botLabel(s.bot)} · ${s.size}×${s.size}, ${s.rules}, komi ${s.komi}` +
    (s.setup ? ", set-up stones" : s.handicap >= 2 ? `, handicap ${s.handicap}` : "");

  const result = $("result");
  if (over) {
    result.hidden = false;
    result.replaceChildren();
    if (game.resigned) {
      const winner = opponent(game.resigned);
      result.append(`${winner === BLACK ? "B" : "W"}+R — ${winner === humanColor() ? "you win" : "the bot wins"} by resignation`);
    } else if (score) {
      const winner = score.winner === "black" ? BLACK : score.winner === "white" ? WHITE : 0;
      const verdict = winner === 0 ? "a draw" : winner === humanColor() ? "you win" : "the bot wins";
      result.append(`${score.result} — ${verdict}${counting ? " if this count is accepted" : ""}`);
      const small = document.createElement("small");
      small.textContent =
        `Black ${score.black}, White ${score.white} (komi ${score.komi}, ${score.scoring} scoring)` +
        (score.dead.length ? `; dead stones: ${score.dead.join(" ")}` : "");
      result.append(small);
      if (counting) {
        const help = document.createElement("small");
        help.className = "scoring-help";
        help.textContent = "The faded stones are counted as dead. Click a group to mark it dead or alive, then accept the count.";
        result.append(help);
      }
    } else {
      result.append("Counting…");
    }
  } else {
    result.hidden = true;
  }
  const results = over ? resultsText() : "";
  if (results) {
    const small = document.createElement("small");
    small.className = "rank-results";
    small.textContent = results;
    result.append(small);
  }

  $("pass").disabled = !humanTurn;
  $("resign").disabled = !humanTurn;
  if (!humanTurn) disarmResign();
  $("accept").hidden = !counting;
  $("accept").disabled = !score;
  $("undo").disabled = !saved.moves.length;
  const botTurn = !review && !game.isOver() && !thinking && game.toMove === botColor();
  $("retry").hidden = !botTurn;

  const n = shownMoves();
  const total = saved.moves.length;
  $("nav-where").textContent = `Move ${n} of ${total}`;
  $("nav-first").disabled = n === 0;
  $("nav-prev").disabled = n === 0;
  $("nav-next").disabled = n >= total;
  $("nav-last").disabled = n >= total;
  $("play-here").hidden = !review;
  if (review) $("play-here").textContent = `Play from here as ${toMove}`;
  $("show-candidates").checked = prefs.candidates;
  $("show-ownership").checked = prefs.ownership;

  renderMoves();
  renderAnalysis();
  renderReview();
  renderLessons();
}

function renderMoves() {
  const list = $("move-list");
  list.replaceChildren();
  const n = shownMoves();
  saved.moves.forEach((mv, i) => {
    const item = document.createElement("li");
    item.textContent = `${game.colorAt(i) === BLACK ? "B" : "W"} ${mv}`;
    item.dataset.move = String(i + 1);
    item.title = `Show the position after move ${i + 1}`;
    // The move last played on the board as shown.
    if (i === n - 1) item.className = "last";
    list.appendChild(item);
  });
  const current = list.querySelector(".last");
  if (!reviewing()) list.scrollTop = list.scrollHeight;
  else if (current) current.scrollIntoView({ block: "nearest" });
}

function percent(x) {
  return `${(100 * x).toFixed(1)}%`;
}

function renderAnalysis() {
  const box = $("analysis-body");
  box.replaceChildren();
  const info = analysisShown();
  const p = document.createElement("p");
  p.className = "muted";
  if (!info) {
    p.textContent = "The bot's win rate and candidates appear here after its move, when it reports them.";
    box.append(p);
    return;
  }
  const analysis = info.data && info.data.analysis;
  if (!analysis) {
    p.textContent = `The bot played ${info.move} (${info.data ? info.data.think_ms.toFixed(2) : "?"} ms); it reports no analysis.`;
    box.append(p);
    return;
  }
  const line = document.createElement("div");
  line.className = "winrate";
  line.setAttribute("role", "img");
  line.setAttribute("aria-label", `The bot's win rate: ${percent(analysis.winrate)}`);
  const label = document.createElement("span");
  label.textContent = `Win rate ${percent(analysis.winrate)}`;
  const bar = document.createElement("span");
  bar.className = "bar";
  const fill = document.createElement("span");
  fill.style.width = percent(Math.max(0, Math.min(1, analysis.winrate)));
  bar.append(fill);
  line.append(label, bar);
  box.append(line);
  const summary = document.createElement("p");
  summary.className = "muted";
  const unit = (info.data.bot || "").startsWith("katago") ? "visits" : "playouts";
  summary.textContent = `${info.color} ${info.move} after ${analysis.playouts} ${unit}.`;
  box.append(summary);
  if (analysis.candidates && analysis.candidates.length) {
    const table = document.createElement("table");
    const head = table.createTHead().insertRow();
    for (const h of ["Move", "Visits", "Win rate", "Line"]) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = h;
      head.append(th);
    }
    const body = table.createTBody();
    for (const c of analysis.candidates.slice(0, 5)) {
      const row = body.insertRow();
      row.insertCell().textContent = c.move;
      row.insertCell().textContent = String(c.visits);
      row.insertCell().textContent = percent(c.winrate);
      row.insertCell().textContent = (c.pv || []).slice(0, 6).join(" ");
    }
    box.append(table);
  }
}

// ---- Review -----------------------------------------------------------

/**
 * The analyses of positions asked for from `POST /api/analyse/{bot}`, by
 * position key (the game's settings, the bot and the moves before it), so
 * that stepping through an analysed game never waits and no position is
 * analysed twice.
 */
const reviewCache = new Map();
/** By bot spec: the server's refusal to analyse with it, once met. */
const refused = {};
/** "Analyse the game" at work: {queue (jobs), total, done}, or null. */
let reviewJob = null;
/** The analysis request in flight: {controller, job}, or null. */
let analysing = null;
let pumping = false;
let visitsTouched = false;
/** Positions whose analysis failed, not asked for again by the hint. */
const failed = new Set();
/** The game (settings and bot) the visits field was last filled for. */
let visitsFor = "";
/** The candidate whose line a tap fixed on the board, or null. */
let pinnedLine = null;
/** Whose view the graph shows. */
let graphColor = BLACK;
/**
 * The server's review of the analyses held (`POST /api/review`: the unit,
 * what each move and each candidate lost, the mistakes), with the game
 * (`game`) and the analyses (`key`) it is of; null before the first.
 */
let summary = null;
/** The analyses whose review is asked for and not answered yet, or "". */
let summaryAsked = "";
/** The analyses whose review the server refused (not asked for again). */
let summaryRefused = "";

function settingsKey() {
  const s = saved.settings;
  return JSON.stringify([s.size, s.rules, s.komi, s.setup || s.handicap || 0, s.bot]);
}

function positionKey(t, moves = saved.moves) {
  return `${settingsKey()}|${moves.slice(0, t).join(" ")}`;
}

/** A small number of visits that keeps a review of a game short on a CPU. */
function defaultVisits() {
  const s = saved.settings;
  if (s.bot.split(":")[0] === "katago") return s.size <= 9 ? 16 : s.size <= 13 ? 8 : 4;
  return s.size <= 9 ? 400 : 200;
}

function wantedVisits() {
  const n = Math.round(Number($("review-visits").value));
  return Number.isFinite(n) && n >= 1 ? Math.min(n, limits.max_playouts || n) : defaultVisits();
}

/** Whether the position under `key` is analysed with at least the visits asked for. */
function analysed(key) {
  const a = reviewCache.get(key);
  return Boolean(a) && (a.target === null || a.target >= wantedVisits());
}

/** The analysis of the position after `t` moves of the game, or null. */
function analysisAt(t) {
  return reviewCache.get(positionKey(t)) || null;
}

/** The last position of the game there is to analyse (none after a resignation). */
function lastPosition() {
  const n = saved.moves.length;
  return n && saved.moves[n - 1] === "resign" ? n - 1 : n;
}

/** Every position's analysis, from 0 to the last move (null where none). */
function allAnalyses() {
  const list = [];
  for (let t = 0; t <= saved.moves.length; t++) list.push(analysisAt(t));
  return list;
}

/** An analysis as `POST /api/review` takes it (the page's own numbers). */
function wireAnalysis(a) {
  if (!a) return null;
  return {
    perspective: a.perspective === WHITE ? "white" : "black",
    winrate: a.winrate,
    scoreLead: a.scoreLead,
    candidates: a.candidates.slice(0, CANDIDATES_MARKED).map((c) => ({ winrate: c.winrate, scoreLead: c.scoreLead })),
  };
}

/** The candidates of a position marked on the board. */
const CANDIDATES_MARKED = 5;

/** The analyses a review is of (none after a resignation) and their key. */
function reviewedAnalyses() {
  const analyses = allAnalyses().slice(0, lastPosition() + 1);
  const key = JSON.stringify(analyses.map((a) => (a ? [a.winrate, a.scoreLead, a.candidates.length] : 0)));
  return { analyses, key, game: positionKey(saved.moves.length) };
}

/**
 * The review of the game as it stands: the server's answer for the
 * analyses held, or its last one for this game while a newer is on its
 * way (a position analysed since shows no losses yet); null if none.
 */
function currentSummary() {
  if (!saved || !summary || summary.game !== positionKey(saved.moves.length)) return null;
  return summary;
}

/** Asks the server for the review of the analyses held, unless it has it or is asked. */
async function refreshSummary() {
  if (!saved) return;
  const { analyses, key, game: of } = reviewedAnalyses();
  if (!analyses.some(Boolean)) return;
  const done = summary && summary.game === of && summary.key === key;
  if (done || summaryAsked === `${of}#${key}` || summaryRefused === `${of}#${key}`) return;
  const asked = `${of}#${key}`;
  summaryAsked = asked;
  try {
    const answer = await postJson("/api/review", { ...gameBody(), analyses: analyses.map(wireAnalysis) });
    if (summaryAsked === asked) summary = { ...answer, game: of, key };
  } catch (error) {
    summaryRefused = asked;
    say(`The review failed: ${error.message}`);
  } finally {
    if (summaryAsked === asked) summaryAsked = "";
    render();
  }
}

/**
 * The bot that analyses the game's positions: the game's own, or the same
 * bot at full strength for one that plays at a rank (which reports no
 * analysis).
 */
function analysisBot() {
  const s = saved.settings;
  return s.rank ? s.bot.split(":")[0] : s.bot;
}

/** Whether the game's positions can be analysed. */
function canAnalyse() {
  return botAnalyses() && !refused[analysisBot()];
}

/** Whether the hint is wanted now: on, and the person to move in the game as it stands. */

function hintWanted() {
  return Boolean(prefs.hint && game && !reviewing() && !game.isOver() && !thinking &&
    game.toMove === humanColor() && canAnalyse());
}

/** Whether the game's bot analyses positions, as the bot listing says. */
function botAnalyses() {
  const bot = botInfo(analysisBot());
  return Boolean(bot && bot.analyses);
}

/** Starts "Analyse the game": every position not yet analysed, in order. */
function analyseGame() {
  if (!saved || !game || !canAnalyse()) return;
  const moves = saved.moves.slice();
  const last = lastPosition();
  const queue = [];
  for (let t = 0; t <= last; t++) {
    const key = positionKey(t, moves);
    if (!analysed(key)) queue.push({ t, key, moves: moves.slice(0, t), total: moves.length });
  }
  if (!queue.length) {
    say("Every position is analysed already.");
    render();
    return;
  }
  reviewJob = { queue, total: last + 1, done: last + 1 - queue.length };
  say("");
  render();
  pump();
}

/** Stops "Analyse the game"; what is analysed stays. */
function cancelReview() {
  reviewJob = null;
  if (analysing) analysing.controller.abort();
  analysing = null;
}

/** The next position to analyse: the hint's first, then the review's. */
function nextJob() {
  const visits = wantedVisits();
  const bot = analysisBot();
  if (hintWanted()) {
    const t = saved.moves.length;
    const key = positionKey(t);
    if (!analysed(key) && !failed.has(key)) return { t, key, moves: saved.moves.slice(), total: t, visits, bot, hint: true };
  }
  while (reviewJob && reviewJob.queue.length) {
    const job = reviewJob.queue[0];
    if (!analysed(job.key)) return { ...job, visits, bot };
    reviewJob.queue.shift();
    reviewJob.done++;
  }
  if (reviewJob) {
    reviewJob = null;
    say("The game is analysed.");
    render();
  }
  return null;
}

/**
 * Analyses positions one at a time while there are some to analyse and no
 * bot move is awaited: the review never keeps the bot from playing.
 */
async function pump() {
  if (pumping || !saved) return;
  pumping = true;
  try {
    for (;;) {
      if (thinking) return;
      const job = nextJob();
      if (!job || !(await analyse(job))) return;
    }
  } finally {
    pumping = false;
  }
}

/** Analyses one position; false when the review is to stop. */
/** Asks `bot` for the analysis of the position after `moves`, at `visits`, as the page keeps it. */
async function requestAnalysis(bot, moves, visits, signal) {
  const body = gameBody(moves);
  body.budget = { playouts: visits };
  return keptAnalysis(await postJson(`/api/analyse/${encodeURIComponent(bot)}`, body, signal));
}

async function analyse(job) {
  const controller = new AbortController();
  analysing = { controller, job };
  render();
  try {
    reviewCache.set(job.key, await requestAnalysis(job.bot, job.moves, job.visits, controller.signal));
    if (reviewJob && reviewJob.queue[0] && reviewJob.queue[0].key === job.key) {
      reviewJob.queue.shift();
      reviewJob.done++;
    }
    return true;
  } catch (error) {
    if (error.name === "AbortError") return false;
    if (error.status === 503) {
      // Busy: the bot slots serve games first. Try again shortly.
      await new Promise((done) => setTimeout(done, 700));
      return Boolean(reviewJob) || job.hint;
    }
    if (error.status === 422) refused[job.bot] = error.message;
    failed.add(job.key);
    reviewJob = null;
    say(`The analysis failed: ${error.message}`);
    return false;
  } finally {
    if (analysing && analysing.controller === controller) analysing = null;
    render();
  }
}

/** The engine's marks for the board: review marks, hints and the line shown. */
function reviewBoard() {
  const marks = reviewMarks();
  const hints = marks ? null : hintMarks();
  return {
    review: marks,
    hints: hints ? hints.candidates : null,
    unit: (marks || hints || {}).unit || "points",
    line: pinnedLine,
  };
}

/**
 * An analysis's candidates as board marks, for the side to move `color`,
 * each with what it loses as the server's review says (`losses`, in the
 * candidates' order; null until it has answered).
 */
function markCandidates(analysis, losses, color, played) {
  const size = game.size;
  return analysis.candidates.slice(0, CANDIDATES_MARKED).map((c, i) => ({
    point: parseVertex(size, c.move),
    loss: losses && typeof losses[i] === "number" ? losses[i] : null,
    best: i === 0,
    played: c.move === played,
    moves: c.pv,
    pv: c.pv.map((v) => parseVertex(size, v)).filter((p) => p !== null),
    color,
  })).filter((c) => c.point !== null && c.point >= 0);
}

/**
 * In review (an earlier move shown, or the game over): the engine's
 * preferred moves of the position shown and the move played there, each
 * with what it lost; null where the position is not analysed.
 */
function reviewMarks() {
  if (!saved || !game || (!reviewing() && !game.isOver())) return null;
  const n = shownMoves();
  const analysis = analysisAt(n);
  if (!analysis) return null;
  const review = currentSummary();
  const board = shownGame();
  const next = saved.moves[n];
  const nextPoint = next ? parseVertex(game.size, next) : null;
  const played = review && review.moves[n] ? review.moves[n].loss : null;
  return {
    unit: review ? review.unit : "points",
    candidates: markCandidates(analysis, review ? review.candidates[n] : null, board.toMove, next),
    played: nextPoint !== null && nextPoint >= 0
      ? { point: nextPoint, loss: played, color: board.toMove }
      : null,
  };
}

/** The hint: the engine's top moves for the person to move, once analysed. */
function hintMarks() {
  if (!hintWanted()) return null;
  const n = saved.moves.length;
  const analysis = analysisAt(n);
  if (!analysis) return null;
  const review = currentSummary();
  return {
    unit: review ? review.unit : "points",
    candidates: markCandidates(analysis, review ? review.candidates[n] : null, game.toMove, null),
  };
}

function renderReview() {
  const s = saved.settings;
  if (visitsFor !== settingsKey()) {
    visitsFor = settingsKey();
    if (!visitsTouched) $("review-visits").value = String(defaultVisits());
  }
  const able = canAnalyse();
  const running = Boolean(reviewJob);
  $("analyse").disabled = !able || running;
  $("show-hint").disabled = !able;
  $("show-hint").checked = prefs.hint;
  const note = $("review-note");
  if (able) {
    note.textContent = hintWanted() && !analysisAt(saved.moves.length) ? "Hint: the engine is looking…" : "";
  } else {
    note.textContent = refused[analysisBot()] ||
      `${botLabel(s.bot)} cannot analyse the game: it reports no analysis. Start a game against a searching bot (mcts, KataGo network) to review it.`;
  }

  $("review-progress").hidden = !running;
  if (running) {
    const t = analysing && !analysing.job.hint ? analysing.job.t : reviewJob.queue.length ? reviewJob.queue[0].t : reviewJob.total - 1;
    const paused = thinking ? " (waiting for the bot's move)" : "";
    $("review-status").textContent = `Analysing move ${t} of ${saved.moves.length}${paused}`;
    $("review-bar").max = reviewJob.total;
    $("review-bar").value = reviewJob.done;
  }

  // The hint's position, once it is wanted, or the review's next.
  if (!pumping && !thinking && (reviewJob || hintWanted())) queueMicrotask(pump);

  // The losses of the analyses held, from the server, once they change.
  queueMicrotask(refreshSummary);
  const analyses = allAnalyses();
  const count = analyses.filter(Boolean).length;
  $("review-results").hidden = count < 2;
  if (count < 2) return;
  const review = currentSummary();
  const unit = review ? review.unit : "points";
  const scored = analyses.filter(Boolean).every((a) => a.scoreLead !== null);
  const n = shownMoves();
  const total = saved.moves.length;
  drawGraph($("graph"), { analyses, total, current: n, color: graphColor });
  $("graph-view").value = graphColor === WHITE ? "white" : "black";
  const graph = $("graph");
  graph.setAttribute("aria-valuemax", String(total));
  graph.setAttribute("aria-valuenow", String(n));
  graph.setAttribute("aria-valuetext", `Move ${n} of ${total}`);
  $("lead-legend").textContent = scored ? "Score lead" : "No score lead (this bot estimates none)";
  const here = analyses[n];
  const whose = colorName(graphColor);
  if (here) {
    const seen = seenBy(here, graphColor);
    const lead = seen.scoreLead === null ? "" : `, ${seen.scoreLead >= 0 ? "leads" : "trails"} by ${Math.abs(seen.scoreLead).toFixed(1)} points`;
    $("graph-where").textContent = `Move ${n}: ${whose} wins ${percent(seen.winrate)}${lead} (${here.visits} visits).`;
  } else {
    $("graph-where").textContent = `Move ${n}: not analysed.`;
  }

  const found = {
    [BLACK]: review ? review.mistakes.black : [],
    [WHITE]: review ? review.mistakes.white : [],
  };
  const box = $("mistakes");
  box.replaceChildren();
  // Whether the losses shown are of every analysis held (tests wait on it).
  box.dataset.current = String(Boolean(review) && review.key === reviewedAnalyses().key);
  const what = unit === "points" ? "points lost" : "win rate lost, percentage points";
  for (const color of [BLACK, WHITE]) {
    const column = document.createElement("div");
    const title = document.createElement("h3");
    title.textContent = `${colorName(color)}'s mistakes (${what})`;
    const list = document.createElement("ol");
    list.dataset.color = colorName(color).toLowerCase();
    fillMistakes(list, found[color], unit);
    column.append(title, list);
    const strength = review && review.strength ? review.strength[colorName(color).toLowerCase()] : null;
    if (strength) {
      const estimate = document.createElement("p");
      estimate.className = "muted strength-estimate";
      estimate.dataset.color = colorName(color).toLowerCase();
      estimate.textContent = `Plays about ${strength.rank}: ${strength.mean_loss.toFixed(1)} points lost a move over ${strength.moves} moves (one game says little).`;
      column.append(estimate);
    }
    box.append(column);
  }
}

// ---- New game ---------------------------------------------------------

function selectedSize() {
  const form = $("new-game-form");
  const choice = form.querySelector("input[name=size]:checked").value;
  const size = choice === "other" ? Number($("size-other").value) : Number(choice);
  return Number.isInteger(size) && size >= 5 && size <= 25 ? size : null;
}

function fillHandicap() {
  const size = selectedSize() || 9;
  const select = $("handicap");
  const current = Number(select.value || 0);
  select.replaceChildren();
  const options = [0];
  for (let n = 2; n <= maxHandicap(size); n++) options.push(n);
  for (const n of options) {
    const option = document.createElement("option");
    option.value = String(n);
    option.textContent = n === 0 ? "None" : `${n} stones`;
    select.append(option);
  }
  select.value = String(options.includes(current) ? current : 0);
}

let komiTouched = false;

/** The komi the server accepts (crates/web/src/request.rs): at most this far from 0. */
const KOMI_LIMIT = 1000;

/**
 * Sets the komi field's message when its value will not do, in words rather
 * than the browser's own (which may echo a number hundreds of digits long);
 * returns whether it will do.
 */
function checkKomi() {
  const input = $("komi");
  const komi = Number(input.value);
  let why = "";
  if (input.value.trim() === "" || !Number.isFinite(komi) || Math.abs(komi) > KOMI_LIMIT) {
    why = `Komi must be a number between -${KOMI_LIMIT} and ${KOMI_LIMIT}.`;
  } else if (!Number.isInteger(komi * 2)) {
    why = "Komi must be a whole or half number, such as 7 or 6.5.";
  }
  input.setCustomValidity(why);
  return !why;
}

function setKomi(value) {
  $("komi").value = String(value);
  checkKomi();
}

function defaultKomi() {
  const suggestion = currentSuggestion();
  if (suggestion && suggestion.handicap === Number($("handicap").value)) return suggestion.komi;
  if (Number($("handicap").value) >= 2) return 0.5;
  return rulesOf({ rules: $("rules").value }).komi;
}

/** What the bot menu calls a bot, where its name is not enough. */
const BOT_LABELS = { katago: "KataGo network" };

/** The name the bot menu gives a bot spec (the spec itself if the menu has none). */
function botLabel(spec) {
  const choice = botChoices.find((c) => c.value === spec);
  if (choice) return choice.text;
  const ranked = /^([\w-]+):rank=(\w+)$/.exec(spec);
  if (ranked) return `${BOT_LABELS[ranked[1]] || ranked[1]} at ${ranked[2]}`;
  return spec;
}

/**
 * The spec the menu plays a bot with, where its own defaults do not suit a
 * person: the random bot passes once the person has passed and the count
 * favours it, instead of filling the board while the person passes.
 */
const DEFAULT_SPECS = { random: "random:pass=opponent" };

/** How the bot menu names the choice of a bot that plays at a rank (`katago:rank`). */
const RANK_CHOICE = ":rank";

/** The bot menu's choice as it stands (undefined for none). */
function chosenBot() {
  return botChoices.find((c) => c.value === $("bot").value);
}

/** The chosen bot if it plays at a rank (its choice has `ranks`), else null. */
function rankChoice() {
  const choice = chosenBot();
  return choice && choice.ranks ? choice : null;
}

/** The spec that makes a bot's search follow the shipped 9×9 network. */
const NETWORK_OPTION = "network=builtin";

/**
 * Everything the bot menu can offer, whatever the size: {value (the spec),
 * text, sizes ({min, max} board sides, or null for any)}.
 */
let botChoices = [];

/** Whether a bot choice plays on `size`×`size`. */
function playsSize(choice, size) {
  return !choice.sizes || (size >= choice.sizes.min && size <= choice.sizes.max);
}

/** Fills the bot menu with the bots that play the chosen size, keeping the choice if it does. */
function fillBotMenu() {
  const size = selectedSize();
  const select = $("bot");
  const current = select.value;
  select.replaceChildren();
  for (const choice of botChoices) {
    // While the "other" size is being typed, offer every bot.
    if (size && !playsSize(choice, size)) continue;
    const option = document.createElement("option");
    option.value = choice.value;
    option.textContent = choice.text;
    select.append(option);
  }
  if ([...select.options].some((o) => o.value === current)) select.value = current;
  fillStrength();
}

/** The listing of the bot a spec such as `mcts:network=builtin` names. */
function botInfo(spec) {
  const name = spec.split(":")[0];
  return bots.find((b) => b.name === name);
}

/** Fills a menu of ranks, keeping its choice if offered, else taking `fallback`, else the first. */
function fillRanks(select, ranks, fallback, none) {
  const current = select.value;
  select.replaceChildren();
  if (none) {
    const option = document.createElement("option");
    option.value = "";
    option.textContent = none;
    select.append(option);
  }
  for (const rank of ranks) {
    const option = document.createElement("option");
    option.value = rank;
    option.textContent = rank;
    select.append(option);
  }
  const offered = (rank) => rank === "" ? Boolean(none) : ranks.includes(rank);
  select.value = offered(current) ? current : offered(fallback) ? fallback : select.options[0].value;
}

/**
 * The rank rows of the new-game dialog, for a bot that plays at a rank:
 * its rank, the player's own, the handicap and komi for the difference,
 * the results against the rank and the rank offered next.
 */
function fillRankRows() {
  const choice = rankChoice();
  $("rank-row").hidden = !choice;
  $("your-rank-row").hidden = !choice;
  if (!choice) {
    $("rank-suggestion").textContent = "";
    $("rank-record").hidden = true;
    return;
  }
  const offer = nextRank(rankResults, choice.ranks);
  const fallback = offer ? offer.rank : rankResults.you || "10k";
  fillRanks($("rank"), choice.ranks, fallback, null);
  fillRanks($("your-rank"), choice.ranks, "", "Not given");
  // The select follows the kept rank, which each change of it updates.
  if (choice.ranks.includes(rankResults.you)) $("your-rank").value = rankResults.you;
  $("strength-note").textContent = choice.calibrated
    ? "Plays as a person of that rank: moves drawn from the network's policy as people of the rank choose, without the blunders they would not make; matched against KaTrain's rank bot on 19×19."
    : "Draws moves as broadly as a person of that rank, from tengen's own policy network: not calibrated, the rank names the breadth of the choice only.";
  showRankRecord();
  applySuggestion();
}

/** The game the player's rank and the bot's suggest (`suggestGame`), or null. */
function currentSuggestion() {
  const choice = rankChoice();
  const size = selectedSize();
  if (!choice || !size || !$("your-rank").value) return null;
  return suggestGame($("your-rank").value, $("rank").value, size, rulesOf({ rules: $("rules").value }).komi, maxHandicap(size));
}

/** Sets colour, handicap and komi as the ranks suggest, and says why. */
function applySuggestion() {
  const suggestion = currentSuggestion();
  const note = $("rank-suggestion");
  if (!suggestion) {
    note.textContent = rankChoice() ? "Give your rank, and the colour, handicap and komi are set for the difference." : "";
    return;
  }
  if (suggestion.human) $("color").value = suggestion.human;
  $("handicap").value = String(suggestion.handicap);
  komiTouched = false;
  setKomi(suggestion.komi);
  note.textContent = suggestion.text;
}

/** The results against the rank chosen and the rank offered after the last game. */
function showRankRecord() {
  const choice = rankChoice();
  if (!choice) return;
  const rank = $("rank").value;
  const tally = rankResults.ranks[rank];
  const offer = nextRank(rankResults, choice.ranks);
  const parts = [];
  if (offer) parts.push(offer.text);
  parts.push(tally ? `Your games against ${rank}: ${describeTally(tally)}.` : `No games against ${rank} yet.`);
  $("rank-record-text").textContent = parts.join(" ");
  $("rank-record").hidden = false;
  const button = $("next-rank");
  button.hidden = !offer || offer.rank === rank;
  if (offer) {
    button.textContent = `Play ${offer.rank}`;
    button.dataset.rank = offer.rank;
  }
}

/** The teaching controls: offered where the chosen bot's games can be analysed. */
function fillTeaching() {
  const choice = chosenBot();
  const analyser = choice ? botInfo(choice.ranks ? choice.bot : choice.value) : null;
  const able = Boolean(analyser && analyser.analyses);
  $("teaching").disabled = !able;
  $("takeback").disabled = !able || !$("teaching").checked;
  $("takeback-points").disabled = !able || !$("teaching").checked || !$("takeback").checked;
  $("teaching-note").textContent = able
    ? "Each of your moves is analysed before the bot answers; at the end, your three biggest mistakes."
    : "Teaching needs a bot that analyses positions (mcts, the KataGo network).";
}

function fillStrength() {
  fillTeaching();
  const spec = $("bot").value;
  if (rankChoice()) {
    const choice = rankChoice();
    const bot = botInfo(choice.bot);
    $("bot-description").textContent = bot ? bot.description : "";
    $("strength-row").hidden = true;
    $("strength").dataset.kind = "";
    fillRankRows();
    return;
  }
  fillRankRows();
  const bot = botInfo(spec);
  let description = bot ? bot.description : "";
  if (bot && spec.includes(NETWORK_OPTION)) {
    description += ", guided by the shipped 9×9 policy network";
  }
  $("bot-description").textContent = description;
  // A budget of playouts is the bot's visits where it counts them (katago,
  // whose playouts are a further limit), else its playouts (mcts).
  const visits = bot && bot.options.find((o) => o.name === "visits");
  const playouts = !visits && bot && bot.options.find((o) => o.name === "playouts");
  const count = visits || playouts;
  const time = bot && bot.options.find((o) => o.name === "time");
  const input = $("strength");
  const row = $("strength-row");
  if (count) {
    const word = playouts ? "playouts" : "visits";
    row.hidden = false;
    $("strength-label").textContent = playouts ? "Playouts per move" : "Visits per move";
    input.min = "1";
    input.max = String(limits.max_playouts || 1000000);
    input.step = "1";
    // "none" means the bot's own default (10,000 for mcts); offer a number.
    input.value = /^\d+$/.test(count.default) ? count.default : "10000";
    if (Number(input.value) > Number(input.max)) input.value = input.max;
    input.dataset.kind = "playouts";
    $("strength-note").textContent = `More ${word}: stronger and slower.`;
  } else if (time) {
    row.hidden = false;
    $("strength-label").textContent = "Seconds per move";
    input.min = "0.1";
    input.max = "10";
    input.step = "0.1";
    input.value = String(parseFloat(time.default) || 1);
    input.dataset.kind = "seconds";
    $("strength-note").textContent = "More time: stronger and slower.";
  } else {
    row.hidden = true;
    input.dataset.kind = "";
    $("strength-note").textContent = "This bot has no strength setting.";
  }
}

function openNewGame() {
  const dialog = $("new-game-dialog");
  if (saved) {
    const s = saved.settings;
    const radio = document.querySelector(`input[name=size][value="${s.size}"]`);
    if (radio) radio.checked = true;
    else {
      document.querySelector("input[name=size][value=other]").checked = true;
      $("size-other").value = String(s.size);
    }
    $("color").value = s.humanChoice || s.human;
    $("rules").value = s.rules;
  }
  fillBotMenu();
  const previous = saved ? (saved.settings.rank ? saved.settings.bot.split(":")[0] + RANK_CHOICE : saved.settings.bot) : null;
  if (previous && [...$("bot").options].some((o) => o.value === previous)) $("bot").value = previous;
  if (saved && saved.settings.rank) {
    fillRanks($("rank"), ranksOfBot(saved.settings.bot), saved.settings.rank, null);
    $("rank").value = saved.settings.rank;
  }
  if (saved) {
    const teaching = saved.settings.teaching;
    $("teaching").checked = Boolean(teaching);
    $("takeback").checked = Boolean(teaching && typeof teaching.takeback === "number");
    if (teaching && typeof teaching.takeback === "number") $("takeback-points").value = String(teaching.takeback);
  }
  fillHandicap();
  if (saved) $("handicap").value = String(saved.settings.handicap || 0);
  komiTouched = false;
  setKomi(saved ? saved.settings.komi : defaultKomi());
  fillStrength();
  $("cancel-new-game").hidden = !saved;
  if (!dialog.open) dialog.showModal();
}

function startGame(event) {
  event.preventDefault();
  const size = selectedSize();
  if (!size) {
    $("size-other").setCustomValidity("Choose a size from 5 to 25.");
    $("size-other").reportValidity();
    return;
  }
  if (!checkKomi()) {
    $("komi").reportValidity();
    return;
  }
  const komi = Number($("komi").value);
  const choice = $("color").value;
  const human = choice === "random" ? (Math.random() < 0.5 ? "black" : "white") : choice;
  const input = $("strength");
  let budget = null;
  if (input.dataset.kind === "playouts") budget = { playouts: Math.max(1, Math.round(Number(input.value))) };
  if (input.dataset.kind === "seconds") budget = { seconds: Math.max(0.1, Number(input.value)) };
  const ranked = rankChoice();
  const rank = ranked ? $("rank").value : null;
  const bot = ranked ? `${ranked.bot}:rank=${rank}` : $("bot").value || "random";
  const takeback = Number($("takeback-points").value);
  const teaching = $("teaching").checked && !$("teaching").disabled
    ? { takeback: $("takeback").checked && Number.isFinite(takeback) ? Math.max(0, takeback) : null }
    : null;
  if (request) {
    request.controller.abort();
    request = null;
    thinking = false;
  }
  cancelReview();
  saved = {
    settings: {
      size,
      human,
      humanChoice: choice,
      handicap: Number($("handicap").value) || 0,
      komi,
      rules: $("rules").value,
      bot,
      rank,
      budget,
      teaching,
    },
    moves: [],
    score: null,
    analyses: {},
    lessons: {},
    dead: null,
    accepted: false,
    recorded: false,
  };
  viewAt = null;
  lessonText = "";
  save();
  rebuild();
  $("new-game-dialog").close();
  say(`New game: you play ${colorName(humanColor())}.`);
  afterMove();
  $("board").focus();
}

async function loadBots() {
  try {
    const response = await fetch("/api/bots");
    const data = await response.json();
    bots = data.bots || [];
    limits = data.limits || {};
  } catch {
    bots = [{ name: "random", description: "uniformly random legal moves", options: [] }];
  }
  // The bot alone, then, for a tree search that can take a model, the same
  // search guided by the shipped network: on the sizes that network plays
  // (those of the bot that plays it alone, `policy`; it is a 9×9 one).
  const network = bots.find((b) => b.name === "policy");
  const networkSizes = (network && network.sizes) || { min: 9, max: 9 };
  botChoices = [];
  for (const bot of bots) {
    const sizes = bot.sizes || null;
    botChoices.push({ value: DEFAULT_SPECS[bot.name] || bot.name, text: BOT_LABELS[bot.name] || bot.name, sizes });
    const ranks = ranksOf(bot.options.find((o) => o.name === "rank"));
    if (ranks.length) {
      // Only the KataGo network's ranks are calibrated (docs/guide/opponents.md).
      const calibrated = bot.name === "katago";
      botChoices.push({
        value: `${bot.name}${RANK_CHOICE}`,
        text: `${BOT_LABELS[bot.name] || bot.name}, by rank${calibrated ? "" : " (not calibrated)"}`,
        sizes,
        bot: bot.name,
        ranks,
        calibrated,
      });
    }
    if (bot.options.some((o) => o.name === "network") && bot.options.some((o) => o.name === "playouts")) {
      const both = sizes
        ? { min: Math.max(sizes.min, networkSizes.min), max: Math.min(sizes.max, networkSizes.max) }
        : networkSizes;
      botChoices.push({ value: `${bot.name}:${NETWORK_OPTION}`, text: `${bot.name} + network`, sizes: both });
    }
  }
  fillBotMenu();
}

// ---- Records ----------------------------------------------------------

/**
 * Opens an SGF record: its main line replaces the game, shown at its last
 * move; the player takes the colour to move there, against the bot chosen
 * before if it plays this size (else the first one that does).
 */
async function openSgf(file) {
  let record;
  let end;
  try {
    record = readSgf(await file.text());
    // Every move checked by the page's rules before anything is replaced.
    end = Game.replay(record.size, PRESETS[record.rules], 0, record.moves, record.setup);
  } catch (error) {
    say(`Cannot open ${file.name}: ${error.message}`);
    return;
  }
  if (request) {
    request.controller.abort();
    request = null;
    thinking = false;
  }
  cancelReview();
  const previous = saved ? saved.settings : null;
  const fits = (value) => botChoices.some((c) => c.value === value && playsSize(c, record.size));
  const fallback = botChoices.find((c) => playsSize(c, record.size));
  const bot = previous && fits(previous.bot) ? previous.bot : fallback ? fallback.value : "random";
  const human = end.toMove === WHITE ? "white" : "black";
  saved = {
    settings: {
      size: record.size,
      human,
      humanChoice: human,
      handicap: 0,
      setup: record.setup,
      komi: record.komi,
      rules: record.rules,
      bot,
      budget: previous && previous.bot === bot ? previous.budget : null,
    },
    moves: record.moves,
    score: null,
    analyses: {},
    dead: null,
    accepted: false,
  };
  viewAt = null;
  save();
  rebuild();
  const names = record.players.black || record.players.white
    ? ` (${record.players.black || "?"} – ${record.players.white || "?"}${record.result ? `, ${record.result}` : ""})`
    : "";
  say(`Opened ${file.name}: ${record.moves.length} moves${names}. ‹ and › step through them; ` +
    (game.isOver() ? "the game is over." : `play on as ${colorName(humanColor())}.`));
  afterMove();
}

/**
 * Arrow keys step through the moves (Home and End to the start and the
 * end); on the board, where they move the cursor, with Shift.
 */
function onKey(event) {
  if (!saved || !game || $("new-game-dialog").open) return;
  if (event.ctrlKey || event.altKey || event.metaKey) return;
  const target = event.target;
  if (target instanceof Element && target.closest("input, select, textarea")) return;
  if (target === $("board") && !event.shiftKey) return;
  const n = shownMoves();
  const to = { ArrowLeft: n - 1, ArrowRight: n + 1, Home: 0, End: saved.moves.length }[event.key];
  if (to === undefined) return;
  event.preventDefault();
  goTo(to);
}

/** A click on a mistake's button shows the position its move was played in: its mark and the engine's moves. */
function showMistake(event) {
  const button = event.target instanceof Element && event.target.closest("button[data-move]");
  if (button) goTo(Number(button.dataset.move) - 1);
}

function wire() {
  $("pass").addEventListener("click", pass);
  $("resign").addEventListener("click", resign);
  $("accept").addEventListener("click", acceptCount);
  $("undo").addEventListener("click", undo);
  $("retry").addEventListener("click", () => {
    say("");
    askBot();
  });
  $("new-game").addEventListener("click", openNewGame);
  $("download").addEventListener("click", downloadSgf);
  $("new-game-form").addEventListener("submit", startGame);
  $("cancel-new-game").addEventListener("click", () => $("new-game-dialog").close());
  for (const radio of document.querySelectorAll("input[name=size]")) {
    radio.addEventListener("change", () => {
      fillHandicap();
      fillBotMenu();
      if (!komiTouched) setKomi(defaultKomi());
    });
  }
  $("size-other").addEventListener("input", () => {
    $("size-other").setCustomValidity("");
    document.querySelector("input[name=size][value=other]").checked = true;
    fillHandicap();
    fillBotMenu();
  });
  $("komi").addEventListener("input", () => {
    komiTouched = true;
    checkKomi();
  });
  for (const id of ["rules", "handicap"]) {
    $(id).addEventListener("change", () => {
      if (!komiTouched) setKomi(defaultKomi());
    });
  }
  $("bot").addEventListener("change", fillStrength);
  $("rank").addEventListener("change", () => {
    showRankRecord();
    applySuggestion();
  });
  $("your-rank").addEventListener("change", () => {
    rankResults = { ...rankResults, you: $("your-rank").value || null };
    saveRankResults();
    applySuggestion();
  });
  $("next-rank").addEventListener("click", () => {
    $("rank").value = $("next-rank").dataset.rank;
    showRankRecord();
    applySuggestion();
  });
  for (const id of ["teaching", "takeback"]) $(id).addEventListener("change", fillTeaching);
  $("lessons-list").addEventListener("click", showMistake);
  $("nav-first").addEventListener("click", () => goTo(0));
  $("nav-prev").addEventListener("click", () => goTo(shownMoves() - 1));
  $("nav-next").addEventListener("click", () => goTo(shownMoves() + 1));
  $("nav-last").addEventListener("click", () => goTo(Infinity));
  $("play-here").addEventListener("click", playFromHere);
  $("move-list").addEventListener("click", (event) => {
    const item = event.target instanceof Element && event.target.closest("li[data-move]");
    if (item) goTo(Number(item.dataset.move));
  });
  document.addEventListener("keydown", onKey);
  $("open-sgf").addEventListener("click", () => $("sgf-file").click());
  $("sgf-file").addEventListener("change", () => {
    const file = $("sgf-file").files[0];
    $("sgf-file").value = "";
    if (file) openSgf(file);
  });
  $("analyse").addEventListener("click", analyseGame);
  $("review-cancel").addEventListener("click", () => {
    cancelReview();
    say("Analysis cancelled.");
    render();
  });
  $("review-visits").addEventListener("input", () => {
    visitsTouched = true;
    render();
  });
  $("graph-view").addEventListener("change", () => {
    graphColor = $("graph-view").value === "white" ? WHITE : BLACK;
    render();
  });
  $("mistakes").addEventListener("click", showMistake);
  $("graph").addEventListener("pointerup", (event) => {
    if (!event.isPrimary || !saved) return;
    goTo(positionAt($("graph"), event, saved.moves.length));
  });
  for (const [id, key] of [["show-candidates", "candidates"], ["show-ownership", "ownership"], ["show-hint", "hint"]]) {
    $(id).addEventListener("change", () => {
      prefs[key] = $(id).checked;
      savePrefs();
      render();
    });
  }
}

async function main() {
  loadPrefs();
  loadRankResults();
  wire();
  await loadBots();
  saved = load();
  if (saved) {
    try {
      rebuild();
    } catch (error) {
      // A stored game from an older page that no longer replays.
      saved = null;
      game = null;
      say(`The saved game could not be restored (${error.message}).`);
    }
  }
  if (!saved) {
    openNewGame();
  } else {
    say("Game restored.");
    render();
    if (game.isOver()) {
      if (!saved.score) finish();
      if (lessonDue()) teach();
    } else if (game.toMove === botColor()) {
      if (lessonDue()) teach();
      else askBot();
    }
  }
  // Set up: the bot menu is filled and the new-game dialog, if it opens by
  // itself, is open (browser tests wait for this before they click).
  document.body.dataset.ready = "true";
}

main();
