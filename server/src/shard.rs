//! `--shard K/N`: a deterministic split of the mutant list, so N CI jobs
//! together test every mutant exactly once; and `shard.json`, the record a
//! shard's `mutants.out/` keeps of which split of which list it is, for
//! `mutiny merge` to check that the shards it joins make one whole list.

use std::fmt;
use std::str::FromStr;

use anyhow::{anyhow, ensure, Context, Error};
use serde::{Deserialize, Serialize};

use crate::cache::fingerprint;
use crate::mutate::Mutant;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// This shard, counting from 0.
    pub k: usize,
    /// The number of shards.
    pub n: usize,
}

impl FromStr for Shard {
    type Err = Error;

    fn from_str(text: &str) -> Result<Shard, Error> {
        let (k, n) = text
            .split_once('/')
            .ok_or_else(|| anyhow!("a shard is written K/N, like 0/4"))?;
        let k = k.trim().parse().context("K in K/N is not a number")?;
        let n = n.trim().parse().context("N in K/N is not a number")?;
        ensure!(k < n, "shard K/N needs K < N (shards count from 0)");
        Ok(Shard { k, n })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}/{}", self.k, self.n)
    }
}

/// How mutants are dealt to shards (`sharding` in `.cargo/mutants.toml`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sharding {
    /// Consecutive runs of mutants (cargo-mutants' default): neighbouring
    /// mutants share a shard, so its incremental builds stay small.
    #[default]
    Slice,
    /// Mutant `i` goes to shard `i % N`.
    RoundRobin,
}

impl FromStr for Sharding {
    type Err = Error;

    fn from_str(text: &str) -> Result<Sharding, Error> {
        match text {
            "slice" => Ok(Sharding::Slice),
            "round-robin" => Ok(Sharding::RoundRobin),
            other => Err(anyhow!(
                "unknown sharding {other:?}: use slice or round-robin"
            )),
        }
    }
}

impl fmt::Display for Sharding {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Sharding::Slice => "slice",
            Sharding::RoundRobin => "round-robin",
        })
    }
}

impl Sharding {
    /// This shard's part of `items`, in order.
    pub fn select<T>(self, shard: Shard, items: Vec<T>) -> Vec<T> {
        match self {
            Sharding::RoundRobin => items
                .into_iter()
                .enumerate()
                .filter(|(i, _)| i % shard.n == shard.k)
                .map(|(_, item)| item)
                .collect(),
            Sharding::Slice => {
                let chunk = items.len().div_ceil(shard.n);
                items
                    .into_iter()
                    .skip(shard.k * chunk)
                    .take(chunk)
                    .collect()
            }
        }
    }
}

/// The file in a shard's `mutants.out/` that holds its `ShardRecord`.
pub const RECORD_FILE_NAME: &str = "shard.json";

/// Which shard of which split of which mutant list a run tested.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardRecord {
    pub shard: Shard,
    pub sharding: Sharding,
    /// How many mutants the whole list (before sharding) has.
    pub mutants: usize,
    /// `names_digest` of the whole list's names, in order.
    pub names_digest: String,
    /// A fingerprint of the whole list's source files (path and text):
    /// the same names from another commit differ here.
    pub sources_digest: String,
}

impl ShardRecord {
    /// The record of `shard` cut by `sharding` from `whole`, the list
    /// every shard of the split was cut from.
    pub fn new(shard: Shard, sharding: Sharding, whole: &[Mutant]) -> ShardRecord {
        let mut seen = std::collections::HashSet::new();
        let mut sources: Vec<&str> = Vec::new();
        for mutant in whole {
            let file = &mutant.source_file;
            if seen.insert((&file.package, &file.path)) {
                sources.extend([file.package.as_str(), &file.path, &file.code]);
            }
        }
        ShardRecord {
            shard,
            sharding,
            mutants: whole.len(),
            names_digest: names_digest(whole.iter().map(|m| m.name.as_str())),
            sources_digest: fingerprint(&sources),
        }
    }
}

/// A fingerprint of mutant names in this order.
pub fn names_digest<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    fingerprint(&names)
}

