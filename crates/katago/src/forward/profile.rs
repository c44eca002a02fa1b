//! Where a forward pass spends its time, by class of layer (`tengen bench
//! katago --layers`).
//!
//! Time is counted as thread time: every piece of work adds what it took
//! to its class, on whichever thread ran it, and a pass on `threads`
//! threads has `threads ×` its wall time to spend. What no class took is
//! time the threads spent waiting: for each other, for a task to be handed
//! over, or idle beside work that runs on one thread. Dividing a class's
//! thread time by the threads gives its milliseconds of the pass, so the
//! classes and the waiting add up to the pass's wall time.
//!
//! The forward pass marks *regions* on the thread that drives it (a class
//! that holds until the next region ends or begins); work the region runs
//! itself is counted as the region's class. Work handed to other threads
//! runs as *tasks*, which time themselves, and the caller's time in
//! [`scoped`] (waiting for its tasks, or running them) is not counted a
//! second time. Where a batch is split between threads, each part is a
//! [`section`] driven by its own thread. Counting is off unless
//! [`Profile::measure`] turns it on, and then for one measurement at a time
//! in the whole process: the counters are global.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A class of layer, as the profile reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LayerClass {
    /// The trunk's convolutions (the stem, and the 1×1 and 3×3 layers of
    /// residual and nested blocks).
    Convolutions,
    /// Attention's query, key, value and output projections.
    Projections,
    /// The feed-forward blocks' products.
    FeedForward,
    /// Attention's score products (queries times keys).
    AttentionScores,
    /// Attention's value products (scores times values).
    AttentionValues,
    /// Attention's softmax.
    Softmax,
    /// Normalisation, activations, gating, rotary angles, residual and
    /// per-position additions, global pooling.
    NormAndActivation,
    /// Rounding activations to bf16 pairs, unrolling convolutions, and
    /// copies between layouts.
    PackingAndLayout,
    /// The policy and value heads, whole.
    Heads,
    /// Everything else: the inputs, the outputs.
    Other,
}

impl LayerClass {
    /// Every class, in the order the profile prints them.
    pub const ALL: [LayerClass; 10] = [
        LayerClass::Convolutions,
        LayerClass::Projections,
        LayerClass::FeedForward,
        LayerClass::AttentionScores,
        LayerClass::AttentionValues,
        LayerClass::Softmax,
        LayerClass::NormAndActivation,
        LayerClass::PackingAndLayout,
        LayerClass::Heads,
        LayerClass::Other,
    ];

    /// Its name in the profile's table.
    pub fn name(self) -> &'static str {
        match self {
            LayerClass::Convolutions => "trunk convolutions",
            LayerClass::Projections => "attention projections",
            LayerClass::FeedForward => "feed-forward products",
            LayerClass::AttentionScores => "attention scores (QK)",
            LayerClass::AttentionValues => "attention values (AV)",
            LayerClass::Softmax => "softmax",
            LayerClass::NormAndActivation => "normalisation, activations",
            LayerClass::PackingAndLayout => "packing, layout changes",
            LayerClass::Heads => "heads",
            LayerClass::Other => "inputs, outputs",
        }
    }

    fn index(self) -> usize {
        LayerClass::ALL
            .iter()
            .position(|&c| c == self)
            .expect("every class is listed")
    }
}

const CLASSES: usize = LayerClass::ALL.len();

/// Whether counting is on.
static ENABLED: AtomicBool = AtomicBool::new(false);
/// Nanoseconds of thread time per class.
static BUSY: [AtomicU64; CLASSES] = [const { AtomicU64::new(0) }; CLASSES];
/// Nanoseconds of the driving threads' wall time per class, in their own
/// work and in waiting for their tasks, times the threads each drives.
static WALL: [AtomicU64; CLASSES] = [const { AtomicU64::new(0) }; CLASSES];
/// Nanoseconds of thread time per class of the driving thread's region
/// when the work was done (whatever class the work named).
static REGION_BUSY: [AtomicU64; CLASSES] = [const { AtomicU64::new(0) }; CLASSES];
/// The class of the current region of the pass whose threads share its
/// layers (only one such pass is measured at a time), for tasks run by
/// other threads.
static CURRENT: AtomicUsize = AtomicUsize::new(CLASSES - 1);

