//! Turns the model's answers into the lab's [`Analysis`]: which mutants
//! cannot compile, which are in code not compiled for this target, and a
//! note for the user. Shared by the command line and the language server.

use std::collections::{BTreeMap, BTreeSet};
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

/// The mutants (by index) whose viability the analysis may deny: only
/// before building one of these is its answer worth waiting for; of the
/// others it says nothing ([`Model::predict`] passes them by).
pub fn suspects(mutants: &[Arc<Mutant>]) -> BTreeSet<usize> {
    let mut parsed: std::collections::HashMap<&str, ra_ap_syntax::ast::SourceFile> =
        std::collections::HashMap::new();
    mutants
        .iter()
        .enumerate()
        .filter(|(_, mutant)| {
            let source = parsed
                .entry(mutant.source_file.path.as_str())
                .or_insert_with(|| {
                    ra_ap_syntax::SourceFile::parse(
                        &mutant.source_file.code,
                        ra_ap_syntax::Edition::CURRENT,
                    )
                    .tree()
                });
            Model::may_deny(mutant, source)
        })
        .map(|(index, _)| index)
        .collect()
}

/// The mutants (by index) at `places` under some cfg: the only ones
/// [`judge_cfgs`] can call not compiled.
pub fn under_cfgs(places: &[CfgPlace]) -> BTreeSet<usize> {
    places
        .iter()
        .enumerate()
        .filter(|(_, place)| place.has_cfgs())
        .map(|(index, _)| index)
        .collect()
}

/// Which mutants' code is not compiled for this target (those at
/// `places`), with a note saying so and how long the model took to load.
pub fn judge_cfgs(model: &Model, places: &[CfgPlace], purpose: Purpose) -> Analysis {
    let not_compiled: BTreeMap<usize, String> = model
        .not_compiled(places)
        .into_iter()
        .enumerate()
        .filter_map(|(index, why)| Some((index, why?)))
        .collect();
    let mut note = format!(
        "rust-analyzer: loaded in {:.1}s{}",
        model.load_time.as_secs_f64(),
        match model.reused {
            true => " (once, for the own stubs and this analysis)",
            false => "",
        }
    );
    if !not_compiled.is_empty() {
        let not_tested = match purpose {
            Purpose::Run => " and are not tested",
            Purpose::List => "",
        };
        note.push_str(&format!(
            "; {} mutants are in code not compiled for this target{not_tested}",
            not_compiled.len()
        ));
    }
    Analysis {
        not_compiled,
        note,
        ..Analysis::default()
    }
}

/// Which of the mutants at `indices` (of `mutants`) cannot compile, with a
/// note.
pub fn judge_viability(
    model: &mut Model,
    mutants: &[Arc<Mutant>],
    indices: &[usize],
    purpose: Purpose,
) -> Analysis {
    let start = std::time::Instant::now();
    let asked: Vec<Arc<Mutant>> = indices
        .iter()
        .map(|&index| mutants[index].clone())
        .collect();
    let unviable: BTreeMap<usize, String> = indices
        .iter()
        .zip(model.predict(&asked))
        .filter_map(|(&index, prediction)| match prediction {
            Prediction::Unviable(why) => Some((index, why)),
            Prediction::Unknown => None,
        })
        .collect();
    let not_built = match purpose {
        Purpose::Run => " and are not built",
        Purpose::List => "",
    };
    Analysis {
        note: format!(
            "rust-analyzer: {} mutants cannot compile{not_built} (checked {} in {:.1}s)",
            unviable.len(),
            indices.len(),
            start.elapsed().as_secs_f64()
        ),
        unviable,
        ..Analysis::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suspects_are_the_mutants_the_viability_answer_may_rule_out() {
        let code = "pub struct P(u32);\n\
            pub fn p() -> P { P(1) }\n\
            pub fn n(a: u32) -> u32 { a + 1 }\n\
            const C: u32 = 6 - 2;\n\
            pub fn s(a: u32) -> u32 { a << 3 }\n";
        let mutants = crate::mutate::lib_mutants(code);
        let suspected: Vec<&str> = suspects(&mutants)
            .into_iter()
            .map(|index| mutants[index].name.as_str())
            .collect();
        let all: Vec<&str> = mutants.iter().map(|m| m.name.as_str()).collect();
        let expect = |name: &str, suspected_too: bool| {
            assert!(all.contains(&name), "{name} not among {all:?}");
            assert_eq!(
                suspected.contains(&name),
                suspected_too,
                "{name}: {suspected:?}"
            );
        };
        // A stub that may not fit, an operator whose trait may be missing,
        // arithmetic in a constant's value, a shift amount.
        expect(
            "src/lib.rs:2:19: replace p -> P with Default::default()",
            true,
        );
        expect("src/lib.rs:3:29: replace + with - in n", true);
        expect("src/lib.rs:4:18: replace - with +", true);
        expect("src/lib.rs:5:29: replace << with >> in s", true);
        // Of a plain literal, the answer says nothing.
        expect("src/lib.rs:3:27: replace n -> u32 with 0", false);
    }
}
