//! mutiny's own type-aware stubs on the command line: before the list of
//! mutants is final (and so before `--in-diff`, `--shard` and the run),
//! rust-analyzer loads a scratch copy of the workspace, signatures only
//! (no build script or proc macro is built: that would be a build before
//! the build), and offers values of each function's resolved return type.

use std::time::Instant;

use mutiny::lab::cargo::{self, CargoOptions};
use mutiny::lab::scratch::{self, CopyOptions, ScratchTree};
use mutiny::lab::trim::LeftOut;
use mutiny::mutate::{self, Genre, Mutant, Switch, ValueIndex};
use mutiny::semantic::Model;
use mutiny::workspace::Workspace;

/// Why a mutant whose `Default::default()` stands for a type without
/// `Default` is built alone.
const DEFAULT_LACKING: &str =
    "its Default::default() stands for a type rust-analyzer finds without Default: it would break the switched build";

/// A model that the own stubs loaded and that serves the analysis (the
/// crate graph has no proc macro, and only dependencies have build
/// scripts, whose crates it does not trust; see
/// `Model::serves_analysis`): the analysis takes it as it is instead of
/// loading the workspace again. It lives in memory: the scratch copy it
/// loaded is gone.
pub struct Preloaded(Model);

impl Preloaded {
    /// The model.
    pub fn into_model(self) -> Model {
        self.0
    }
}

/// What [`add_own_stubs`] gives: the mutants, a line for the user, and the
/// model when it serves the analysis.
pub struct OwnStubs {
    pub mutants: Vec<Mutant>,
    pub note: Option<String>,
    pub preloaded: Option<Preloaded>,
}

/// `mutants` with mutiny's own stubs inserted after each function's
/// table stubs, and a line for the user: how many were added, or why
/// none could be. Nothing is loaded when no function returns a value.
pub fn add_own_stubs(
    workspace: &Workspace,
    (cargo_options, left_out): (&CargoOptions, Option<&LeftOut>),
    mutants: Vec<Mutant>,
) -> OwnStubs {
    let unchanged = |mutants, note| OwnStubs {
        mutants,
        note,
        preloaded: None,
    };
    if !loads_model(&mutants) {
        return unchanged(mutants, None);
    }
    let start = Instant::now();
    let copy = CopyOptions {
        copy_target: false,
        ..CopyOptions::default()
    };
    // rust-analyzer loads less without what only benchmarks use (the
    // lab's plan, or one made in this copy).
    let copied = ScratchTree::copy_from(&workspace.root, copy).and_then(|mut tree| {
        let left_out = left_out
            .cloned()
            .unwrap_or_else(|| LeftOut::plan(tree.root(), cargo_options));
        tree.leave_out(&workspace.root, left_out)?;
        Ok(tree)
    });
    let tree = match copied {
        Ok(tree) => tree,
        Err(err) => {
            let note = format!("note: no own stubs: cannot copy the workspace: {err:#}");
            return unchanged(mutants, Some(note));
        }
    };
    let root = tree.root().to_owned();
    let target_dir = scratch::command_tmp(&root).with_file_name("own-stubs-target");
    let env = cargo::env(&root, cargo_options);
    let model = Model::load_signatures(&root, cargo_options, (&target_dir, &env));
    match model {
        Ok(mut model) => {
            // Mutants that would fail a switched build take the classic
            // path from the start, which saves a build round; the analysis
            // after the build finds them unviable without building them.
            let breakers = model.default_breakers(&mutants);
            let own = model.own_stubs(&mutants);
            let mut mutants = mutants;
            for index in breakers {
                mutants[index].switch = Switch::Alone(DEFAULT_LACKING);
            }
            let added = own.len();
            let note = format!(
                "mutiny: {added} own type-aware stub{} from rust-analyzer's types ({:.1} s; \
                 --no-own-stubs leaves them out)",
                if added == 1 { "" } else { "s" },
                start.elapsed().as_secs_f64()
            );
            let mutants = mutate::with_own_stubs(mutants, own);
            // rust-analyzer read every file when it loaded: the copy can go.
            let _ = tree.delete();
            let preloaded = model.serves_analysis().then_some(Preloaded(model));
            OwnStubs {
                mutants,
                note: Some(note),
                preloaded,
            }
        }
        Err(why) => {
            let _ = tree.delete();
            unchanged(mutants, Some(format!("note: {why}; no own stubs")))
        }
    }
}

/// Whether looking for own stubs loads rust-analyzer: some function of
/// `mutants` returns a type that may have values of its own, as far as
/// the syntax of their files shows (`ValueIndex`).
pub fn loads_model(mutants: &[Mutant]) -> bool {
    let mut index: Option<ValueIndex> = None;
    mutants.iter().any(|m| {
        let Some(function) = m.function.as_ref().filter(|_| m.genre == Genre::FnValue) else {
            return false;
        };
        let words = return_words(function);
        !words.is_empty()
            && index
                .get_or_insert_with(|| ValueIndex::of(mutants))
                .may_have_values(function, &words, PLAIN)
    })
}

/// The words of a function's return type, as written, lifetimes left out.
fn return_words(function: &mutate::Function) -> Vec<&str> {
    function
        .return_type
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
        .filter(|word| !word.is_empty() && !word.starts_with('\'') && word != &"_")
        .collect()
}

/// Words of types from the standard library that have no values of their
/// own for rust-analyzer to find: primitives, strings, collections and
/// wrappers (all with `Default`, and no unit variants), and the words
/// around types.
const PLAIN: &[&str] = &[
    "bool",
    "char",
    "str",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "f32",
    "f64",
    "String",
    "Vec",
    "VecDeque",
    "HashMap",
    "HashSet",
    "BTreeMap",
    "BTreeSet",
    "Box",
    "Rc",
    "Arc",
    "Cow",
    "Option",
    "Result",
    "std",
    "core",
    "alloc",
    "collections",
    "string",
    "vec",
    "boxed",
    "rc",
    "sync",
    "borrow",
    "impl",
    "dyn",
    "mut",
    "const",
    "static",
    "Iterator",
    "Item",
    "Into",
    "AsRef",
    "Fn",
    "FnMut",
    "FnOnce",
];