/// What a driving thread is doing, as far as counting goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Its own work: counted as its region's class.
    Working,
    /// Waiting for, or running, tasks that time themselves: its wall time
    /// counts against its region, its work does not count again.
    Scoped,
    /// Running whole parts of the pass that are driven on their own (one
    /// per thread): nothing counted here.
    HandedOver,
}

/// A driving thread's place: the region it is in, since when, what it is
/// doing, and how many threads it drives.
#[derive(Clone, Copy)]
struct Caller {
    class: usize,
    since: Instant,
    mode: Mode,
    threads: usize,
}

thread_local! {
    static CALLER: std::cell::Cell<Option<Caller>> = const { std::cell::Cell::new(None) };
}

fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

fn add(class: usize, region: usize, elapsed: Duration) {
    let nanos = elapsed.as_nanos() as u64;
    BUSY[class].fetch_add(nanos, Ordering::Relaxed);
    REGION_BUSY[region].fetch_add(nanos, Ordering::Relaxed);
}

/// Closes this thread's current segment (if it drives a pass) and starts
/// the next one in `class` and `mode`, driving `threads` threads (those of
/// the segment before where `None`); returns the caller as it was.
fn switch(class: usize, mode: Mode, threads: Option<usize>) -> Option<Caller> {
    let now = Instant::now();
    let before = CALLER.get();
    if let Some(c) = before {
        let elapsed = now - c.since;
        if c.mode != Mode::HandedOver {
            let capacity = elapsed.as_nanos() as u64 * c.threads as u64;
            WALL[c.class].fetch_add(capacity, Ordering::Relaxed);
        }
        if c.mode == Mode::Working {
            add(c.class, c.class, elapsed);
        }
    }
    let threads = threads.or(before.map(|c| c.threads)).unwrap_or(1);
    CALLER.set(Some(Caller {
        class,
        since: now,
        mode,
        threads,
    }));
    CURRENT.store(class, Ordering::Relaxed);
    before
}

/// Ends the current segment and goes back to `before` from now on.
fn restore(before: Option<Caller>) {
    match before {
        Some(c) => {
            switch(c.class, c.mode, Some(c.threads));
        }
        None => {
            switch(CLASSES - 1, Mode::HandedOver, None);
            CALLER.set(None);
        }
    }
}

/// A region of the driving thread, ended when dropped.
#[must_use = "the region ends when this is dropped"]
pub(crate) struct Region(Option<Option<Caller>>);

impl Drop for Region {
    fn drop(&mut self) {
        if let Some(before) = self.0 {
            restore(before);
        }
    }
}

/// Counts the driving thread's time as `class` until the guard is
/// dropped; regions nest.
pub(crate) fn region(class: LayerClass) -> Region {
    if !enabled() {
        return Region(None);
    }
    Region(Some(switch(class.index(), Mode::Working, None)))
}

/// Runs `f`, which hands work to tasks that time themselves (and may run
/// some of them on this thread): the caller's own time in it is not
/// counted again.
pub(crate) fn scoped<T>(f: impl FnOnce() -> T) -> T {
    in_mode(Mode::Scoped, f)
}

/// Runs `f` with the driving thread in `mode`, in the region it is in.
fn in_mode<T>(mode: Mode, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let class = CALLER.get().map_or(LayerClass::Other.index(), |c| c.class);
    let before = switch(class, mode, None);
    let result = f();
    restore(before);
    result
}

/// Runs `f`, which runs parts of the pass each driven as a [`section`]:
/// nothing of the caller's time in it is counted.
pub(crate) fn handed_over<T>(f: impl FnOnce() -> T) -> T {
    in_mode(Mode::HandedOver, f)
}

/// Runs `f`, a part of the pass driven by this thread on `threads`
/// threads, counted as its own regions say (as inputs and outputs
/// outside them).
pub(crate) fn section<T>(threads: usize, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let before = switch(
        LayerClass::Other.index(),
        Mode::Working,
        Some(threads.max(1)),
    );
    let result = f();
    restore(before);
    result
}

/// Runs `f` as a task, its time counted as `class`, or as the current
/// region's class where `class` is `None`.
pub(crate) fn task<T>(class: Option<LayerClass>, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    // A task run by a driving thread belongs to its region; one run by
    // another thread to the region of the one pass that shares its layers.
    let region = match CALLER.get() {
        Some(caller) if caller.mode == Mode::Scoped => caller.class,
        _ => CURRENT.load(Ordering::Relaxed),
    };
    let index = class.map_or(region, LayerClass::index);
    let start = Instant::now();
    let result = f();
    add(index, region, start.elapsed());
    result
}

