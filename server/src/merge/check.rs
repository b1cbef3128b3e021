//! Whether the shards given to `mutiny merge` are every shard of one split
//! of one mutant list, each given once; and, if not, what is wrong, said so
//! that the user knows which directory to add, remove or run again.

use std::path::Path;

use anyhow::{anyhow, Result};

use crate::shard::ShardRecord;

/// A shard as given: where its `mutants.out/` is and what its `shard.json`
/// says.
#[derive(Debug, Clone, Copy)]
pub struct Given<'a> {
    pub dir: &'a Path,
    pub record: &'a ShardRecord,
}

impl Given<'_> {
    /// `shard 1/3 (ci/shard-1/mutants.out)`.
    fn named(&self) -> String {
        format!("shard {} ({})", self.record.shard, self.dir.display())
    }
}

/// The indices of `given` in shard order (K = 0..N), or an error naming
/// every problem: shards of different splits or of different mutant lists,
/// a shard given twice, a shard missing.
pub fn check(given: &[Given]) -> Result<Vec<usize>> {
    let Some(first) = given.first() else {
        return Err(anyhow!(
            "give the mutants.out directories of the shards to merge"
        ));
    };
    let mut problems: Vec<String> = given[1..]
        .iter()
        .filter_map(|other| differences(first, other))
        .collect();
    // Which shards are there means nothing for shards of different splits.
    if problems.is_empty() {
        problems = coverage(given, first.record.shard.n);
    }
    match problems.len() {
        0 => Ok(given_in_order(given)),
        1 => Err(anyhow!("{}", problems[0])),
        _ => Err(anyhow!(
            "these shards cannot be merged:\n  - {}",
            problems.join("\n  - ")
        )),
    }
}

/// What makes `other` a shard of another split or list than `first`.
fn differences(first: &Given, other: &Given) -> Option<String> {
    let (a, b) = (first.record, other.record);
    if a.shard.n != b.shard.n {
        return Some(format!(
            "{} and {} are shards of different splits (N = {} and N = {}): give the shards \
             of one `--shard K/N` split, all with the same N",
            first.named(),
            other.named(),
            a.shard.n,
            b.shard.n
        ));
    }
    if a.sharding != b.sharding {
        return Some(format!(
            "{} was dealt by `--sharding {}` and {} by `--sharding {}`: run every shard \
             with the same sharding",
            first.named(),
            a.sharding,
            other.named(),
            b.sharding
        ));
    }
    if a.mutants != b.mutants || a.names_digest != b.names_digest {
        let sizes = match a.mutants == b.mutants {
            true => format!("{} mutants each, not the same ones", a.mutants),
            false => format!("{} and {} mutants", a.mutants, b.mutants),
        };
        return Some(format!(
            "{} and {} were cut from different mutant lists ({sizes}): run every shard on \
             the same commit with the same options (filters, --in-diff, .cargo/mutants.toml)",
            first.named(),
            other.named()
        ));
    }
    if a.sources_digest != b.sources_digest {
        return Some(format!(
            "{} and {} were made from different source trees (the mutated files differ): \
             run every shard on the same commit",
            first.named(),
            other.named()
        ));
    }
    None
}

