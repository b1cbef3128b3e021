//! Which tests of a test binary reach which switch sites, from the traced
//! baseline run, and the order in which a mutant's tests then run: the
//! quick tests that reach it, the other tests that reach it, then the whole
//! binary. Pure: the trace's text and the run's log in, runs out.
//!
//! A test is known by the thread libtest runs it on, which bears its name.
//! A site reached by any other thread (one a test spawned, the main
//! thread, one that never ended) cannot be pinned to a test: mutants there
//! run the whole binary only. A missed verdict always comes from a run of
//! the whole binary, as cargo-mutants would run it: a test may depend on
//! state another test left behind, which the narrower runs do not show.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// A test that reaches a site and takes at most this long runs in the
/// first, narrowest run.
const QUICK: Duration = Duration::from_millis(25);

/// What the traced baseline run of a binary reached.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Reach {
    /// Every site the process reached.
    pub all: BTreeSet<u32>,
    /// Each test that reached sites: its time (from its first site to its
    /// end) and those sites.
    tests: BTreeMap<String, (Duration, BTreeSet<u32>)>,
    /// Sites reached by threads that are not the binary's tests, or that
    /// never reported (still running at exit).
    unattributed: BTreeSet<u32>,
    /// Doctests: the sites each doctest's program reached, by the function
    /// rustdoc wrapped it in (`_doctest_main_src_lib_rs_3_0`).
    doctests: BTreeMap<String, BTreeSet<u32>>,
    /// Doctests: sites reached by programs not known as one doctest (one
    /// with its own `main`).
    unknown_programs: BTreeSet<u32>,
}

impl Reach {
    /// Reads a trace file's text; `test_names` are the tests the run's log
    /// shows (a thread named otherwise is not a test's).
    pub fn parse(trace: &str, test_names: &BTreeSet<String>) -> Reach {
        let mut reach = Reach::default();
        for line in trace.lines() {
            if let Some(record) = line.strip_prefix('@') {
                let mut fields = record.splitn(3, '\t');
                let (Some(name), Some(nanos), Some(ids)) =
                    (fields.next(), fields.next(), fields.next())
                else {
                    continue;
                };
                let ids: BTreeSet<u32> = ids.split(',').filter_map(|id| id.parse().ok()).collect();
                match nanos.parse::<u64>() {
                    Ok(nanos) if test_names.contains(name) => {
                        let entry = reach.tests.entry(name.to_owned()).or_default();
                        entry.0 += Duration::from_nanos(nanos);
                        entry.1.extend(ids);
                    }
                    _ => reach.unattributed.extend(ids),
                }
            } else if let Some((id, wrapper)) = line.split_once('\t') {
                if let Ok(id) = id.trim().parse() {
                    reach.all.insert(id);
                    let ids = reach.doctests.entry(wrapper.trim().to_owned()).or_default();
                    ids.insert(id);
                }
            } else if let Ok(id) = line.trim().parse() {
                reach.all.insert(id);
                reach.unknown_programs.insert(id);
            }
        }
        let attributed: BTreeSet<u32> = reach
            .tests
            .values()
            .flat_map(|(_, ids)| ids.iter().copied())
            .collect();
        let silent: Vec<u32> = reach.all.difference(&attributed).copied().collect();
        reach.unattributed.extend(silent);
        reach
    }

    /// The filtered runs to try, in order, before the whole binary, for
    /// the mutant at site `id`: each a list of test names for `--exact`.
    /// `already` is a test that runs before them (the function's last
    /// killer). Empty when the site is not pinned to tests, or when the
    /// tests that reach it are quick ones and ones that take most of the
    /// binary's time.
    pub fn narrow_runs(&self, id: u32, already: Option<&str>) -> Vec<Vec<String>> {
        if self.unattributed.contains(&id) {
            return Vec::new();
        }
        let mut reaching: Vec<(&String, Duration)> = self
            .tests
            .iter()
            .filter(|(name, (_, ids))| ids.contains(&id) && Some(name.as_str()) != already)
            .map(|(name, (time, _))| (name, *time))
            .collect();
        reaching.sort_by_key(|&(name, time)| (time, name));
        let (quick, slow): (Vec<_>, Vec<_>) = reaching.iter().partition(|(_, t)| *t <= QUICK);
        let names = |tests: &[&(&String, Duration)]| -> Vec<String> {
            tests.iter().map(|(name, _)| (*name).clone()).collect()
        };
        let mut runs = Vec::new();
        if !quick.is_empty() {
            runs.push(names(&quick));
        }
        // All the tests that reach it, when they take less than half the
        // time of all the tests that reach anything: the whole binary comes
        // next anyway, and a mutant they miss runs them twice. (humantime:
        // its random tests reach most date code and take most of the time.)
        let reaching_time: Duration = reaching.iter().map(|(_, t)| *t).sum();
        let total: Duration = self.tests.values().map(|(t, _)| *t).sum();
        if !slow.is_empty() && reaching_time * 2 < total {
            runs.push(reaching.iter().map(|(name, _)| (*name).clone()).collect());
        }
        runs
    }

