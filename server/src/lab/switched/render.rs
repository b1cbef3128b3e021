//! Source files that hold many mutants at once, each behind a run-time
//! switch, and the way back from a compiler error in such a file to the
//! mutants that may have caused it. Pure: text in, text out.
//!
//! An expression with mutants becomes
//! `(match crate::__mutiny_switch::active(&[17, 18]) { 17 => { a - b } 18 => { a * b } _ => { a + b } })`
//! (a function body the same, without the parentheses): one read of the
//! active id per site. Inner expressions with mutants are switched inside
//! every arm. A deleted match arm gets a guard,
//! `Pat if !crate::__mutiny_switch::on(19) => …`. Ids are the mutant's
//! index in the run plus one: 0 switches nothing on.

use std::collections::BTreeMap;
use std::ops::Range;

use crate::mutate::{Mutant, Switch};

/// The module every switched crate gets at the end of its root file.
pub const MODULE: &str = "__mutiny_switch";

/// What `on(id)` reads: the id of the mutant switched on.
pub const ACTIVE_VAR: &str = "MUTINY_ACTIVE";

/// When set, a file to which each switch site's id is appended the first
/// time the site runs in a process.
pub const TRACE_VAR: &str = "MUTINY_TRACE";

/// A file's text with its switches, and where each mutant went in it.
#[derive(Debug)]
pub struct Switched {
    pub text: String,
    /// Output ranges with the ids they are blamed on, innermost last among
    /// those that nest: each mutant's own branch and guard, then each site.
    blame: Vec<(Range<usize>, Vec<u32>)>,
    /// Output ranges of the functions that hold switched mutants.
    functions: Vec<(Range<usize>, Vec<u32>)>,
    /// Every id in the file.
    all: Vec<u32>,
    /// Mutants that could not be placed (their site overlaps another's).
    pub rejected: Vec<u32>,
}

impl Switched {
    /// The mutants a compiler error at `offset` of the switched text points
    /// to: the innermost branch or site around it, else the function, else
    /// every mutant of the file.
    pub fn blame(&self, offset: usize) -> Vec<u32> {
        let innermost = |ranges: &[(Range<usize>, Vec<u32>)]| {
            ranges
                .iter()
                .filter(|(range, _)| {
                    range.start <= offset && offset < range.end.max(range.start + 1)
                })
                .min_by_key(|(range, _)| range.len())
                .map(|(_, ids)| ids.clone())
        };
        innermost(&self.blame)
            .or_else(|| innermost(&self.functions))
            .unwrap_or_else(|| self.all.clone())
    }
}

/// What a site holds. For equal ranges the order puts an expression
/// around the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// An expression: each mutant's branch, then the original.
    Expression,
    /// Guards inserted after a match arm's pattern.
    Guard,
    /// Copies of a local const item, each under another name with one
    /// mutant applied, inserted after it.
    ConstItems,
    /// A use of such a const: each copy's name, then the original.
    ConstUse,
    /// The `const` keyword of a const fn the switched build makes plain:
    /// removed.
    Unconst,
}

/// A place in the original text where switched mutants go.
#[derive(Debug)]
struct Site<'a> {
    range: Range<usize>,
    kind: Kind,
    body: bool,
    mutants: Vec<(u32, &'a Mutant)>,
    children: Vec<Site<'a>>,
}

impl Site<'_> {
    fn contains(&self, other: &Site) -> bool {
        self.kind == Kind::Expression
            && self.range.start <= other.range.start
            && other.range.end <= self.range.end
    }
}

/// The name of the copy of a const item that holds mutant `id`.
fn const_copy(id: u32) -> String {
    format!("__MUTINY_C{id}")
}

/// The const item a mutant's switch copies, and the byte range of its name
/// there (`ConstUses`, `CrateConst`).
fn copied_item(switch: &Switch) -> Option<(&Range<usize>, &Range<usize>)> {
    match switch.inner() {
        Switch::ConstUses { item, name, .. } | Switch::CrateConst { item, name, .. } => {
            Some((item, name))
        }
        _ => None,
    }
}

