//! rust-analyzer's analysis for the command line: started beside the lab
//! by `run`, and on its own scratch copy by `list --analysis`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::Arc;

use mutiny::lab::{Analysis, AnalysisFeed, AskViability, Lab};
use mutiny::mutate::Mutant;
use mutiny::semantic::{
    judge_cfgs, judge_viability, suspects, under_cfgs, CfgPlace, Model, Purpose,
};

use super::own::Preloaded;

/// Starts rust-analyzer's analysis of the mutants on a thread of its own
/// (it loads the scratch copy, where cargo may write): once loaded, it
/// sends the cfg verdicts, then judges the viability of the mutants the
/// feed asks about, if any. Returns a guard that waits for the thread (so
/// it must go before the lab and its scratch tree, and after the feed)
/// and the feed. Without a model, every mutant is built, as cargo-mutants
/// does. A `preloaded` model (the own stubs') is taken as it is: nothing
/// is loaded again.
pub fn start_analysis(
    lab: &mut Lab,
    mutants: &[Arc<Mutant>],
    places: Vec<CfgPlace>,
    (purpose, preloaded): (Purpose, Option<Preloaded>),
) -> Option<(Joined, AnalysisFeed)> {
    if !Model::judges_any(mutants) && !places.iter().any(CfgPlace::has_cfgs) {
        return None;
    }
    let root = lab.scratch_root().to_owned();
    let cargo = lab.cargo_options().clone();
    let (target_dir, env) = lab.analysis_build();
    // A run's build scripts' outputs come from the lab's first build; a
    // list builds nothing.
    let after_build =
        (purpose == Purpose::Run && preloaded.is_none()).then(|| lab.share_first_build());
    let mutants = mutants.to_vec();
    let under_cfgs = under_cfgs(&places);
    let suspects = suspects(&mutants);
    let (cfgs_sender, cfgs) = mpsc::channel();
    let (ask_sender, asks) = mpsc::channel::<(Vec<usize>, Sender<Analysis>)>();
    let preloaded = preloaded.map(Preloaded::into_model);
    let judging = Arc::new(AtomicBool::new(false));
    let judging_flag = judging.clone();
    let thread = std::thread::Builder::new()
        .name("mutiny-analysis".into())
        .spawn(move || {
            hold_for_tests("MUTINY_HOLD_ANALYSIS", "analysis");
            let loaded = match preloaded {
                Some(mut model) => {
                    model.reused = true;
                    Ok(model)
                }
                None => load(&root, &cargo, (&target_dir, &env), after_build),
            };
            match loaded {
                Ok(mut model) => {
                    let _ = cfgs_sender.send(judge_cfgs(&model, &places, purpose));
                    // Until the feed asks, or goes without asking.
                    if let Ok((indices, reply)) = asks.recv() {
                        judging_flag.store(true, Ordering::SeqCst);
                        hold_for_tests("MUTINY_HOLD_VIABILITY", "viability");
                        let mut send = |part| {
                            let _ = reply.send(part);
                        };
                        judge_viability(&mut model, &mutants, &indices, purpose, &mut send);
                    }
                }
                Err(why) => {
                    let _ = cfgs_sender.send(Analysis {
                        note: match purpose {
                            Purpose::Run => format!("note: {why}; every mutant is built"),
                            Purpose::List => format!("note: {why}; no mutant is marked"),
                        },
                        ..Analysis::default()
                    });
                }
            }
        })
        .ok()?;
    let ask: AskViability = Box::new(move |indices| {
        let (reply, answer) = mpsc::channel();
        ask_sender.send((indices, reply)).ok()?;
        Some(answer)
    });
    Some((
        Joined {
            thread: Some(thread),
            judging,
        },
        AnalysisFeed::new(cfgs, ask, (under_cfgs, suspects)),
    ))
}

/// `MUTINY_HOLD_ANALYSIS=PATH` (before the analysis loads) and
/// `MUTINY_HOLD_VIABILITY=PATH` (before it judges viability): the analysis
/// waits (a minute at most) for PATH to exist, then writes to
/// `PATH.<extension>` whether it was released or gave up. Tests use them to
/// check that mutants are tested before the analysis answers.
fn hold_for_tests(variable: &str, extension: &str) {
    let Some(marker) = std::env::var_os(variable).map(std::path::PathBuf::from) else {
        return;
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !marker.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let said = match marker.exists() {
        true => "released by a mutant's test",
        false => "gave up waiting",
    };
    let _ = std::fs::write(marker.with_extension(extension), said);
}

/// The model, its build scripts run after the lab's first build when
/// `after_build` is given, else by rust-analyzer at once.
fn load(
    root: &std::path::Path,
    cargo: &mutiny::lab::cargo::CargoOptions,
    build: (&std::path::Path, &[(String, String)]),
    after_build: Option<mpsc::Receiver<Option<std::path::PathBuf>>>,
) -> Result<Model, mutiny::semantic::Unavailable> {
    match after_build {
        Some(after_build) => Model::load_after_build(root, cargo, build, after_build),
        None => Model::load(root, cargo, build),
    }
}

/// The analysis thread, joined when dropped, unless it is judging
/// viability then: every mutant has its verdict by the time the feed goes,
/// and the judgement, in memory only (no process, no file), would only
/// keep the run waiting.
pub struct Joined {
    thread: Option<std::thread::JoinHandle<()>>,
    judging: Arc<AtomicBool>,
}

impl Drop for Joined {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            if thread.is_finished() || !self.judging.load(Ordering::SeqCst) {
                let _ = thread.join();
            }
        }
    }
}