/// The order of the whole list from its shards' parts: `parts[k]` is shard
/// k's part, in order (as `Sharding::select` made it). Each item comes
/// with the shard it is in. `None` when the parts' sizes are not those
/// of a split of one list.
pub fn unshard<T>(sharding: Sharding, parts: Vec<Vec<T>>) -> Option<Vec<(usize, T)>> {
    let n = parts.len();
    let total: usize = parts.iter().map(Vec::len).sum();
    let sizes: Vec<usize> = (0..n)
        .map(|k| sharding.select(Shard { k, n }, vec![(); total]).len())
        .collect();
    if parts.iter().map(Vec::len).ne(sizes) {
        return None;
    }
    let mut parts: Vec<std::vec::IntoIter<T>> = parts.into_iter().map(Vec::into_iter).collect();
    Some(match sharding {
        Sharding::Slice => parts
            .into_iter()
            .enumerate()
            .flat_map(|(k, part)| part.map(move |item| (k, item)))
            .collect(),
        Sharding::RoundRobin => (0..total)
            .map(|i| (i % n, parts[i % n].next().expect("sizes checked")))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_together_cover_every_item_once() {
        for sharding in [Sharding::Slice, Sharding::RoundRobin] {
            for n in 1..=7 {
                let mut all: Vec<usize> = (0..n)
                    .flat_map(|k| sharding.select(Shard { k, n }, (0..20).collect()))
                    .collect();
                all.sort();
                assert_eq!(all, (0..20).collect::<Vec<_>>(), "{sharding:?} n={n}");
            }
        }
    }

    #[test]
    fn slices_are_consecutive_and_round_robin_interleaves() {
        let shard = Shard { k: 1, n: 3 };
        assert_eq!(Sharding::Slice.select(shard, (0..8).collect()), [3, 4, 5]);
        assert_eq!(
            Sharding::RoundRobin.select(shard, (0..8).collect()),
            [1, 4, 7]
        );
    }

    #[test]
    fn unsharding_the_parts_gives_back_the_list_with_each_item_s_shard() {
        for sharding in [Sharding::Slice, Sharding::RoundRobin] {
            for n in 1..=5 {
                let parts: Vec<Vec<usize>> = (0..n)
                    .map(|k| sharding.select(Shard { k, n }, (0..11).collect()))
                    .collect();
                let whole = unshard(sharding, parts).unwrap();
                let items: Vec<usize> = whole.iter().map(|&(_, i)| i).collect();
                assert_eq!(items, (0..11).collect::<Vec<_>>(), "{sharding:?} n={n}");
                for (k, item) in whole {
                    let part = sharding.select(Shard { k, n }, (0..11).collect());
                    assert!(
                        part.contains(&item),
                        "{sharding:?} n={n}: {item} not in {k}"
                    );
                }
            }
        }
    }

    #[test]
    fn parts_of_the_wrong_sizes_are_no_split() {
        assert!(unshard(Sharding::Slice, vec![vec![0, 1], vec![2, 3, 4]]).is_none());
        assert!(unshard(Sharding::RoundRobin, vec![vec![0], vec![1, 2]]).is_none());
        assert!(unshard(Sharding::Slice, vec![vec![0, 1, 2], vec![3, 4]]).is_some());
    }

    #[test]
    fn records_read_back_as_written_with_readable_names() {
        let record = ShardRecord {
            shard: Shard { k: 1, n: 3 },
            sharding: Sharding::RoundRobin,
            mutants: 27,
            names_digest: names_digest(["a", "b"]),
            sources_digest: "0123".into(),
        };
        let json = serde_json::to_string(&record).unwrap();
        assert!(
            json.contains(r#""shard":{"k":1,"n":3},"sharding":"round-robin""#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<ShardRecord>(&json).unwrap(), record);
        assert_ne!(names_digest(["a", "b"]), names_digest(["b", "a"]));
        assert_eq!(record.shard.to_string(), "1/3");
    }

    #[test]
    fn bad_shards_are_refused_with_a_reason() {
        assert_eq!("2/5".parse::<Shard>().unwrap(), Shard { k: 2, n: 5 });
        for bad in ["5/5", "1", "a/2", "0/0"] {
            let err = bad.parse::<Shard>().unwrap_err();
            assert!(format!("{err:#}").contains("K"), "{bad}: {err:#}");
        }
    }
}
