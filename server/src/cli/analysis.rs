//! rust-analyzer's analysis for the command line: started beside the lab
//! by `run`, and on its own scratch copy by `list --analysis`.

use std::sync::mpsc::Receiver;
use std::sync::Arc;

use mutiny::lab::{Analysis, Lab};
use mutiny::mutate::Mutant;
use mutiny::semantic::{analyse, CfgPlace, Model, Purpose};

/// Starts rust-analyzer's analysis of the mutants on a thread of its own
/// (it loads the scratch copy, where cargo may write), for the lab's run to
/// rule out those that cannot compile before it builds any alone: returns
/// a guard that waits for the thread (so it must go before the lab and its
/// scratch tree) and where the analysis arrives. Without a model, every
/// mutant is built, as cargo-mutants does.
pub fn start_analysis(
    lab: &Lab,
    mutants: &[Arc<Mutant>],
    places: Vec<CfgPlace>,
    purpose: Purpose,
) -> Option<(Joined, Receiver<Analysis>)> {
    if !Model::judges_any(mutants) && !places.iter().any(CfgPlace::has_cfgs) {
        return None;
    }
    let root = lab.scratch_root().to_owned();
    let cargo = lab.cargo_options().clone();
    let (target_dir, env) = lab.analysis_build();
    let mutants = mutants.to_vec();
    let (sender, receiver) = std::sync::mpsc::channel();
    let thread = std::thread::Builder::new()
        .name("mutiny-analysis".into())
        .spawn(move || {
            let analysis = match Model::load(&root, &cargo, (&target_dir, &env)) {
                Ok(mut model) => analyse(&mut model, &mutants, &places, purpose),
                Err(why) => Analysis {
                    note: match purpose {
                        Purpose::Run => format!("note: {why}; every mutant is built"),
                        Purpose::List => format!("note: {why}; no mutant is marked"),
                    },
                    ..Analysis::default()
                },
            };
            let _ = sender.send(analysis);
        })
        .ok()?;
    Some((Joined(Some(thread)), receiver))
}

/// A thread joined when dropped.
pub struct Joined(Option<std::thread::JoinHandle<()>>);

impl Drop for Joined {
    fn drop(&mut self) {
        if let Some(thread) = self.0.take() {
            let _ = thread.join();
        }
    }
}
