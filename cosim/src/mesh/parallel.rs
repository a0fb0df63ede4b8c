//! A mesh's nodes on several threads, synchronised conservatively at the
//! link latency (issue 41; the plan in `docs/performance.md`).
//!
//! Nothing crosses between nodes faster than [`Mesh::latency`] cycles: a
//! request or answer sent at the end of mesh cycle `t` is delivered at
//! `t + latency`. So from a cycle `now` at which every node stands, each
//! node can run alone up to `now + latency`: everything it receives in that
//! window was sent before the window began, and is handed to it with the
//! cycle it is due. Node `k` runs on thread `k % threads` (interleaved, so
//! a die's TOP_SPs spread out); the calling thread is thread 0.
//!
//! The result is the one-thread run's, bit for bit:
//! - each node applies its deliveries at the cycle the one-thread route
//!   would, in the same order;
//! - what the nodes sent is queued, after the window, in the one-thread
//!   order (cycle, requests before answers, node, order within the node),
//!   and the crossing log and `remote` count follow from it;
//! - the stop condition is "every node's predicate holds at one cycle". A
//!   node stops early in a window at the first cycle its own predicate
//!   holds; when every node has stopped, all are brought to the latest of
//!   those cycles and the condition is checked there. A node that went
//!   through the window without its predicate holding proves no cycle of
//!   the window ends the run, and the stopped nodes run on to its end.

use super::{Flight, Mesh};
use crate::sched::Cosim;
use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// What a node sent at the end of one of its cycles.
struct Sent {
    /// The mesh cycle (after the cycle that sent it).
    t: u64,
    /// 0 a request, 1 an answer: the route queues a cycle's requests first.
    kind: u8,
    /// Order within the node's requests (or answers) of that cycle.
    seq: usize,
    f: Flight,
}

/// A delivery due to a node within the window.
struct Due {
    due: u64,
    /// Its place in the mesh's queue (to put back what a stop leaves).
    order: usize,
    f: Flight,
    crossing: usize,
}

/// One node on its thread.
struct Node {
    k: usize,
    c: Cosim,
    /// The mesh cycle this node stands at.
    t: u64,
    /// Stopped at `t` because its predicate holds there.
    paused: bool,
    due: VecDeque<Due>,
    sent: Vec<Sent>,
    /// Requests delivered: (crossing index, cycle).
    arrived: Vec<(usize, u64)>,
}

impl Node {
    /// One cycle and the route's share of it for this node: what it sent is
    /// kept (a request to a node that does not exist is answered with an
    /// error at once), and what is due now is delivered.
    fn cycle(&mut self, nodes: usize, skip_quiet: bool) {
        super::node_cycle(&mut self.c, skip_quiet);
        self.t += 1;
        let t = self.t;
        for (seq, (to, r)) in std::mem::take(&mut self.c.outbound).into_iter().enumerate() {
            if (to as usize) < nodes {
                self.sent.push(Sent { t, kind: 0, seq, f: Flight::Req { to, r } });
            } else {
                self.c.remote_answer(r.by, super::NO_SUCH_NODE);
            }
        }
        for (seq, (r, rsp)) in std::mem::take(&mut self.c.replies).into_iter().enumerate() {
            self.sent.push(Sent { t, kind: 1, seq, f: Flight::Rsp { r, rsp } });
        }
        while self.due.front().is_some_and(|d| d.due <= t) {
            let Some(d) = self.due.pop_front() else { break };
            match d.f {
                Flight::Req { r, .. } => {
                    self.c.inbound.push_back(r);
                    self.arrived.push((d.crossing, t));
                }
                Flight::Rsp { r, rsp } => self.c.remote_answer(r.by, rsp),
            }
        }
    }
}

/// The nodes one thread runs.
struct Lane {
    nodes: Vec<Node>,
}

