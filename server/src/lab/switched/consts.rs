//! Constants in the switched build: which const fns lose their `const`
//! (none that some code may call at compile time), and where the uses of
//! a constant of a module or an impl choose the copy holding a mutant.
//! Both read every file of the packages, once per build.

use std::collections::HashMap;
use std::sync::Arc;

use super::{unconst_name, ConstFns, Plan};
use crate::lab::Lab;
use crate::mutate::crate_const::{self, Wanted};
use crate::mutate::{kept_const, removable_consts, Mutant, ScanFile, Switch};

/// The largest Markdown or text file read as documentation.
const LARGEST_SCANNED: u64 = 1 << 20;

/// A file of a package, as the switched build would see it.
pub(super) struct PackageText {
    /// Relative to the workspace root, `/`-separated.
    path: String,
    /// Relative to its package's directory.
    in_package: String,
    /// The package's index in the lab's packages.
    package: usize,
    text: Arc<str>,
    /// Rust source, else Markdown or text a crate may include as
    /// documentation (not a test's data files, which may be many).
    rust: bool,
}

/// The packages' files, read once when first asked for.
pub(super) type Texts = Option<Vec<PackageText>>;

impl Lab {
    /// Every Rust, Markdown and text file of the packages; a file that a
    /// mutant is in has the mutant's text.
    fn package_texts<'t>(
        &self,
        mutants: &[Arc<Mutant>],
        texts: &'t mut Texts,
    ) -> &'t [PackageText] {
        texts.get_or_insert_with(|| {
            let in_memory: HashMap<&str, &Arc<str>> = mutants
                .iter()
                .map(|m| (m.source_file.path.as_str(), &m.source_file.code))
                .collect();
            let mut found = Vec::new();
            for (package, p) in self.packages.iter().enumerate() {
                let dir = self.source_root.join(&p.dir);
                for path in super::super::trim::package_files(&dir).unwrap_or_default() {
                    let (Ok(relative), Ok(in_package)) = (
                        path.strip_prefix(&self.source_root),
                        path.strip_prefix(&dir),
                    ) else {
                        continue;
                    };
                    let relative = relative.to_string_lossy().replace('\\', "/");
                    let in_package = in_package.to_string_lossy().replace('\\', "/");
                    let rust = match path.extension().and_then(|e| e.to_str()) {
                        Some("rs") => true,
                        Some("md" | "markdown" | "txt")
                            if std::fs::metadata(&path)
                                .is_ok_and(|m| m.len() <= LARGEST_SCANNED) =>
                        {
                            false
                        }
                        _ => continue,
                    };
                    let text = match in_memory.get(relative.as_str()) {
                        Some(code) => Arc::clone(code),
                        None => match std::fs::read_to_string(&path) {
                            Ok(text) => Arc::from(text),
                            Err(_) => continue,
                        },
                    };
                    found.push(PackageText {
                        path: relative,
                        in_package,
                        package,
                        text,
                        rust,
                    });
                }
            }
            found
        })
    }

    /// Takes out of the switched build the mutants of const fns that must
    /// stay const: some code may call them at compile time (as the syntax
    /// of the packages' files shows).
    pub(super) fn keep_called_consts(
        &self,
        mutants: &[Arc<Mutant>],
        plan: &mut Plan,
        texts: &mut Texts,
    ) {
        // The files the switched build rewrites for its mutants, with the
        // const fns it may make plain in each (all of them, so that none
        // that stays const calls one that does not).
        let mut removable: HashMap<String, ConstFns> = HashMap::new();
        for &index in &plan.switched {
            let file = &mutants[index].source_file;
            removable
                .entry(file.path.clone())
                .or_insert_with(|| removable_consts(&file.code, file.edition));
        }
        if removable.values().all(Vec::is_empty) {
            return;
        }
        let files: Vec<(Vec<usize>, &PackageText)> = self
            .package_texts(mutants, texts)
            .iter()
            .map(|file| {
                let marks = removable
                    .get(&file.path)
                    .map(|fns| fns.iter().map(|(_, keyword)| keyword.start).collect())
                    .unwrap_or_default();
                (marks, file)
            })
            .collect();
        let scanned: Vec<ScanFile> = files
            .iter()
            .map(|(marks, file)| match file.rust {
                true => ScanFile::Rust(&file.text, marks),
                false => ScanFile::Text(&file.text),
            })
            .collect();
        let kept = kept_const(&scanned);
        for index in plan.switched.clone() {
            let Some(name) = unconst_name(&mutants[index]).filter(|n| kept.contains(*n)) else {
                continue;
            };
            plan.switched.remove(&index);
            plan.alone.insert(
                index,
                format!("it is in a const fn that may run at compile time (`{name}` is named where code runs at compile time)"),
            );
        }
        plan.unconst = removable
            .into_iter()
            .map(|(path, fns)| {
                let fns = fns.into_iter().filter(|(name, _)| !kept.contains(name));
                (path, fns.collect())
            })
            .collect();
    }

    /// Finds the uses of the constant of each switched `CrateConst`
    /// mutant in the packages' files (`plan.const_uses`), or takes the
    /// mutant out of the switched build with the reason: each use must be
    /// a value in run-time code of its package's `src/` (a const fn that
    /// loses its `const` counts), where the copy is in reach and the
    /// switch module is compiled. An example or bench that `cargo test`
    /// only builds may name it: it never runs there.
    pub(super) fn place_crate_consts(
        &self,
        mutants: &[Arc<Mutant>],
        plan: &mut Plan,
        texts: &mut Texts,
    ) {
        let wanted: Vec<usize> = plan
            .switched
            .iter()
            .copied()
            .filter(|&i| matches!(mutants[i].switch, Switch::CrateConst { .. }))
            .collect();
        if wanted.is_empty() {
            return;
        }
        let untested_targets = self.only_built_targets();
        let files = self.package_texts(mutants, texts);
        // Each mutant on its own: a divisor's check needs its value.
        for index in wanted {
            let mutant = &mutants[index];
            let Switch::CrateConst {
                name, owner, value, ..
            } = &mutant.switch
            else {
                continue;
            };
            let within = |file: &PackageText| {
                self.packages[file.package].name == mutant.source_file.package
                    && file.in_package.starts_with("src/")
            };
            let wanted = Wanted {
                name: &mutant.source_file.code[name.clone()],
                owner: owner.as_deref(),
                value: *value,
                declared: None,
            };
            let uses = files.iter().try_fold(Vec::new(), |mut all, file| {
                if !file.rust {
                    return match crate_const::names(&file.text, wanted.name) {
                        true => Err(format!("{} names it, and a doctest may use it", file.path)),
                        false => Ok(all),
                    };
                }
                if !within(file) && untested_targets && only_built(&file.in_package) {
                    return Ok(all);
                }
                let here = Wanted {
                    declared: (file.path == mutant.source_file.path).then(|| name.clone()),
                    ..wanted.clone()
                };
                let edition = self.packages[file.package].edition;
                match crate_const::uses_in(&file.text, edition, &here) {
                    Ok(uses) if uses.is_empty() => Ok(all),
                    Ok(_) if !within(file) => {
                        Err(format!("{} uses it, outside its package's src/", file.path))
                    }
                    Ok(uses) => {
                        for found in uses {
                            let plain = found.const_fn.as_ref().is_none_or(|keyword| {
                                plan.unconst
                                    .get(&file.path)
                                    .is_some_and(|fns| fns.iter().any(|(_, k)| k == keyword))
                            });
                            if !plain {
                                return Err(format!(
                                    "{}: a use is in a const fn that stays const",
                                    file.path
                                ));
                            }
                            all.push((file, found.path));
                        }
                        Ok(all)
                    }
                    Err(why) => Err(format!("{}: {why}", file.path)),
                }
            });
            match uses {
                Ok(uses) => {
                    for (file, range) in uses {
                        plan.const_uses
                            .entry(file.path.clone())
                            .or_insert_with(|| (Arc::clone(&file.text), Vec::new()))
                            .1
                            .push((index, range));
                    }
                }
                Err(why) => {
                    plan.switched.remove(&index);
                    plan.alone.insert(
                        index,
                        format!(
                            "it is in a const item, and not every use can choose a copy: {why}"
                        ),
                    );
                }
            }
        }
    }

    /// Whether `cargo test` only builds the packages' examples and
    /// benches, never runs them: no target asks to be tested (`test =
    /// true`) and no test argument selects them.
    fn only_built_targets(&self) -> bool {
        let selects = |arg: &String| {
            matches!(
                arg.as_str(),
                "--examples" | "--example" | "--benches" | "--bench" | "--all-targets"
            )
        };
        let cargo = &self.options.cargo;
        if cargo
            .additional_cargo_args
            .iter()
            .chain(&cargo.additional_test_args)
            .any(selects)
        {
            return false;
        }
        self.packages.iter().all(|p| {
            let manifest = self.source_root.join(&p.dir).join("Cargo.toml");
            std::fs::read_to_string(manifest).is_ok_and(|text| {
                !text.lines().any(|line| {
                    line.split('#').next().unwrap_or("").replace(' ', "") == "test=true"
                })
            })
        })
    }
}

/// Whether a file (its path in its package) is an example's or a bench's.
fn only_built(in_package: &str) -> bool {
    in_package.starts_with("examples/") || in_package.starts_with("benches/")
}
