//! `--shard K/N`: a deterministic split of the mutant list, so N CI jobs
//! together test every mutant exactly once.

use std::str::FromStr;

use anyhow::{anyhow, ensure, Context, Error};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// How mutants are dealt to shards (`sharding` in `.cargo/mutants.toml`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
    fn bad_shards_are_refused_with_a_reason() {
        assert_eq!("2/5".parse::<Shard>().unwrap(), Shard { k: 2, n: 5 });
        for bad in ["5/5", "1", "a/2", "0/0"] {
            let err = bad.parse::<Shard>().unwrap_err();
            assert!(format!("{err:#}").contains("K"), "{bad}: {err:#}");
        }
    }
}