/// Renders `code` with `mutants` (id, mutant) switched in, the uses of
/// constants of modules and impls at `uses` (id, mutant of the constant,
/// byte range of the path expression) switched to choose their copies,
/// and the `const` keywords at `unconst` removed: those of the functions
/// of the mutants whose switch is `Unconst` must be among them. Mutants
/// whose switch is `Alone` must not be given.
pub fn render(
    code: &str,
    mutants: &[(u32, &Mutant)],
    uses: &[(u32, &Mutant, Range<usize>)],
    unconst: &[Range<usize>],
) -> Switched {
    let mut grouped: Grouped = BTreeMap::new();
    for keyword in unconst {
        site_at(&mut grouped, keyword.clone(), Kind::Unconst);
    }
    for &(id, mutant) in mutants {
        let places: Vec<(Range<usize>, Kind, bool)> = match mutant.switch.inner() {
            Switch::Expression { site, body } => vec![(site.clone(), Kind::Expression, *body)],
            Switch::ArmGuard { at } => vec![(*at..*at, Kind::Guard, false)],
            Switch::ConstUses { item, uses, .. } => {
                std::iter::once((item.end..item.end, Kind::ConstItems, false))
                    .chain(uses.iter().map(|u| (u.clone(), Kind::ConstUse, false)))
                    .collect()
            }
            Switch::CrateConst { item, .. } => vec![(item.end..item.end, Kind::ConstItems, false)],
            Switch::Alone(_) | Switch::Unconst { .. } => continue,
        };
        for (range, kind, body) in places {
            let site = site_at(&mut grouped, range, kind);
            site.body |= body;
            site.mutants.push((id, mutant));
        }
    }
    for (id, mutant, range) in uses {
        site_at(&mut grouped, range.clone(), Kind::ConstUse)
            .mutants
            .push((*id, *mutant));
    }
    let mut rejected = Vec::new();
    let mut roots: Vec<Site> = Vec::new();
    let mut stack: Vec<Site> = Vec::new();
    for site in grouped.into_values() {
        while stack.last().is_some_and(|top| !top.contains(&site)) {
            let done = stack.pop().expect("checked");
            attach(&mut stack, &mut roots, done);
        }
        let overlaps = stack
            .last()
            .and_then(|top| top.children.last())
            .or(roots.last().filter(|_| stack.is_empty()))
            .is_some_and(|previous| previous.range.end > site.range.start);
        if overlaps {
            rejected.extend(site.mutants.iter().map(|(id, _)| *id));
            continue;
        }
        stack.push(site);
    }
    while let Some(done) = stack.pop() {
        attach(&mut stack, &mut roots, done);
    }
    let mut out = Renderer {
        code,
        text: String::with_capacity(code.len() * 2),
        blame: Vec::new(),
        tops: Vec::new(),
        depth: 0,
    };
    out.span(0..code.len(), &roots);
    let functions = function_ranges(mutants, &rejected, &out);
    let mut all: Vec<u32> = mutants
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| !rejected.contains(id))
        .collect();
    all.sort_unstable();
    Switched {
        text: out.text,
        blame: out.blame,
        functions,
        all,
        rejected,
    }
}

/// The sites of a file by place (start, longest first, kind).
type Grouped<'a> = BTreeMap<(usize, std::cmp::Reverse<usize>, Kind), Site<'a>>;

/// The site of `kind` at `range`, added empty if there is none yet.
fn site_at<'g, 'a>(
    grouped: &'g mut Grouped<'a>,
    range: Range<usize>,
    kind: Kind,
) -> &'g mut Site<'a> {
    grouped
        .entry((range.start, std::cmp::Reverse(range.end), kind))
        .or_insert_with(|| Site {
            range,
            kind,
            body: false,
            mutants: Vec::new(),
            children: Vec::new(),
        })
}

fn attach<'a>(stack: &mut [Site<'a>], roots: &mut Vec<Site<'a>>, site: Site<'a>) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(site),
        None => roots.push(site),
    }
}

struct Renderer<'c> {
    code: &'c str,
    text: String,
    blame: Vec<(Range<usize>, Vec<u32>)>,
    /// (original range, output range) of each top-level site.
    tops: Vec<(Range<usize>, Range<usize>)>,
    depth: usize,
}

