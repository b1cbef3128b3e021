//! The language server's model: loaded once per scratch tree, on a thread
//! of its own, and kept there (rust-analyzer's database never leaves it).
//! Saved files reach it as the scratch tree takes them; each batch of
//! mutants is judged there while the lab builds. Until it is loaded, a
//! batch is not judged at all (every mutant is built, as without the
//! analysis), so the first save never waits for it.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{judge_cfgs, judge_viability, under_cfgs, CfgPlace, Model, Purpose};
use crate::lab::cargo::CargoOptions;
use crate::lab::{Analysis, AnalysisFeed, AskViability};
use crate::mutate::Mutant;

/// Where the model stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Readiness {
    /// Loading (or loading again after a change it cannot take in place).
    Loading,
    /// Loaded, in this long.
    Ready(Duration),
    /// Not to be had, and why (no `rust-src`, a manifest cargo rejects).
    Unavailable(String),
}

/// A handle on the model's thread; dropping it ends the thread (after the
/// request at hand) and waits for it, so the scratch tree it reads must
/// outlive it.
pub struct WarmModel {
    readiness: Arc<Mutex<Readiness>>,
    requests: Option<Sender<Request>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

enum Request {
    /// These files (relative paths) of the scratch tree changed.
    Changed(Vec<String>),
    /// Which mutants at these places are in code not compiled here.
    Cfgs {
        places: Vec<CfgPlace>,
        reply: Sender<Analysis>,
    },
    /// Which of `mutants` at `indices` cannot compile.
    Viability {
        mutants: Arc<[Arc<Mutant>]>,
        indices: Vec<usize>,
        reply: Sender<Analysis>,
    },
    ReturnTypes {
        mutants: Vec<Arc<Mutant>>,
        reply: Sender<Vec<Option<String>>>,
    },
    OwnStubs {
        mutants: Vec<Arc<Mutant>>,
        reply: Sender<Vec<(usize, Mutant)>>,
    },
}

/// How the thread loads the model, again when needed.
struct Loader {
    root: PathBuf,
    cargo: CargoOptions,
    target_dir: PathBuf,
    env: Vec<(String, String)>,
}

impl Loader {
    fn load(&self) -> Result<Model, String> {
        Model::load(&self.root, &self.cargo, (&self.target_dir, &self.env))
            .map_err(|why| why.to_string())
    }
}

impl WarmModel {
    /// Starts loading the cargo workspace copied at `root` (a scratch
    /// tree), building build scripts into `target_dir` with `env`.
    pub fn start(
        root: PathBuf,
        cargo: CargoOptions,
        (target_dir, env): (PathBuf, Vec<(String, String)>),
    ) -> WarmModel {
        let readiness = Arc::new(Mutex::new(Readiness::Loading));
        let (requests, receiver) = mpsc::channel();
        let loader = Loader {
            root,
            cargo,
            target_dir,
            env,
        };
        let shared = readiness.clone();
        let thread = std::thread::Builder::new()
            .name("mutiny-model".into())
            .spawn(move || serve(&loader, &shared, &receiver))
            .ok();
        if thread.is_none() {
            *lock(&readiness) = Readiness::Unavailable("cannot start a thread".into());
        }
        WarmModel {
            readiness,
            requests: Some(requests),
            thread,
        }
    }

    pub fn readiness(&self) -> Readiness {
        lock(&self.readiness).clone()
    }

    /// Tells the model that these files of the scratch tree changed.
    pub fn changed(&self, relative_paths: Vec<String>) {
        if !relative_paths.is_empty() {
            self.send(Request::Changed(relative_paths));
        }
    }

    /// Judges `mutants` (at `places`) on the model's thread, as the lab
    /// asks: the feed, or `None` while the model is not ready.
    pub fn judge(&self, mutants: &[Arc<Mutant>], places: Vec<CfgPlace>) -> Option<AnalysisFeed> {
        if !matches!(self.readiness(), Readiness::Ready(_)) {
            return None;
        }
        let requests = self.requests.clone()?;
        let under_cfgs = under_cfgs(&places);
        let suspects = super::suspects(mutants);
        let (reply, cfgs) = mpsc::channel();
        requests.send(Request::Cfgs { places, reply }).ok()?;
        let mutants: Arc<[Arc<Mutant>]> = mutants.into();
        let ask: AskViability = Box::new(move |indices| {
            let (reply, answer) = mpsc::channel();
            let request = Request::Viability {
                mutants,
                indices,
                reply,
            };
            requests.send(request).ok()?;
            Some(answer)
        });
        Some(AnalysisFeed::new(cfgs, ask, (under_cfgs, suspects)))
    }

