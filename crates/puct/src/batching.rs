//! One network shared by several searches at once, their positions
//! gathered into common forward passes (KataGo's analysis engine batches
//! across queries the same way): a large batch costs little more than a
//! small one per position, and the searches of different positions keep
//! it full.
//!
//! Each search prepares its positions' inputs on its own thread and queues
//! them; one server thread takes whatever is queued (up to the largest
//! batch), runs it and hands each search its answers. A search that is
//! stopped leaves at once: its positions are dropped from the queue, or
//! their answers thrown away when they come; a batch every member of which
//! has left is cancelled between the network's blocks.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use tengen_katago::network::{EvalError, NetInput, Network};
use tengen_katago::output::Evaluation;

/// Positions of one search waiting for the network.
struct Request {
    ticket: u64,
    inputs: Vec<(NetInput, u8)>,
    policy_optimism: f32,
    left: Arc<AtomicBool>,
}

/// What the searches and the server share.
#[derive(Default)]
struct Queue {
    waiting: VecDeque<Request>,
    answers: HashMap<u64, Result<Vec<Evaluation>, String>>,
    next_ticket: u64,
    shut_down: bool,
}

struct Shared {
    network: Arc<Network>,
    max_batch: usize,
    queue: Mutex<Queue>,
    /// Signalled when requests are queued (for the server) and when
    /// answers are ready (for the searches).
    changed: Condvar,
    batches: AtomicU64,
    positions: AtomicU64,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A network evaluating the positions of many searches in shared batches.
pub struct SharedBatches {
    shared: Arc<Shared>,
    server: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for SharedBatches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedBatches")
            .field("max_batch", &self.shared.max_batch)
            .finish()
    }
}

impl SharedBatches {
    /// Batches of at most `max_batch` positions (at least one) for
    /// `network`, served by a thread of their own.
    pub fn new(network: Arc<Network>, max_batch: usize) -> SharedBatches {
        let shared = Arc::new(Shared {
            network,
            max_batch: max_batch.max(1),
            queue: Mutex::new(Queue::default()),
            changed: Condvar::new(),
            batches: AtomicU64::new(0),
            positions: AtomicU64::new(0),
        });
        let server = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("nn-batches".to_string())
                .spawn(move || serve(&shared))
                .expect("a thread for the network's batches")
        };
        SharedBatches {
            shared,
            server: Some(server),
        }
    }

    /// The network.
    pub fn network(&self) -> &Arc<Network> {
        &self.shared.network
    }

    /// Forward passes run so far, and the positions they evaluated.
    pub fn batches_and_positions(&self) -> (u64, u64) {
        (
            self.shared.batches.load(Ordering::Relaxed),
            self.shared.positions.load(Ordering::Relaxed),
        )
    }

    /// Evaluates `inputs` (each under its symmetry) with this much of the
    /// optimistic policy, in a batch with whatever else is queued; gives up
    /// with [`EvalError::Cancelled`] within a few milliseconds of `cancel`
    /// saying so.
    pub fn evaluate(
        &self,
        inputs: Vec<(NetInput, u8)>,
        policy_optimism: f32,
        cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<Evaluation>, EvalError> {
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let left = Arc::new(AtomicBool::new(false));
        let mut queue = self.shared.lock();
        let ticket = queue.next_ticket;
        queue.next_ticket += 1;
        queue.waiting.push_back(Request {
            ticket,
            inputs,
            policy_optimism,
            left: Arc::clone(&left),
        });
        self.shared.changed.notify_all();
        loop {
            if let Some(answer) = queue.answers.remove(&ticket) {
                return answer.map_err(EvalError::Batch);
            }
            if queue.shut_down {
                return Err(EvalError::Cancelled);
            }
            if cancel() {
                left.store(true, Ordering::Relaxed);
                queue.waiting.retain(|r| r.ticket != ticket);
                return Err(EvalError::Cancelled);
            }
            queue = self
                .shared
                .changed
                .wait_timeout(queue, Duration::from_millis(2))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

impl Drop for SharedBatches {
    fn drop(&mut self) {
        self.shared.lock().shut_down = true;
        self.shared.changed.notify_all();
        if let Some(server) = self.server.take() {
            let _ = server.join();
        }
    }
}

/// The server: takes what is queued (requests of the first one's policy
/// optimism, up to the largest batch), runs it, posts the answers.
fn serve(shared: &Shared) {
    loop {
        let mut queue = shared.lock();
        while queue.waiting.is_empty() && !queue.shut_down {
            queue = shared
                .changed
                .wait(queue)
                .unwrap_or_else(|e| e.into_inner());
        }
        if queue.shut_down {
            return;
        }
        let optimism = queue.waiting[0].policy_optimism;
        let mut batch: Vec<Request> = Vec::new();
        let mut positions = 0;
        let mut rest = VecDeque::new();
        while let Some(request) = queue.waiting.pop_front() {
            let fits = batch.is_empty() || positions + request.inputs.len() <= shared.max_batch;
            if request.policy_optimism == optimism && fits {
                positions += request.inputs.len();
                batch.push(request);
            } else {
                rest.push_back(request);
            }
        }
        queue.waiting = rest;
        drop(queue);

        let items: Vec<(&NetInput, u8)> = batch
            .iter()
            .flat_map(|r| r.inputs.iter().map(|(input, s)| (input, *s)))
            .collect();
        let everyone_left = || batch.iter().all(|r| r.left.load(Ordering::Relaxed));
        let result = shared
            .network
            .evaluate_inputs(&items, optimism, &everyone_left);
        shared.batches.fetch_add(1, Ordering::Relaxed);
        shared
            .positions
            .fetch_add(items.len() as u64, Ordering::Relaxed);
        drop(items);

        let mut queue = shared.lock();
        match result {
            Ok(mut evaluations) => {
                // Answers in request order: split from the back.
                for request in batch.iter().rev() {
                    let start = evaluations.len() - request.inputs.len();
                    let answer = evaluations.split_off(start);
                    if !request.left.load(Ordering::Relaxed) {
                        queue.answers.insert(request.ticket, Ok(answer));
                    }
                }
            }
            Err(error) => {
                let reason = error.to_string();
                for request in &batch {
                    if !request.left.load(Ordering::Relaxed) {
                        queue.answers.insert(request.ticket, Err(reason.clone()));
                    }
                }
            }
        }
        drop(queue);
        shared.changed.notify_all();
    }
}
