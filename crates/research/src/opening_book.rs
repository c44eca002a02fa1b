//! `tengen nn opening-book`: an opening book ([`tengen_mcts::book`]) built
//! with a KataGo network, for the MCTS bot to play its first moves from.
//!
//! The book holds the move for the side the bot plays, in the positions
//! most likely to arise. Two trees grow side by side: one where the book
//! plays Black from the empty board, one where it plays White. In a
//! position where the book is to move, the `katago` bot searches with a
//! fixed number of visits and its choice is the entry. In a position where
//! the opponent is to move, the network's raw policy stands for the
//! opponent: each of its most likely replies (at least `min_policy`, at
//! most `replies` of them; replies that are mirror images of one another
//! count as one, their probabilities added) leads to a new position for the
//! book, reached with the product of the replies' probabilities so far.
//!
//! The positions are taken best first by that probability, by several
//! workers at once, until `positions` have been searched or the time is
//! up, so a book cut short holds the likeliest positions. Mirror images
//! are one position (the book finds each under all eight symmetries).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};
use std::path::PathBuf;
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use anyhow::{anyhow, Context, Result};
use tengen_core::{Action, BoardSize, Color, Game, Move, Rules};
use tengen_katago::forward::Precision;
use tengen_mcts::book::{canonical, entry_line};
use tengen_puct::katago::{load_network, KataGoEvaluator};
use tengen_puct::PositionEvaluator;

/// Settings of a book's construction.
#[derive(Clone, Debug)]
pub struct OpeningBookOptions {
    /// The KataGo model file.
    pub model: PathBuf,
    /// Board size (square).
    pub size: BoardSize,
    /// Rules, komi included: the network is told them, the book is for
    /// that komi.
    pub rules: Rules,
    /// Visits of the search that picks each of the book's moves.
    pub visits: u32,
    /// Positions to search at most.
    pub positions: usize,
    /// Positions are in the book only before this many moves are played.
    pub max_turns: usize,
    /// The opponent's replies less likely than this are not followed.
    pub min_policy: f32,
    /// At most this many replies are followed in each position.
    pub replies: usize,
    /// Workers searching at once (each on one thread).
    pub workers: usize,
    /// Stop taking new positions at this instant.
    pub deadline: Option<Instant>,
    /// Seed of the searches.
    pub seed: u64,
}

/// One of the book's entries.
#[derive(Clone, Debug)]
pub struct BookEntry {
    /// The line for the book file.
    pub line: String,
    /// The probability that the position arises, the book's side playing
    /// the book and the other the network's policy.
    pub reach: f64,
    /// Moves played before the position.
    pub turn: usize,
}

/// A position waiting for a worker.
#[derive(Clone, Debug)]
struct Pending {
    reach: f64,
    moves: Vec<Move>,
    /// The book is to move (search it), or the opponent (expand its replies).
    book_to_move: bool,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    /// The likelier first; at equal probability the shorter line.
    fn cmp(&self, other: &Self) -> Ordering {
        self.reach
            .total_cmp(&other.reach)
            .then(other.moves.len().cmp(&self.moves.len()))
    }
}

#[derive(Default)]
struct State {
    queue: BinaryHeap<Pending>,
    /// Positions queued so far: whether the book is to move, the canonical
    /// position, the side to move.
    seen: HashSet<SeenKey>,
    in_flight: usize,
    searched: usize,
    entries: Vec<BookEntry>,
    error: Option<String>,
}

/// A position's key in [`State::seen`].
type SeenKey = (bool, Vec<u8>, Color);

/// What a worker found: an entry and the positions it leads to, with their
/// keys.
struct Found {
    entry: Option<BookEntry>,
    next: Vec<(Pending, SeenKey)>,
}