impl Lane {
    /// Run every node to cycle `to`; with `pause`, a node stops at the first
    /// cycle its predicate holds.
    fn advance<P: Fn(&Cosim) -> bool>(&mut self, to: u64, pause: bool, pred: &P, nodes: usize, skip_quiet: bool) {
        for n in &mut self.nodes {
            n.paused = false;
            while n.t < to {
                if pause && pred(&n.c) {
                    n.paused = true;
                    break;
                }
                n.cycle(nodes, skip_quiet);
            }
        }
    }
}

/// The calling thread's orders to the others.
#[derive(Default)]
struct Ctl {
    epoch: AtomicU64,
    to: AtomicU64,
    pause: AtomicBool,
    quit: AtomicBool,
    done: AtomicUsize,
    panicked: AtomicBool,
}

/// Wait for `cond`: spin a little (a window is tens of microseconds), then yield.
fn wait(cond: impl Fn() -> bool) {
    let mut spins = 0u32;
    while !cond() {
        if spins < 1 << 14 {
            std::hint::spin_loop();
            spins += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

fn lock(l: &Mutex<Lane>) -> MutexGuard<'_, Lane> {
    l.lock().unwrap_or_else(|e| e.into_inner())
}

/// Lets the other threads go when the calling thread leaves, even by a panic.
struct Release<'a>(&'a Ctl);

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.0.quit.store(true, Ordering::Release);
        self.0.epoch.fetch_add(1, Ordering::AcqRel);
    }
}

struct Pool<'a, P> {
    lanes: &'a [Mutex<Lane>],
    ctl: &'a Ctl,
    pred: &'a P,
    nodes: usize,
    skip_quiet: bool,
}