impl Renderer<'_> {
    /// The original text of `range` with the sites in `children` switched.
    fn span(&mut self, range: Range<usize>, children: &[Site]) {
        let mut position = range.start;
        for child in children {
            self.text.push_str(&self.code[position..child.range.start]);
            let start = self.text.len();
            self.site(child);
            if self.depth == 0 {
                self.tops
                    .push((child.range.clone(), start..self.text.len()));
            }
            position = child.range.end;
        }
        self.text.push_str(&self.code[position..range.end]);
    }

    fn site(&mut self, site: &Site) {
        if site.kind == Kind::Unconst {
            return; // Nothing in the place of the keyword.
        }
        self.depth += 1;
        let start = self.text.len();
        if site.kind == Kind::Guard {
            for (id, _) in &site.mutants {
                self.text
                    .push_str(&format!(" if !crate::{MODULE}::on({id})"));
            }
        } else if site.kind == Kind::ConstItems {
            // Each copy: the item with its name changed and the mutant
            // applied (sites inside a const item are never switched).
            for (id, mutant) in &site.mutants {
                let Some((item, name)) = copied_item(&mutant.switch) else {
                    continue;
                };
                self.text.push(' ');
                let branch = self.text.len();
                self.text.push_str(&self.code[item.start..name.start]);
                self.text.push_str(&const_copy(*id));
                self.text.push_str(&self.code[name.end..mutant.range.start]);
                self.text.push_str(&mutant.replacement);
                self.text.push_str(&self.code[mutant.range.end..item.end]);
                self.blame.push((branch..self.text.len(), vec![*id]));
            }
        } else if site.kind == Kind::ConstUse {
            // The path to the copy: the use's path, its last segment (the
            // constant's name) renamed.
            self.text.push('(');
            for (id, mutant) in &site.mutants {
                let name_len = copied_item(&mutant.switch).map_or(0, |(_, name)| name.len());
                let qualifier = &self.code[site.range.start..site.range.end - name_len];
                self.text.push_str(&format!(
                    "if crate::{MODULE}::on({id}) {{ {qualifier}{} }} else ",
                    const_copy(*id)
                ));
            }
            self.text.push_str("{ ");
            self.text.push_str(&self.code[site.range.clone()]);
            self.text.push_str(" })");
        } else {
            if !site.body {
                self.text.push('(');
            }
            // One read of the active id for the whole site (hot loops pass
            // through it), then an arm per mutant. A mutant's arm is the
            // site's original text with just that mutant applied, as a
            // build of the mutant alone parses it: the sites inside are off
            // while it is on.
            let ids: Vec<String> = site.mutants.iter().map(|(id, _)| id.to_string()).collect();
            self.text.push_str(&format!(
                "match crate::{MODULE}::active(&[{}]) {{ ",
                ids.join(", ")
            ));
            for (id, mutant) in &site.mutants {
                self.text.push_str(&format!("{id} => {{ "));
                let branch = self.text.len();
                self.text
                    .push_str(&self.code[site.range.start..mutant.range.start]);
                self.text.push_str(&mutant.replacement);
                self.text
                    .push_str(&self.code[mutant.range.end..site.range.end]);
                self.blame.push((branch..self.text.len(), vec![*id]));
                self.text.push_str(" } ");
            }
            self.text.push_str("_ => { ");
            self.span(site.range.clone(), &site.children);
            self.text.push_str(" } }");
            if !site.body {
                self.text.push(')');
            }
        }
        let ids = site.mutants.iter().map(|(id, _)| *id).collect();
        self.blame.push((start..self.text.len(), ids));
        self.depth -= 1;
    }

    /// Where an original offset outside every site landed in the output.
    fn map(&self, offset: usize) -> usize {
        let mut shift: isize = 0;
        for (original, output) in &self.tops {
            if offset < original.start {
                break;
            }
            if offset < original.end {
                return output.start;
            }
            shift = output.end as isize - original.end as isize;
        }
        (offset as isize + shift) as usize
    }
}

/// The output range of each function holding switched mutants, with their ids.
fn function_ranges(
    mutants: &[(u32, &Mutant)],
    rejected: &[u32],
    out: &Renderer,
) -> Vec<(Range<usize>, Vec<u32>)> {
    let mut functions: BTreeMap<(usize, usize), Vec<u32>> = BTreeMap::new();
    for &(id, mutant) in mutants {
        if rejected.contains(&id) || matches!(mutant.switch, Switch::Alone(_)) {
            continue;
        }
        if let Some((start, text)) = mutant.function_text() {
            functions
                .entry((start, start + text.len()))
                .or_default()
                .push(id);
        }
    }
    functions
        .into_iter()
        .map(|((start, end), ids)| (out.map(start)..out.map(end), ids))
        .collect()
}