/// Builds the book's entries, the likeliest first; `progress` is told the
/// number of positions searched after each.
pub fn build_opening_book(
    options: &OpeningBookOptions,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<BookEntry>> {
    if options.size.width() != options.size.height() {
        return Err(anyhow!("opening books are for square boards"));
    }
    let workers = options.workers.max(1);
    // f32, so that a book does not depend on the CPU that made it.
    let network = load_network(&options.model, workers, Precision::F32)
        .map_err(|reason| anyhow!("{}: {reason}", options.model.display()))?;
    let start = Game::new(options.size, options.rules);
    let state = Mutex::new(State::default());
    {
        let mut s = state.lock().expect("fresh lock");
        for book_to_move in [true, false] {
            s.seen
                .insert((book_to_move, canonical(start.board()).1, Color::Black));
            s.queue.push(Pending {
                reach: 1.0,
                moves: Vec::new(),
                book_to_move,
            });
        }
    }
    let wake = Condvar::new();
    std::thread::scope(|scope| -> Result<()> {
        let mut handles = Vec::new();
        // Every worker's bot shares the evaluator's network, and with it a
        // pool of one thread per worker: networks are cached by file and
        // thread count, so a pool of one would serialize them all.
        let spec = format!(
            "katago:model={},visits={},threads={workers},precision=f32",
            options.model.display(),
            options.visits,
        );
        for worker in 0..workers {
            let mut bot = tengen_bots::parse_bot(&spec)
                .and_then(|settings| settings.build(options.seed + worker as u64))
                .map_err(|e| anyhow!("{spec}: {e}"))?;
            let evaluator = KataGoEvaluator::new(network.clone());
            let (state, wake) = (&state, &wake);
            handles.push(scope.spawn(move || loop {
                let item = {
                    let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
                    loop {
                        let done = s.error.is_some()
                            || s.searched >= options.positions
                            || options.deadline.is_some_and(|d| Instant::now() >= d);
                        if done {
                            wake.notify_all();
                            return;
                        }
                        if let Some(item) = s.queue.pop() {
                            s.in_flight += 1;
                            if item.book_to_move {
                                s.searched += 1;
                            }
                            break item;
                        }
                        if s.in_flight == 0 {
                            wake.notify_all();
                            return;
                        }
                        s = wake.wait(s).unwrap_or_else(|e| e.into_inner());
                    }
                };
                let found = visit(&item, options, bot.as_mut(), &evaluator);
                let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
                s.in_flight -= 1;
                match found {
                    Ok(found) => {
                        if let Some(entry) = found.entry {
                            s.entries.push(entry);
                            progress(s.entries.len());
                        }
                        for (next, key) in found.next {
                            if s.seen.insert(key) {
                                s.queue.push(next);
                            }
                        }
                    }
                    Err(error) => s.error = Some(format!("{error:#}")),
                }
                wake.notify_all();
            }));
        }
        for handle in handles {
            handle.join().map_err(|_| anyhow!("a worker panicked"))?;
        }
        Ok(())
    })?;
    let state = state.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(error) = state.error {
        return Err(anyhow!(error));
    }
    let mut entries = state.entries;
    entries.sort_by(|a, b| b.reach.total_cmp(&a.reach).then(a.turn.cmp(&b.turn)));
    Ok(entries)
}

/// The game after `moves` from the empty board.
fn replay(options: &OpeningBookOptions, moves: &[Move]) -> Result<Game> {
    let mut game = Game::new(options.size, options.rules);
    for &mv in moves {
        game.play(mv)
            .with_context(|| format!("replaying {}", options.size.gtp(mv)))?;
    }
    Ok(game)
}

/// Searches a position of the book's side, or expands the opponent's
/// replies in one of the other side's.
fn visit(
    item: &Pending,
    options: &OpeningBookOptions,
    bot: &mut (dyn tengen_core::Agent + Send),
    evaluator: &KataGoEvaluator,
) -> Result<Found> {
    let game = replay(options, &item.moves)?;
    if item.book_to_move {
        bot.reset();
        let Action::Move(Move::Play(point)) = bot.select_move(&game) else {
            return Ok(Found {
                entry: None,
                next: Vec::new(),
            });
        };
        let winrate = bot.analysis().map(|a| a.winrate);
        let comment = match winrate {
            Some(w) => format!(
                "# reach {:.5}, turn {}, win {:.3}",
                item.reach,
                item.moves.len(),
                w
            ),
            None => format!("# reach {:.5}, turn {}", item.reach, item.moves.len()),
        };
        let entry = BookEntry {
            line: entry_line(&game, point, &comment),
            reach: item.reach,
            turn: item.moves.len(),
        };
        let mut next = Vec::new();
        if item.moves.len() + 2 < options.max_turns {
            let mut moves = item.moves.clone();
            moves.push(Move::Play(point));
            let mut after = game.clone();
            after.play(Move::Play(point))?;
            let key = (false, canonical(after.board()).1, after.to_move());
            next.push((
                Pending {
                    reach: item.reach,
                    moves,
                    book_to_move: false,
                },
                key,
            ));
        }
        Ok(Found {
            entry: Some(entry),
            next,
        })
    } else {
        // The replies lead to positions after one more move.
        if item.moves.len() + 1 >= options.max_turns {
            return Ok(Found {
                entry: None,
                next: Vec::new(),
            });
        }
        let evaluation = evaluator
            .evaluate(&[&game])
            .map_err(|e| anyhow!("evaluating the position: {e}"))?;
        // Replies that are mirror images of one another (the knight's
        // moves around a centre stone, say) lead to one position: their
        // probabilities add up before the likeliest are chosen.
        let mut replies: Vec<(Vec<u8>, Move, f64)> = Vec::new();
        for &(mv, p) in &evaluation[0].policy {
            if !matches!(mv, Move::Play(_)) || game.legal(mv).is_err() {
                continue;
            }
            let mut after = game.clone();
            after.play(mv)?;
            let key = canonical(after.board()).1;
            match replies.iter_mut().find(|(k, _, _)| *k == key) {
                Some(reply) => reply.2 += f64::from(p),
                None => replies.push((key, mv, f64::from(p))),
            }
        }
        replies.retain(|r| r.2 >= f64::from(options.min_policy));
        replies.sort_by(|a, b| b.2.total_cmp(&a.2));
        replies.truncate(options.replies);
        let next = replies
            .into_iter()
            .map(|(position, mv, p)| {
                let mut moves = item.moves.clone();
                moves.push(mv);
                let pending = Pending {
                    reach: item.reach * p,
                    moves,
                    book_to_move: true,
                };
                (pending, (true, position, game.to_move().opposite()))
            })
            .collect();
        Ok(Found { entry: None, next })
    }
}

/// The book file's text: `header` lines as comments, the size and komi,
/// then the entries.
pub fn book_text(options: &OpeningBookOptions, header: &[String], entries: &[BookEntry]) -> String {
    let mut text = String::new();
    for line in header {
        text.push_str("# ");
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(&format!("size {}\n", options.size.width()));
    text.push_str(&format!("komi {}\n", options.rules.komi));
    for entry in entries {
        text.push_str(&entry.line);
        text.push('\n');
    }
    text
}
