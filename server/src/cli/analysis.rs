//! rust-analyzer's analysis for the command line: started beside the lab
//! by `run`, and on its own scratch copy by `list --analysis`.

use std::collections::BTreeMap;
use std::sync::mpsc::Receiver;
use std::sync::Arc;

use mutiny::lab::{Analysis, Lab};
use mutiny::mutate::Mutant;
use mutiny::semantic::{CfgPlace, Model, Prediction};
use mutiny::sources::Declarations;

/// What the analysis is for: its note says what follows from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// `run`: judged mutants are not built, or not tested.
    Run,
    /// `list --analysis`: judged mutants are marked.
    List,
}

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

/// Where each mutant is, as cfgs see it.
pub fn cfg_places(mutants: &[Arc<Mutant>], declarations: &Declarations) -> Vec<CfgPlace> {
    let mut places = vec![CfgPlace::default(); mutants.len()];
    let mut by_file: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (index, mutant) in mutants.iter().enumerate() {
        by_file
            .entry(mutant.source_file.path.as_str())
            .or_default()
            .push(index);
    }
    for indices in by_file.values() {
        let source_file = &mutants[indices[0]].source_file;
        let ranges: Vec<_> = indices.iter().map(|&i| mutants[i].range.clone()).collect();
        let cfgs = mutiny::mutate::cfgs_at(source_file, &ranges);
        for (&index, in_file) in indices.iter().zip(cfgs) {
            places[index] = CfgPlace {
                package: source_file.package.clone(),
                path: source_file.path.clone(),
                in_file,
                declarations: declarations.of(&source_file.path).to_vec(),
            };
        }
    }
    places
}

fn analyse(
    model: &mut Model,
    mutants: &[Arc<Mutant>],
    places: &[CfgPlace],
    purpose: Purpose,
) -> Analysis {
    let start = std::time::Instant::now();
    let not_compiled: BTreeMap<usize, String> = model
        .not_compiled(places)
        .into_iter()
        .enumerate()
        .filter_map(|(index, why)| Some((index, why?)))
        .collect();
    let unviable: BTreeMap<usize, String> = model
        .predict(mutants)
        .into_iter()
        .enumerate()
        .filter_map(|(index, prediction)| match prediction {
            Prediction::Unviable(why) => Some((index, why)),
            Prediction::Unknown => None,
        })
        .collect();
    let (not_built, not_tested) = match purpose {
        Purpose::Run => (" and are not built", " and are not tested"),
        Purpose::List => ("", ""),
    };
    let mut note = format!(
        "rust-analyzer: {} mutants cannot compile{not_built}",
        unviable.len()
    );
    if !not_compiled.is_empty() {
        note.push_str(&format!(
            "; {} are in code not compiled for this target{not_tested}",
            not_compiled.len()
        ));
    }
    note.push_str(&format!(
        " (loaded in {:.1}s, checked in {:.1}s)",
        model.load_time.as_secs_f64(),
        start.elapsed().as_secs_f64()
    ));
    Analysis {
        unviable,
        not_compiled,
        note,
    }
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