/// The module that `on(id)` lives in, appended to each switched crate's
/// root file. It reads the active id once. With `MUTINY_TRACE` set it
/// appends each id to that file the first time its site runs in the
/// process (a line `17`; in a doctest, `17<tab>_doctest_main_src_lib_rs_3_0`,
/// the function rustdoc wraps the doctest of `src/lib.rs` line 3 in, read
/// from a backtrace once per process), and, when a thread that reached sites ends, one
/// line for that thread: `@NAME<tab>NANOS<tab>17,18` (its name, the time
/// from its first site to its end, the sites it reached). libtest names
/// each test's thread after the test. It binds `std` itself, so that a
/// `#![no_std]` crate (tested on a host, where std exists) can hold
/// switches too; paths go through that binding (`self::std`), so neither
/// the edition nor `#![no_implicit_prelude]` matters; no `unsafe`.
pub fn runtime_module(max_id: u32) -> String {
    let words = max_id as usize / 64 + 1;
    format!(
        r#"

#[doc(hidden)]
#[allow(warnings, missing_docs, unreachable_pub)]
pub(crate) mod {MODULE} {{
    extern crate std;
    use self::std::borrow::ToOwned;
    use self::std::iter::Iterator;
    use self::std::option::Option::{{self, None, Some}};
    use self::std::result::Result::{{Err, Ok}};
    use self::std::sync::atomic::{{AtomicU32, AtomicU64, Ordering}};
    type Trace = Option<self::std::sync::Mutex<self::std::fs::File>>;
    const NOT_SEEN: AtomicU64 = AtomicU64::new(0);
    static SEEN: [AtomicU64; {words}] = [NOT_SEEN; {words}];
    static TRACE: self::std::sync::OnceLock<Trace> = self::std::sync::OnceLock::new();
    static DOCTEST: self::std::sync::OnceLock<self::std::string::String> =
        self::std::sync::OnceLock::new();

    struct ThreadSeen {{
        name: self::std::string::String,
        start: self::std::time::Instant,
        ids: self::std::vec::Vec<u32>,
        bits: [u64; {words}],
    }}

    impl self::std::ops::Drop for ThreadSeen {{
        fn drop(&mut self) {{
            let ids: self::std::vec::Vec<self::std::string::String> =
                self.ids.iter().map(self::std::string::ToString::to_string).collect();
            let line = self::std::format!(
                "@{{}}\t{{}}\t{{}}\n",
                self.name,
                self.start.elapsed().as_nanos(),
                ids.join(",")
            );
            write(&line);
        }}
    }}

    self::std::thread_local! {{
        static THREAD_SEEN: self::std::cell::RefCell<Option<ThreadSeen>> =
            const {{ self::std::cell::RefCell::new(None) }};
    }}

    /// The switches' one read, fast even in a debug build: 0 until the
    /// environment is read, then `READ`, `TRACING` when tracing, and the
    /// active id (hot loops pass through a site's `active` on every turn).
    static STATE: AtomicU32 = AtomicU32::new(0);
    const READ: u32 = 1 << 31;
    const TRACING: u32 = 1 << 30;

    /// Whether mutant `id` is on: a deleted arm's guard, a constant's use.
    #[inline(always)]
    pub(crate) fn on(id: u32) -> bool {{
        active(&[id]) == id
    }}

    /// The id switched on, for a site whose mutants are `ids` (all traced
    /// together: the first tells whether this thread saw the others).
    #[inline(always)]
    pub(crate) fn active(ids: &[u32]) -> u32 {{
        let mut state = STATE.load(Ordering::Relaxed);
        if state == 0 {{
            state = read_state();
        }}
        if state & TRACING != 0 {{
            trace(ids);
        }}
        state & (TRACING - 1)
    }}

    #[cold]
    fn read_state() -> u32 {{
        let tracing = match TRACE.get_or_init(open_trace) {{
            Some(_) => TRACING,
            None => 0,
        }};
        let state = READ | tracing | (from_env() & (TRACING - 1));
        STATE.store(state, Ordering::Relaxed);
        state
    }}

    fn trace(ids: &[u32]) {{
        // This thread's bits first: once it has seen a site, one check.
        let fresh = THREAD_SEEN
            .try_with(|cell| {{
                let Ok(mut seen) = cell.try_borrow_mut() else {{ return true }};
                let seen = seen.get_or_insert_with(|| ThreadSeen {{
                    name: self::std::thread::current().name().unwrap_or("").to_owned(),
                    start: self::std::time::Instant::now(),
                    ids: self::std::vec::Vec::new(),
                    bits: [0; {words}],
                }});
                let (word, bit) = (ids[0] as usize / 64, 1u64 << (ids[0] % 64));
                if seen.bits[word] & bit != 0 {{
                    return false;
                }}
                for &id in ids {{
                    seen.bits[id as usize / 64] |= 1u64 << (id % 64);
                    seen.ids.push(id);
                }}
                true
            }})
            .unwrap_or(true);
        if !fresh {{
            return;
        }}
        for &id in ids {{
            let (word, bit) = (id as usize / 64, 1u64 << (id % 64));
            // A load first: the read-modify-write of a word every test
            // thread shares would bounce its cache line between the cores.
            let seen = &SEEN[word];
            if seen.load(Ordering::Relaxed) & bit == 0 && seen.fetch_or(bit, Ordering::Relaxed) & bit == 0 {{
                let doctest = DOCTEST.get_or_init(doctest);
                match doctest.is_empty() {{
                    true => write(&self::std::format!("{{id}}\n")),
                    false => write(&self::std::format!("{{id}}\t{{doctest}}\n")),
                }}
            }}
        }}
    }}

    fn write(line: &str) {{
        if let Some(Some(file)) = TRACE.get() {{
            if let Ok(mut file) = file.lock() {{
                let _ = self::std::io::Write::write_all(&mut *file, line.as_bytes());
            }}
        }}
    }}

    /// In a doctest (rustdoc names its programs `rust_out`), the function
    /// rustdoc wrapped it in, which names its file and line; else empty.
    fn doctest() -> self::std::string::String {{
        let exe = self::std::env::current_exe().ok();
        let name = exe.as_ref().and_then(|exe| exe.file_stem()).and_then(|n| n.to_str());
        if name != Some("rust_out") {{
            return self::std::string::String::new();
        }}
        let trace = self::std::string::ToString::to_string(
            &self::std::backtrace::Backtrace::force_capture(),
        );
        let Some(at) = trace.find("_doctest_main_") else {{
            return self::std::string::String::new();
        }};
        trace[at..]
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("")
            .to_owned()
    }}

    fn from_env() -> u32 {{
        match self::std::env::var("{ACTIVE_VAR}") {{
            Ok(value) => value.parse().unwrap_or(0),
            Err(_) => 0,
        }}
    }}

    fn open_trace() -> Trace {{
        let path = self::std::env::var_os("{TRACE_VAR}")?;
        let file = self::std::fs::OpenOptions::new().create(true).append(true).open(path).ok()?;
        Some(self::std::sync::Mutex::new(file))
    }}
}}
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutate::{generate, Edition, GenerateOptions, SourceFile};
    use std::sync::Arc;

    fn mutants_of(code: &str) -> Vec<Mutant> {
        let file = Arc::new(SourceFile {
            package: "p".into(),
            path: "src/lib.rs".into(),
            code: code.into(),
            edition: Edition::E2021,
        });
        generate(&file, &GenerateOptions::default()).mutants
    }

    fn switched(code: &str) -> (Vec<Mutant>, Switched) {
        let mutants = mutants_of(code);
        let ids: Vec<(u32, &Mutant)> = mutants
            .iter()
            .enumerate()
            .filter(|(_, m)| !matches!(m.switch, Switch::Alone(_)))
            .map(|(i, m)| (i as u32 + 1, m))
            .collect();
        // The keywords of the switched mutants' const fns, as the lab
        // passes them (it may add others).
        let mut unconst: Vec<Range<usize>> = ids
            .iter()
            .filter_map(|(_, m)| match &m.switch {
                Switch::Unconst { keyword, .. } => Some(keyword.clone()),
                _ => None,
            })
            .collect();
        unconst.dedup();
        let out = render(code, &ids, &[], &unconst);
        (mutants.clone(), out)
    }

    #[test]
    fn each_branch_is_the_mutant_alone_as_its_text_parses() {
        let (mutants, out) = switched("fn f(a: u32, b: u32) -> u32 {\n    a + b * 2\n}\n");
        let names: Vec<&str> = mutants.iter().map(|m| m.description.as_str()).collect();
        assert_eq!(
            names,
            [
                "replace f -> u32 with 0",
                "replace f -> u32 with 1",
                "replace + with - in f",
                "replace + with * in f",
                "replace * with + in f",
                "replace * with / in f",
            ]
        );
        // `a * b * 2` and `a + b + 2`: the run of operators is one site,
        // and each branch is its text with one operator replaced.
        let expected = "fn f(a: u32, b: u32) -> u32 {\n    match crate::__mutiny_switch::active(&[1, 2, 3, 4, 5, 6]) { 1 => { 0 } 2 => { 1 } 3 => { a - b * 2 } 4 => { a * b * 2 } 5 => { a + b + 2 } 6 => { a + b / 2 } _ => { a + b * 2 } }\n}\n";
        assert_eq!(out.text, expected);
        assert!(out.rejected.is_empty());
    }

    #[test]
    fn errors_are_blamed_on_the_innermost_branch_then_site_then_function() {
        let code =
            "fn f(a: u32, b: u32) -> u32 {\n    let c = (a - 1) * b;\n    c + 1\n}\n\nfn g() {}\n";
        let (mutants, out) = switched(code);
        let id = |description: &str| {
            mutants
                .iter()
                .position(|m| m.description == description)
                .unwrap() as u32
                + 1
        };
        let minus_to_plus = id("replace - with + in f");
        let minus_to_div = id("replace - with / in f");
        let in_branch = out.text.find("a + 1").unwrap();
        assert_eq!(out.blame(in_branch), [minus_to_plus]);
        // In the original branch of the innermost site: that site's mutants.
        let in_original = out.text.rfind("a - 1").unwrap();
        assert_eq!(out.blame(in_original), [minus_to_plus, minus_to_div]);
        let all: Vec<u32> = (1..=mutants.len() as u32).collect();
        let fn_keyword = out.text.find("u32 {").unwrap();
        assert_eq!(out.blame(fn_keyword), all);
        let g = out.text.find("fn g").unwrap();
        assert_eq!(out.blame(g), all);
    }

    #[test]
    fn a_deleted_arm_gets_a_guard_and_guards_switch_their_condition() {
        let code = "fn f(x: u32) -> &'static str {\n    match x {\n        0 => \"zero\",\n        n if n > 9 => \"big\",\n        _ => \"other\",\n    }\n}\n";
        let (mutants, out) = switched(code);
        let arm = mutants
            .iter()
            .position(|m| m.description.starts_with("delete match arm 0"))
            .unwrap();
        let guard = format!("0 if !crate::__mutiny_switch::on({}) => \"zero\"", arm + 1);
        assert!(out.text.contains(&guard), "{}", out.text);
        let on_true = mutants
            .iter()
            .position(|m| {
                m.description
                    .starts_with("replace match guard n > 9 with true")
            })
            .unwrap();
        let site = "n if (match crate::__mutiny_switch::active(&[";
        let arm = format!("{} => {{ true }}", on_true + 1);
        let guard_site = &out.text[out.text.find(site).expect(&out.text)..];
        assert!(
            guard_site[..guard_site.find("=> \"big\"").unwrap()].contains(&arm),
            "{}",
            out.text
        );
    }

    #[test]
    fn const_contexts_impl_trait_and_struct_fields_stay_alone() {
        let code = "const N: usize = 1 + 2;\nconst fn c() -> u32 { 3 }\nfn it() -> impl Iterator<Item = u32> { std::iter::once(1) }\nfn arr() -> [u8; 2 + 2] { [0; 1 + 3] }\nfn s(b: S) -> S { S { a: 1, ..b } }\n";
        let mutants = mutants_of(code);
        let alone: Vec<(&str, &str)> = mutants
            .iter()
            .map(|m| match m.switch {
                Switch::Alone(why) => (m.description.as_str(), why),
                Switch::CrateConst { .. } => (m.description.as_str(), "crate const"),
                _ => (m.description.as_str(), "switched"),
            })
            .collect();
        for (description, why) in alone {
            let expected = if description.contains("in arr")
                && !description.starts_with("replace arr")
            {
                "it is in an array length, evaluated at compile time"
            } else if description.starts_with("replace + with") && !description.contains(" in ") {
                // A const item of the module: the lab looks for its uses.
                "crate const"
            } else if description.starts_with("replace c ") || description.ends_with(" in c") {
                // A const fn's stubs that are const values: the build may
                // remove its const (the lab decides).
                "switched"
            } else if description.starts_with("replace it ") {
                "its function returns impl Trait, one concrete type that the stub may not be"
            } else if description.starts_with("delete field") {
                "a deleted field of a struct expression cannot be switched"
            } else {
                "switched"
            };
            assert_eq!(why, expected, "{description}");
        }
    }

    #[test]
    fn a_const_fn_loses_its_const_for_the_mutants_that_compile_the_same_without_it() {
        let code = "pub const fn mix(x: u64) -> u64 {\n    const ONES: u64 = 1 | 2;\n    x ^ ONES\n}\nconst fn name() -> String {\n    String::new()\n}\nconst N: u64 = 1 + 2;\n";
        let (mutants, out) = switched(code);
        let why = |m: &Mutant| match &m.switch {
            Switch::Alone(why) => why.to_string(),
            Switch::Unconst { keyword, inner } => {
                assert_eq!(&code[keyword.clone()], "const ", "{}", m.name);
                assert!(!matches!(
                    **inner,
                    Switch::Alone(_) | Switch::Unconst { .. }
                ));
                "unconst".to_owned()
            }
            Switch::CrateConst { .. } => "crate const".to_owned(),
            other => panic!("{}: {other:?}", m.name),
        };
        let whys: Vec<(String, String)> = mutants
            .iter()
            .map(|m| (m.description.clone(), why(m)))
            .collect();
        for (description, why) in &whys {
            let expected = if description.contains("\"xyzzy\".into()") {
                "it is in a const fn, which can run at compile time"
            } else if description.ends_with(" in N")
                || !description.contains(" in ") && description.starts_with("replace + with")
            {
                "crate const"
            } else {
                "unconst"
            };
            assert_eq!(why, expected, "{description}");
        }
        // Both mix's operators (one in its local const) and both its
        // stubs are switched; the keyword goes once.
        assert_eq!(
            whys.iter()
                .filter(|(d, w)| w == "unconst" && d.contains("mix"))
                .count(),
            6,
            "{whys:?}"
        );
        assert!(
            out.text.starts_with("pub fn mix(x: u64) -> u64 {"),
            "{}",
            out.text
        );
        assert!(out.text.contains("\nconst fn name()"), "{}", out.text);
        assert!(out.text.contains("const __MUTINY_C"), "{}", out.text);
        assert!(
            crate::mutate::parse_errors(&out.text, Edition::E2021).is_empty(),
            "{}",
            out.text
        );
    }

    #[test]
    fn the_const_of_a_function_without_mutants_goes_when_asked() {
        let code = "const fn one() -> u32 {\n    1\n}\nfn two() -> u32 {\n    one() + one()\n}\n";
        let mutants = mutants_of(code);
        let ids: Vec<(u32, &Mutant)> = mutants
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                m.function
                    .as_ref()
                    .is_some_and(|f| f.function_name == "two")
            })
            .map(|(i, m)| (i as u32 + 1, m))
            .collect();
        let keyword = crate::mutate::removable_consts(code, Edition::E2021);
        assert_eq!(keyword, [("one".to_owned(), 0..6)]);
        let out = render(code, &ids, &[], std::slice::from_ref(&keyword[0].1));
        assert!(
            out.text
                .starts_with("fn one() -> u32 {\n    1\n}\nfn two()"),
            "{}",
            out.text
        );
        let kept = render(code, &ids, &[], &[]);
        assert!(kept.text.starts_with("const fn one()"), "{}", kept.text);
    }

    #[test]
    fn a_local_consts_mutants_go_in_copies_chosen_at_its_uses() {
        let code = "fn days(n: i64, m: i64) -> i64 {\n    const PER_400Y: i64 = 365 * 400 + 97;\n    n * PER_400Y + m % PER_400Y\n}\n";
        let (mutants, out) = switched(code);
        let at = code.find("365 *").unwrap() + 4;
        let index = mutants
            .iter()
            .position(|m| m.range.start == at && m.replacement == "+")
            .unwrap();
        let Switch::ConstUses { uses, .. } = &mutants[index].switch else {
            panic!("{:?}", mutants[index].switch);
        };
        assert_eq!(uses.len(), 2);
        let id = index + 1;
        assert!(
            out.text
                .contains(&format!("const __MUTINY_C{id}: i64 = 365 + 400 + 97;")),
            "{}",
            out.text
        );
        assert!(
            out.text.contains(&format!(
                "if crate::__mutiny_switch::on({id}) {{ __MUTINY_C{id} }} else"
            )),
            "{}",
            out.text
        );
        assert_eq!(out.text.matches("{ PER_400Y })").count(), 2, "{}", out.text);
        assert!(
            crate::mutate::parse_errors(&out.text, Edition::E2021).is_empty(),
            "{}",
            out.text
        );
        // A compiler error in a copy is blamed on its mutant alone.
        let copy = out.text.find(&format!("__MUTINY_C{id}:")).unwrap();
        assert_eq!(out.blame(copy), vec![id as u32]);
    }

    #[test]
    fn a_constant_of_an_impl_is_copied_and_each_use_in_any_file_chooses() {
        use crate::mutate::crate_const::{uses_in, Wanted};
        let code = "pub struct Flags(u8);\nimpl Flags {\n    /// Loud.\n    #[allow(missing_docs)]\n    pub const LOUD: Flags = Flags(1 << 1);\n    fn f() -> Flags { Self::LOUD }\n}\n";
        let mutants = mutants_of(code);
        let (index, mutant) = mutants
            .iter()
            .enumerate()
            .find(|(_, m)| m.replacement == ">>")
            .unwrap();
        let Switch::CrateConst {
            name, owner, value, ..
        } = &mutant.switch
        else {
            panic!("{:?}", mutant.switch);
        };
        let id = index as u32 + 1;
        let wanted = Wanted {
            name: &code[name.clone()],
            owner: owner.as_deref(),
            value: *value,
            declared: Some(name.clone()),
        };
        let uses = |code: &str| -> Vec<(u32, &Mutant, Range<usize>)> {
            uses_in(code, Edition::E2021, &wanted)
                .unwrap()
                .into_iter()
                .map(|u| (id, mutant, u.path))
                .collect()
        };
        let out = render(code, &[(id, mutant)], &uses(code), &[]);
        // The copy has the lint levels but no doc comment: a doctest
        // there would run twice.
        assert!(
            out.text.contains(&format!(
                "pub const LOUD: Flags = Flags(1 << 1); #[allow(missing_docs)]\n    pub const __MUTINY_C{id}: Flags = Flags(1 >> 1);"
            )),
            "{}",
            out.text
        );
        let chosen = format!(
            "(if crate::__mutiny_switch::on({id}) {{ Self::__MUTINY_C{id} }} else {{ Self::LOUD }})"
        );
        assert!(out.text.contains(&chosen), "{}", out.text);
        // Another file: only its uses change, and an error there is the
        // mutant's.
        let other = "fn g() -> u8 { bits(crate::Flags::LOUD) }\n";
        let out = render(other, &[], &uses(other), &[]);
        let chosen = format!(
            "bits((if crate::__mutiny_switch::on({id}) {{ crate::Flags::__MUTINY_C{id} }} else {{ crate::Flags::LOUD }}))"
        );
        assert!(out.text.contains(&chosen), "{}", out.text);
        assert_eq!(out.blame(out.text.find("__MUTINY").unwrap()), vec![id]);
        assert!(crate::mutate::parse_errors(&out.text, Edition::E2021).is_empty());
    }

    #[test]
    fn a_local_const_used_in_a_pattern_a_macro_or_a_length_stays_alone() {
        for code in [
            "fn f(x: i64) -> bool {\n    const K: i64 = 2 + 3;\n    x == K || matches!(x, K)\n}\n",
            "fn g(x: i64) -> i64 {\n    const K: i64 = 2 + 3;\n    match x { K => 1, _ => x * K }\n}\n",
            "fn h() -> usize {\n    const K: usize = 2 + 2;\n    [0u8; K].len() + K\n}\n",
            // What rustc computes at build time: a shift amount, a value
            // handed on alone (it may meet other constants later).
            "fn s(x: u64) -> u64 {\n    const K: u32 = 2 + 61;\n    x >> K\n}\n",
            "fn c(x: i64) -> i64 {\n    const K: i64 = 2 + 3;\n    x.pow(K as u32) + g(K)\n}\n",
        ] {
            let mutants = mutants_of(code);
            let at = code.find("2 + ").unwrap() + 2;
            let inside = mutants.iter().find(|m| m.range.start == at).unwrap();
            assert!(
                matches!(inside.switch, Switch::Alone(why) if why.contains("const item")),
                "{code}: {:?}",
                inside.switch
            );
        }
    }

    #[test]
    fn a_local_const_used_as_a_divisor_is_switched_only_for_mutants_not_0() {
        let code = "fn d(x: i64) -> i64 {\n    const K: i64 = 1 % 2;\n    x / K\n}\n";
        let mutants = mutants_of(code);
        let at = code.find("1 % 2").unwrap() + 2;
        let switch = |replacement: &str| {
            let mutant = mutants
                .iter()
                .find(|m| m.range.start == at && m.replacement == replacement)
                .unwrap();
            matches!(mutant.switch, Switch::ConstUses { .. })
        };
        // 1 / 2 is 0: `x / 0` fails the build.
        assert!(!switch("/"));
        assert!(switch("+"));
    }

    #[test]
    fn a_run_of_operators_is_one_site_and_constant_runs_stay_alone() {
        let code = "fn f(c: i32, a: i32, b: i32) -> i32 {\n    g(N - 1) + c - a * b\n}\n";
        let mutants = mutants_of(code);
        let in_call = code.find("N - 1").unwrap() + 2;
        let constant = mutants
            .iter()
            .find(|m| m.description == "replace - with + in f" && m.range.start == in_call)
            .unwrap();
        assert!(matches!(constant.switch, Switch::Alone(why) if why.contains("constants")));
        let times = mutants
            .iter()
            .find(|m| m.description == "replace * with + in f")
            .unwrap();
        let Switch::Expression { site, .. } = &times.switch else {
            panic!("{:?}", times.switch);
        };
        assert_eq!(&code[site.clone()], "g(N - 1) + c - a * b");
        let (_, out) = switched(code);
        // As the mutant alone parses: `(g(N - 1) + c - a) + b`.
        assert!(
            out.text.contains("{ g(N - 1) + c - a + b }"),
            "{}",
            out.text
        );
    }

    #[test]
    fn the_runtime_module_sizes_its_trace_for_the_ids() {
        assert!(runtime_module(63).contains("[AtomicU64; 1] = [NOT_SEEN; 1]"));
        assert!(runtime_module(64).contains("[AtomicU64; 2] = [NOT_SEEN; 2]"));
    }
}