    /// Whether the baseline saw test `name` reach site `id` (false when the
    /// site is not pinned to tests).
    pub fn test_reaches(&self, name: &str, id: u32) -> bool {
        !self.unattributed.contains(&id)
            && self
                .tests
                .get(name)
                .is_some_and(|(_, ids)| ids.contains(&id))
    }

    /// The doctests (of `names`, the doctests runner's) whose programs
    /// reached site `id`; `None` when a program that is not known as one
    /// of them reached it too.
    pub fn doctests_reaching<'a>(&self, id: u32, names: &'a [String]) -> Option<Vec<&'a str>> {
        self.doctest_wrappers_reaching(id)?
            .into_iter()
            .map(|wrapper| {
                let name = names.iter().find(|name| wraps(wrapper, name))?;
                Some(name.as_str())
            })
            .collect()
    }

    /// The doctests whose programs reached site `id`, by the function
    /// rustdoc wrapped each in; `None` when a program that is not known as
    /// one doctest reached it too.
    pub fn doctest_wrappers_reaching(&self, id: u32) -> Option<Vec<&str>> {
        if self.unknown_programs.contains(&id) {
            return None;
        }
        Some(
            self.doctests
                .iter()
                .filter(|(_, ids)| ids.contains(&id))
                .map(|(wrapper, _)| wrapper.as_str())
                .collect(),
        )
    }

    /// Whether the baseline pinned site `id` to the tests that reach it.
    pub fn pinned(&self, id: u32) -> bool {
        self.all.contains(&id) && !self.unattributed.contains(&id)
    }
}

/// Whether rustdoc's wrapper function `wrapper` (`_doctest_main_` then the
/// file with each character other than a letter or digit made `_`, the
/// line, a number) holds the doctest named `name` (`src/lib.rs - f (line 3)`).
pub(super) fn wraps(wrapper: &str, name: &str) -> bool {
    let Some((file, rest)) = name.split_once(" - ") else {
        return false;
    };
    let Some(line) = rest
        .rsplit_once("(line ")
        .and_then(|(_, line)| line.split(')').next())
    else {
        return false;
    };
    let file: String = file
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    wrapper
        .strip_prefix("_doctest_main_")
        .and_then(|rest| rest.strip_prefix(&file))
        .and_then(|rest| rest.strip_prefix('_'))
        .and_then(|rest| rest.strip_prefix(line))
        .and_then(|rest| rest.strip_prefix('_'))
        .is_some_and(|number| !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()))
}

