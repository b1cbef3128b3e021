//! Turns the model's answers into the lab's [`Analysis`]: which mutants
//! cannot compile, which are in code not compiled for this target, and a
//! note for the user. Shared by the command line and the language server.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{CfgPlace, Model, Prediction};
use crate::lab::Analysis;
use crate::mutate::Mutant;
use crate::sources::Declarations;

/// What the analysis is for: its note says what follows from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// `run`: judged mutants are not built, or not tested.
    Run,
    /// `list --analysis`: judged mutants are marked.
    List,
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
        let cfgs = crate::mutate::cfgs_at(source_file, &ranges);
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

/// Judges `mutants` (at `places`) with the model.
pub fn analyse(
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