    /// The resolved return type of each mutant's function (see
    /// [`Model::return_types`]); all `None` while the model is not ready.
    pub fn return_types(&self, mutants: &[Arc<Mutant>]) -> Vec<Option<String>> {
        let none = || vec![None; mutants.len()];
        if !matches!(self.readiness(), Readiness::Ready(_)) {
            return none();
        }
        let (reply, receiver) = mpsc::channel();
        self.send(Request::ReturnTypes {
            mutants: mutants.to_vec(),
            reply,
        });
        receiver.recv().unwrap_or_else(|_| none())
    }

    /// mutiny's own stubs for the functions of `mutants` (see
    /// [`Model::own_stubs`]); none while the model is not ready.
    pub fn own_stubs(&self, mutants: &[Arc<Mutant>]) -> Vec<(usize, Mutant)> {
        if !matches!(self.readiness(), Readiness::Ready(_)) {
            return Vec::new();
        }
        let (reply, receiver) = mpsc::channel();
        self.send(Request::OwnStubs {
            mutants: mutants.to_vec(),
            reply,
        });
        receiver.recv().unwrap_or_default()
    }

    fn send(&self, request: Request) {
        if let Some(requests) = &self.requests {
            let _ = requests.send(request);
        }
    }
}

impl Drop for WarmModel {
    fn drop(&mut self) {
        self.requests = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn lock(readiness: &Mutex<Readiness>) -> std::sync::MutexGuard<'_, Readiness> {
    readiness
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The model's thread: loads, then answers requests until the handle goes.
fn serve(loader: &Loader, readiness: &Mutex<Readiness>, requests: &Receiver<Request>) {
    let mut model = load(loader, readiness);
    while let Ok(request) = requests.recv() {
        match request {
            Request::Changed(paths) => {
                let Some(current) = &mut model else {
                    continue;
                };
                if !take_in_place(current, &loader.root, &paths) {
                    *lock(readiness) = Readiness::Loading;
                    model = load(loader, readiness);
                }
            }
            Request::Cfgs { places, reply } => {
                let analysis = match &model {
                    Some(model) => judge_cfgs(model, &places, Purpose::Run),
                    None => Analysis::default(),
                };
                let _ = reply.send(analysis);
            }
            Request::Viability {
                mutants,
                indices,
                reply,
            } => {
                let mut send = |part| {
                    let _ = reply.send(part);
                };
                match &mut model {
                    Some(model) => {
                        judge_viability(model, &mutants, &indices, Purpose::Run, &mut send);
                    }
                    None => send(Analysis::default()),
                }
            }
            Request::ReturnTypes { mutants, reply } => {
                let types = match &mut model {
                    Some(model) => model.return_types(&mutants),
                    None => vec![None; mutants.len()],
                };
                let _ = reply.send(types);
            }
            Request::OwnStubs { mutants, reply } => {
                let own = match &mut model {
                    Some(model) => model.own_stubs(&mutants),
                    None => Vec::new(),
                };
                let _ = reply.send(own);
            }
        }
    }
}

fn load(loader: &Loader, readiness: &Mutex<Readiness>) -> Option<Model> {
    let loaded = loader.load();
    *lock(readiness) = match &loaded {
        Ok(model) => Readiness::Ready(model.load_time),
        Err(why) => Readiness::Unavailable(why.clone()),
    };
    loaded.ok()
}

/// Gives the model the new text of each changed file; false when a change
/// needs loading again: a manifest (dependencies, features, targets), a
/// file the model does not hold, or one gone.
fn take_in_place(model: &mut Model, root: &std::path::Path, paths: &[String]) -> bool {
    paths.iter().all(|relative| {
        if relative.ends_with("Cargo.toml") || relative.ends_with("Cargo.lock") {
            return false;
        }
        if !relative.ends_with(".rs") {
            return true;
        }
        match std::fs::read_to_string(root.join(relative)) {
            Ok(text) => model.update_file(relative, &text),
            Err(_) => false,
        }
    })
}