/// Where the time of some forward passes went.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// Threads the passes ran on.
    pub threads: usize,
    /// Passes measured.
    pub passes: usize,
    /// Wall time of all the passes.
    pub wall: Duration,
    /// Thread time by class, in [`LayerClass::ALL`]'s order.
    pub busy: [Duration; CLASSES],
    /// The threads' time by the class of the driving thread's region:
    /// its wall time there times the threads it drove (work handed to
    /// other threads is counted under the class that handed it over,
    /// whichever class its tasks named).
    pub class_wall: [Duration; CLASSES],
    /// Thread time by the class of the driving thread's region while it
    /// was spent.
    pub region_busy: [Duration; CLASSES],
}

/// One line of a [`Profile`]: a class, or the waiting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProfileLine {
    /// The class, or `None` for the time the threads spent waiting.
    pub class: Option<LayerClass>,
    /// Milliseconds of one pass: thread time ÷ threads ÷ passes.
    pub millis: f64,
    /// Share of the threads' time in the passes.
    pub share: f64,
    /// Milliseconds of one pass that the threads spent waiting while the
    /// driving thread was in this class's layers: `threads ×` its wall
    /// time less the work done meanwhile, ÷ threads (0 for the total's
    /// line, which is the waiting itself). Attention's heads (scores,
    /// softmax, values, and their operands' packing) are one section,
    /// counted as scores.
    pub waiting_millis: f64,
}

impl Profile {
    /// Runs `run`, which makes forward passes on `threads` threads and
    /// returns how many, with counting on, and reports where the time
    /// went. Only one measurement may run at a time in the process, and
    /// no other forward pass beside it.
    pub fn measure(threads: usize, run: impl FnOnce() -> usize) -> Profile {
        static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        for counter in BUSY.iter().chain(&WALL).chain(&REGION_BUSY) {
            counter.store(0, Ordering::Relaxed);
        }
        ENABLED.store(true, Ordering::SeqCst);
        let start = Instant::now();
        let passes = section(threads, run);
        let wall = start.elapsed();
        ENABLED.store(false, Ordering::SeqCst);
        let read = |counters: &[AtomicU64; CLASSES]| {
            let mut durations = [Duration::ZERO; CLASSES];
            for (d, c) in durations.iter_mut().zip(counters) {
                *d = Duration::from_nanos(c.load(Ordering::Relaxed));
            }
            durations
        };
        Profile {
            threads: threads.max(1),
            passes: passes.max(1),
            wall,
            busy: read(&BUSY),
            class_wall: read(&WALL),
            region_busy: read(&REGION_BUSY),
        }
    }

    /// Wall milliseconds of one pass.
    pub fn pass_millis(&self) -> f64 {
        self.wall.as_secs_f64() * 1e3 / self.passes as f64
    }

    /// Each class, then the waiting: milliseconds of one pass and shares
    /// of the threads' time, adding up to the pass.
    pub fn lines(&self) -> Vec<ProfileLine> {
        let capacity = self.wall.as_secs_f64() * self.threads as f64;
        let per_pass =
            |thread_seconds: f64| thread_seconds * 1e3 / self.threads as f64 / self.passes as f64;
        let mut lines: Vec<ProfileLine> = LayerClass::ALL
            .iter()
            .zip(&self.busy)
            .zip(self.class_wall.iter().zip(&self.region_busy))
            .map(|((&class, busy), (wall, region_busy))| ProfileLine {
                class: Some(class),
                millis: per_pass(busy.as_secs_f64()),
                share: busy.as_secs_f64() / capacity,
                waiting_millis: per_pass((wall.as_secs_f64() - region_busy.as_secs_f64()).max(0.0)),
            })
            .collect();
        let counted: f64 = self.busy.iter().map(Duration::as_secs_f64).sum();
        // Timers read at slightly different moments; never below zero.
        let waiting = (capacity - counted).max(0.0);
        lines.push(ProfileLine {
            class: None,
            millis: per_pass(waiting),
            share: waiting / capacity,
            waiting_millis: 0.0,
        });
        lines
    }
}