/// Shards of the split into `n` given more than once, or not at all.
fn coverage(given: &[Given], n: usize) -> Vec<String> {
    let mut problems = Vec::new();
    for k in 0..n {
        let these: Vec<&Given> = given.iter().filter(|g| g.record.shard.k == k).collect();
        match these.len() {
            0 => problems.push(format!(
                "shard {k}/{n} is missing: give the mutants.out of `mutiny run --shard {k}/{n}` too"
            )),
            1 => {}
            times => problems.push(format!(
                "shard {k}/{n} is given {times} times ({}): give each shard once",
                these
                    .iter()
                    .map(|g| g.dir.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    for beyond in given.iter().filter(|g| g.record.shard.k >= n) {
        problems.push(format!(
            "{} is no shard of {n}: its shard.json was not written by `mutiny run`",
            beyond.named()
        ));
    }
    problems
}

/// The indices of `given`, which holds each K once, ordered by K.
fn given_in_order(given: &[Given]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..given.len()).collect();
    order.sort_by_key(|&i| given[i].record.shard.k);
    order
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::shard::{Shard, Sharding};

    fn record(k: usize, n: usize) -> ShardRecord {
        ShardRecord {
            shard: Shard { k, n },
            sharding: Sharding::Slice,
            mutants: 27,
            names_digest: "names".into(),
            sources_digest: "sources".into(),
        }
    }

    /// `check` of shards at `shard-0`, `shard-1`… with these records.
    fn check_records(records: &[ShardRecord]) -> Result<Vec<usize>, String> {
        let dirs: Vec<PathBuf> = (0..records.len())
            .map(|i| PathBuf::from(format!("shard-{i}")))
            .collect();
        let given: Vec<Given> = dirs
            .iter()
            .zip(records)
            .map(|(dir, record)| Given { dir, record })
            .collect();
        check(&given).map_err(|err| format!("{err:#}"))
    }

    #[test]
    fn every_shard_once_in_any_order_is_put_in_shard_order() {
        assert_eq!(
            check_records(&[record(2, 3), record(0, 3), record(1, 3)]),
            Ok(vec![1, 2, 0])
        );
        assert_eq!(check_records(&[record(0, 1)]), Ok(vec![0]));
    }

    #[test]
    fn a_missing_shard_is_named_with_the_command_that_makes_it() {
        assert_eq!(
            check_records(&[record(0, 3), record(1, 3)]).unwrap_err(),
            "shard 2/3 is missing: give the mutants.out of `mutiny run --shard 2/3` too"
        );
    }

    #[test]
    fn a_shard_given_twice_is_named_with_both_directories() {
        assert_eq!(
            check_records(&[record(0, 2), record(1, 2), record(0, 2)]).unwrap_err(),
            "shard 0/2 is given 2 times (shard-0, shard-2): give each shard once"
        );
    }

    #[test]
    fn every_problem_is_listed_at_once() {
        let err = check_records(&[record(0, 3), record(0, 3)]).unwrap_err();
        assert!(
            err.starts_with("these shards cannot be merged:\n  - "),
            "{err}"
        );
        for problem in ["0/3 is given 2 times", "1/3 is missing", "2/3 is missing"] {
            assert!(err.contains(problem), "{problem}: {err}");
        }
    }

    #[test]
    fn shards_of_different_splits_are_refused_before_counting_them() {
        let err = check_records(&[record(0, 2), record(1, 3)]).unwrap_err();
        assert_eq!(
            err,
            "shard 0/2 (shard-0) and shard 1/3 (shard-1) are shards of different splits \
             (N = 2 and N = 3): give the shards of one `--shard K/N` split, all with the same N"
        );
        let round_robin = ShardRecord {
            sharding: Sharding::RoundRobin,
            ..record(1, 2)
        };
        let err = check_records(&[record(0, 2), round_robin]).unwrap_err();
        assert!(err.contains("--sharding slice` and shard 1/2"), "{err}");
    }

    #[test]
    fn shards_of_different_lists_or_trees_are_refused_and_say_which() {
        let more = ShardRecord {
            mutants: 29,
            names_digest: "other".into(),
            ..record(1, 2)
        };
        let err = check_records(&[record(0, 2), more]).unwrap_err();
        assert!(
            err.contains("different mutant lists (27 and 29 mutants)"),
            "{err}"
        );
        let renamed = ShardRecord {
            names_digest: "other".into(),
            ..record(1, 2)
        };
        let err = check_records(&[record(0, 2), renamed]).unwrap_err();
        assert!(
            err.contains("(27 mutants each, not the same ones)"),
            "{err}"
        );
        let changed = ShardRecord {
            sources_digest: "changed".into(),
            ..record(1, 2)
        };
        let err = check_records(&[record(0, 2), changed]).unwrap_err();
        assert!(
            err.contains(
                "shard 0/2 (shard-0) and shard 1/2 (shard-1) were made from different source trees"
            ),
            "{err}"
        );
    }

    #[test]
    fn nothing_to_merge_says_what_to_give() {
        assert!(check_records(&[])
            .unwrap_err()
            .contains("give the mutants.out"));
    }
}
