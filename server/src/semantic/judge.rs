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
    let mut files = ParsedFiles::default();
    mutants
        .iter()
        .enumerate()
        .filter(|(_, mutant)| Model::may_deny(mutant, files.of(mutant)))
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
    let not_run = model.build_scripts_not_run();
    let mut note = format!(
        "rust-analyzer: loaded in {:.1}s{}",
        model.load_time.as_secs_f64(),
        match (model.reused, not_run.is_empty()) {
            (false, _) => String::new(),
            (true, true) => " (once, for the own stubs and this analysis)".to_owned(),
            (true, false) => format!(
                " (once, for the own stubs and this analysis; without the build scripts \
                 of {}: it judges nothing that relies on their crates)",
                not_run.join(", ")
            ),
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

/// Which of the mutants at `indices` (of `mutants`) cannot compile, sent
/// in parts as they are judged: the mutants outside constants' values
/// together first, then each in a constant's value alone (an evaluation
/// may run long: a mutated loop that never ends runs to the evaluator's
/// limit), so that a build waiting for one answer does not wait for all.
/// Each part says which mutants it answers; the last has the note.
pub fn judge_viability(
    model: &mut Model,
    mutants: &[Arc<Mutant>],
    indices: &[usize],
    purpose: Purpose,
    send: &mut dyn FnMut(Analysis),
) {
    let start = std::time::Instant::now();
    let mut unviable_count = 0;
    let parts = parts(mutants, indices);
    let last = parts.len().saturating_sub(1);
    for (number, part) in parts.into_iter().enumerate() {
        let asked: Vec<Arc<Mutant>> = part.iter().map(|&index| mutants[index].clone()).collect();
        let unviable: BTreeMap<usize, String> = part
            .iter()
            .zip(model.predict(&asked))
            .filter_map(|(&index, prediction)| match prediction {
                Prediction::Unviable(why) => Some((index, why)),
                Prediction::Unknown => None,
            })
            .collect();
        unviable_count += unviable.len();
        let note = match number == last {
            true => {
                let not_built = match purpose {
                    Purpose::Run => " and are not built",
                    Purpose::List => "",
                };
                format!(
                    "rust-analyzer: {unviable_count} mutants cannot compile{not_built} \
                     (checked {} in {:.1}s)",
                    indices.len(),
                    start.elapsed().as_secs_f64()
                )
            }
            false => String::new(),
        };
        send(Analysis {
            note,
            unviable,
            checked: part.into_iter().collect(),
            ..Analysis::default()
        });
    }
}

/// `indices` in the parts [`judge_viability`] answers: those outside
/// constants' values first, then each in a constant's value alone. Never
/// empty: a single empty part when there is nothing to judge.
fn parts(mutants: &[Arc<Mutant>], indices: &[usize]) -> Vec<Vec<usize>> {
    let mut files = ParsedFiles::default();
    let (constants, others): (Vec<usize>, Vec<usize>) = indices.iter().partition(|&&index| {
        super::consts::in_const_value(files.of(&mutants[index]), &mutants[index])
    });
    let mut parts = vec![others];
    parts.extend(constants.into_iter().map(|index| vec![index]));
    if parts.len() > 1 && parts[0].is_empty() {
        parts.remove(0);
    }
    parts
}

/// Each mutated file's syntax, parsed once.
#[derive(Default)]
struct ParsedFiles(std::collections::HashMap<String, ra_ap_syntax::ast::SourceFile>);

impl ParsedFiles {
    fn of(&mut self, mutant: &Mutant) -> &ra_ap_syntax::ast::SourceFile {
        self.0
            .entry(mutant.source_file.path.clone())
            .or_insert_with(|| {
                ra_ap_syntax::SourceFile::parse(
                    &mutant.source_file.code,
                    ra_ap_syntax::Edition::CURRENT,
                )
                .tree()
            })
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

    #[test]
    fn mutants_in_constants_values_are_judged_last_each_alone() {
        let code = "pub fn n(a: u32) -> u32 { a + 1 }\n\
            const C: u32 = 6 - 2;\n\
            pub fn m(a: u32) -> u32 { a * 3 }\n";
        let mutants = crate::mutate::lib_mutants(code);
        let indices: Vec<usize> = (0..mutants.len()).collect();
        let names = |part: &Vec<usize>| -> Vec<String> {
            part.iter().map(|&i| mutants[i].name.clone()).collect()
        };
        let parts = parts(&mutants, &indices);
        let constants: Vec<&str> = mutants
            .iter()
            .map(|m| m.name.as_str())
            .filter(|name| name.starts_with("src/lib.rs:2:"))
            .collect();
        assert_eq!(constants.len(), 2, "{constants:?}");
        assert_eq!(parts.len(), 3, "{parts:?}");
        assert_eq!(parts[0].len(), mutants.len() - 2, "{:?}", names(&parts[0]));
        assert!(names(&parts[0])
            .iter()
            .all(|n| !n.starts_with("src/lib.rs:2:")));
        assert_eq!(names(&parts[1]), [constants[0]]);
        assert_eq!(names(&parts[2]), [constants[1]]);
        // Nothing to judge: one empty part, which carries the note.
        assert_eq!(super::parts(&mutants, &[]), vec![Vec::<usize>::new()]);
    }
}