/// The names of the tests a libtest log shows passing, as `--exact` takes
/// them (`should_panic` tests are listed with a suffix).
pub fn test_names(log: &str) -> BTreeSet<String> {
    crate::outcome::passing_tests(log)
        .into_iter()
        .map(|name| {
            name.strip_suffix(" - should panic")
                .map(str::to_owned)
                .unwrap_or(name)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    const TRACE: &str = "1\n2\n3\n4\n5\n\
        @t::quick\t1000\t1,2\n\
        @t::slow\t900000000\t2,3\n\
        @t::other\t2000\t5\n\
        @\t10\t4\n\
        @tokio-worker\t10\t5\n";

    #[test]
    fn sites_pin_to_the_tests_whose_threads_reached_them() {
        let reach = Reach::parse(
            TRACE,
            &names(&["t::quick", "t::slow", "t::other", "t::none"]),
        );
        assert!(reach.test_reaches("t::quick", 1));
        assert!(!reach.test_reaches("t::quick", 3));
        // A thread without a name, or not a test's, pins nothing.
        assert!(!reach.pinned(4));
        assert!(!reach.pinned(5));
        assert!(!reach.test_reaches("t::other", 5));
        assert!(reach.pinned(2));
        // Reached by no thread that ended (the main thread): not pinned.
        let reach = Reach::parse("1\n7\n@t::quick\t5\t1\n", &names(&["t::quick"]));
        assert!(reach.pinned(1));
        assert!(!reach.pinned(7));
        assert!(!reach.pinned(8));
    }

    #[test]
    fn the_quick_tests_that_reach_a_site_run_first_then_all_that_reach_it() {
        let reach = Reach::parse(
            &format!("{TRACE}@t::more\t1000000000\t9\n9\n"),
            &names(&["t::quick", "t::slow", "t::other", "t::more"]),
        );
        assert_eq!(
            reach.narrow_runs(1, None),
            vec![vec!["t::quick".to_owned()]]
        );
        assert_eq!(
            reach.narrow_runs(2, None),
            vec![
                vec!["t::quick".to_owned()],
                vec!["t::quick".to_owned(), "t::slow".to_owned()],
            ]
        );
        // The killer already ran: not again.
        assert_eq!(
            reach.narrow_runs(2, Some("t::quick")),
            vec![vec!["t::slow".to_owned()]]
        );
        assert!(reach.narrow_runs(4, None).is_empty());
        assert!(reach.narrow_runs(5, None).is_empty());
    }

    #[test]
    fn slow_tests_that_take_most_of_the_binarys_time_run_only_in_the_whole_binary() {
        // t::slow is 0.9 s of the 0.9 s the tests take: running it alone
        // first would run it twice whenever it misses the mutant.
        let reach = Reach::parse(TRACE, &names(&["t::quick", "t::slow", "t::other"]));
        assert_eq!(
            reach.narrow_runs(2, None),
            vec![vec!["t::quick".to_owned()]]
        );
        assert!(reach.narrow_runs(3, None).is_empty());
    }

    #[test]
    fn a_site_every_test_reaches_runs_the_whole_binary_after_the_quick_tests() {
        let reach = Reach::parse("1\n@a\t1\t1\n@b\t900000000\t1\n", &names(&["a", "b"]));
        assert_eq!(reach.narrow_runs(1, None), vec![vec!["a".to_owned()]]);
        let reach = Reach::parse("1\n@b\t900000000\t1\n", &names(&["b"]));
        assert!(reach.narrow_runs(1, None).is_empty());
    }

    #[test]
    fn doctests_are_known_by_the_function_rustdoc_wraps_them_in() {
        let names = vec![
            "src/lib.rs - add (line 3)".to_owned(),
            "src/lib.rs - add (line 30)".to_owned(),
            "src/my-mod.rs - m::sub (line 7) - compile".to_owned(),
        ];
        let trace = "1\t_doctest_main_src_lib_rs_3_0\n2\t_doctest_main_src_lib_rs_30_0\n\
            2\t_doctest_main_src_my_mod_rs_7_1\n1\t_doctest_main_src_lib_rs_3_0\n5\n5\t_doctest_main_src_lib_rs_3_0\n\
            6\t_doctest_main_src_gone_rs_3_0\n";
        let reach = Reach::parse(trace, &BTreeSet::new());
        assert_eq!(reach.all, [1, 2, 5, 6].into_iter().collect());
        assert_eq!(
            reach.doctests_reaching(1, &names),
            Some(vec!["src/lib.rs - add (line 3)"])
        );
        assert_eq!(
            reach.doctests_reaching(2, &names),
            Some(vec![
                "src/lib.rs - add (line 30)",
                "src/my-mod.rs - m::sub (line 7) - compile"
            ])
        );
        // A program with its own `main` reached it: which doctest is unknown.
        assert_eq!(reach.doctests_reaching(5, &names), None);
        // A wrapper no doctest name matches.
        assert_eq!(reach.doctests_reaching(6, &names), None);
        assert_eq!(reach.doctests_reaching(9, &names), Some(vec![]));
        assert_eq!(
            reach.doctest_wrappers_reaching(2),
            Some(vec![
                "_doctest_main_src_lib_rs_30_0",
                "_doctest_main_src_my_mod_rs_7_1"
            ])
        );
        assert_eq!(reach.doctest_wrappers_reaching(5), None);
    }

    #[test]
    fn should_panic_tests_are_named_as_exact_takes_them() {
        let log = "test a::b ... ok\ntest a::c - should panic ... ok\ntest a::d ... FAILED\n";
        assert_eq!(test_names(log), names(&["a::b", "a::c"]));
    }
}