impl<P: Fn(&Cosim) -> bool + Sync> Pool<'_, P> {
    fn worker(&self, i: usize) {
        let mut seen = 0;
        loop {
            wait(|| self.ctl.epoch.load(Ordering::Acquire) != seen);
            seen = self.ctl.epoch.load(Ordering::Acquire);
            if self.ctl.quit.load(Ordering::Acquire) {
                return;
            }
            let (to, pause) = (self.ctl.to.load(Ordering::Acquire), self.ctl.pause.load(Ordering::Acquire));
            let ran = std::panic::catch_unwind(AssertUnwindSafe(|| lock(&self.lanes[i]).advance(to, pause, self.pred, self.nodes, self.skip_quiet)));
            if ran.is_err() {
                self.ctl.panicked.store(true, Ordering::Release);
            }
            self.ctl.done.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// Every thread runs its nodes to `to` (see [`Lane::advance`]).
    fn step(&self, to: u64, pause: bool) {
        self.ctl.to.store(to, Ordering::Release);
        self.ctl.pause.store(pause, Ordering::Release);
        self.ctl.done.store(0, Ordering::Release);
        self.ctl.epoch.fetch_add(1, Ordering::AcqRel);
        lock(&self.lanes[0]).advance(to, pause, self.pred, self.nodes, self.skip_quiet);
        wait(|| self.ctl.done.load(Ordering::Acquire) + 1 == self.lanes.len());
        if self.ctl.panicked.load(Ordering::Acquire) {
            panic!("a mesh thread panicked running its dies (its message is above)");
        }
    }

    fn node_mut<'g>(&self, guards: &'g mut [MutexGuard<'_, Lane>], k: usize) -> &'g mut Node {
        let t = self.lanes.len();
        &mut guards[k % t].nodes[k / t]
    }
}

/// How a parallel run ended.
enum End {
    Done(bool),
    Interrupted,
}

/// [`Mesh::run_until_all`] on `threads` threads (2 or more; the latency at least 1).
pub(super) fn run_until_all<P: Fn(&Cosim) -> bool + Sync>(m: &mut Mesh, threads: usize, limit: u64, pred: &P) -> bool {
    m.route();
    let nodes = m.dies.len();
    let mut lanes: Vec<Lane> = (0..threads).map(|_| Lane { nodes: Vec::new() }).collect();
    for (k, c) in std::mem::take(&mut m.dies).into_iter().enumerate() {
        lanes[k % threads].nodes.push(Node { k, c, t: m.now, paused: false, due: VecDeque::new(), sent: Vec::new(), arrived: Vec::new() });
    }
    let lanes: Vec<Mutex<Lane>> = lanes.into_iter().map(Mutex::new).collect();
    let ctl = Ctl::default();
    let pool = Pool { lanes: &lanes, ctl: &ctl, pred, nodes, skip_quiet: m.skip_quiet };
    let end = std::thread::scope(|s| {
        for i in 1..threads {
            let pool = &pool;
            s.spawn(move || pool.worker(i));
        }
        let _release = Release(&ctl);
        coordinate(m, &pool, m.now + limit)
    });
    // The nodes back in order; deliveries a stop left go back to the queue's front.
    let mut back: Vec<Node> = lanes.into_iter().flat_map(|l| l.into_inner().unwrap_or_else(|e| e.into_inner()).nodes).collect();
    back.sort_by_key(|n| n.k);
    let mut left: Vec<Due> = back.iter_mut().flat_map(|n| std::mem::take(&mut n.due)).collect();
    left.sort_by_key(|d| std::cmp::Reverse(d.order));
    for d in left {
        m.flights.push_front((d.due, d.f, d.crossing));
    }
    m.dies = back.into_iter().map(|n| n.c).collect();
    match end {
        End::Done(done) => done,
        End::Interrupted => {
            let mut all: Vec<&mut Cosim> = m.dies.iter_mut().collect();
            crate::interrupt::stop(&mut all)
        }
    }
}

/// The calling thread's part: windows of `latency` cycles until the
/// predicate holds on every node at one cycle, or `end`.
fn coordinate<P: Fn(&Cosim) -> bool + Sync>(m: &mut Mesh, pool: &Pool<'_, P>, end: u64) -> End {
    let all_hold = || pool.lanes.iter().all(|l| lock(l).nodes.iter().all(|n| (pool.pred)(&n.c)));
    let mut order = 0usize;
    loop {
        if m.now >= end {
            return End::Done(all_hold());
        }
        let e = (m.now + m.latency).min(end);
        {
            let mut guards: Vec<_> = pool.lanes.iter().map(lock).collect();
            while m.flights.front().is_some_and(|f| f.0 <= e) {
                let Some((due, f, crossing)) = m.flights.pop_front() else { break };
                let to = match f {
                    Flight::Req { to, .. } => to as usize,
                    Flight::Rsp { r, .. } => r.from_die as usize,
                };
                if to < pool.nodes {
                    pool.node_mut(&mut guards, to).due.push_back(Due { due, order, f, crossing });
                    order += 1;
                }
            }
        }
        loop {
            pool.step(e, true);
            let stops: Option<Vec<u64>> = pool.lanes.iter().flat_map(|l| lock(l).nodes.iter().map(|n| n.paused.then_some(n.t)).collect::<Vec<_>>()).collect();
            match stops.and_then(|s| s.into_iter().max()) {
                Some(t) => {
                    pool.step(t, false);
                    merge(m, pool);
                    m.now = t;
                    if all_hold() {
                        return End::Done(true);
                    }
                }
                None => {
                    pool.step(e, false);
                    merge(m, pool);
                    m.now = e;
                    break;
                }
            }
        }
        if crate::interrupt::requested() {
            return End::Interrupted;
        }
    }
}

/// Queue what the nodes sent, in the one-thread route's order, and log the
/// requests delivered (every node stands at the same cycle).
fn merge<P>(m: &mut Mesh, pool: &Pool<'_, P>) {
    let mut sent = Vec::new();
    for l in pool.lanes {
        let mut l = lock(l);
        for n in &mut l.nodes {
            sent.extend(n.sent.drain(..).map(|s| (s.t, s.kind, n.k, s.seq, s.f)));
            for (k, t) in n.arrived.drain(..) {
                if let Some(c) = m.crossings.get_mut(k) {
                    c.arrived = Some(t);
                }
                m.remote += 1;
            }
        }
    }
    sent.sort_by_key(|s| (s.0, s.1, s.2, s.3));
    for (t, _, _, _, f) in sent {
        m.queue(t, f);
    }
}
