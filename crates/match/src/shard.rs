//! Splitting a match or a self-play series into shards that together play
//! exactly the games of one run: shard `I/N` takes the games whose index is
//! `I` modulo `N`, keeping each game's index, colours and seeds.

use std::fmt;
use std::str::FromStr;

/// One of `count` parts of a series of games: the games whose index leaves
/// `index` when divided by `count`. `0/1`, the whole series, is the default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    index: usize,
    count: usize,
}

/// Why a `--shard` value was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// Not two whole numbers around a slash.
    #[error("shard '{0}' is not of the form I/N (such as 0/4)")]
    Format(String),
    /// Zero shards.
    #[error("shard '{0}': the number of shards N must be at least 1")]
    NoShards(String),
    /// The index is not below the count.
    #[error("shard '{text}': the index must be below the number of shards (0 to {last})")]
    IndexTooLarge {
        /// The value as given.
        text: String,
        /// The largest index allowed.
        last: usize,
    },
}

impl Shard {
    /// The whole series in one shard.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Shard `index` of `count`; `None` unless `index < count`.
    pub fn new(index: usize, count: usize) -> Option<Shard> {
        (index < count).then_some(Shard { index, count })
    }

    /// This shard's number, from 0.
    pub fn index(self) -> usize {
        self.index
    }

    /// How many shards the series is split into.
    pub fn count(self) -> usize {
        self.count
    }

    /// Whether this shard is the whole series.
    pub fn is_whole(self) -> bool {
        self.count == 1
    }

    /// Whether game `game` (its index in the whole series) is this shard's.
    pub fn contains(self, game: usize) -> bool {
        game % self.count == self.index
    }

    /// This shard's games of a series of `total`, in index order.
    pub fn games(self, total: usize) -> impl Iterator<Item = usize> {
        (self.index..total).step_by(self.count)
    }

    /// How many games of a series of `total` are this shard's.
    pub fn game_count(self, total: usize) -> usize {
        total.saturating_sub(self.index).div_ceil(self.count)
    }
}

impl Default for Shard {
    fn default() -> Shard {
        Shard::WHOLE
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let format = || ShardError::Format(text.to_string());
        let (index, count) = text.trim().split_once('/').ok_or_else(format)?;
        // Only plain digits: `+1` or ` 2` would parse as numbers but are
        // more likely typing mistakes than intent.
        let number = |part: &str| {
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format());
            }
            part.parse::<usize>().map_err(|_| format())
        };
        let (index, count) = (number(index)?, number(count)?);
        if count == 0 {
            return Err(ShardError::NoShards(text.to_string()));
        }
        Shard::new(index, count).ok_or_else(|| ShardError::IndexTooLarge {
            text: text.to_string(),
            last: count - 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let shard: Shard = "2/4".parse().unwrap();
        assert_eq!((shard.index(), shard.count()), (2, 4));
        assert_eq!(shard.to_string(), "2/4");
        assert_eq!("0/1".parse::<Shard>().unwrap(), Shard::WHOLE);
        assert!(Shard::WHOLE.is_whole());
        assert!(!shard.is_whole());
    }

    #[test]
    fn refuses_bad_values_with_the_reason() {
        for text in [
            "x", "1/", "/2", "1", "1/2/3", "-1/2", "1/-2", "+1/2", "a/b", "",
        ] {
            assert_eq!(
                text.parse::<Shard>(),
                Err(ShardError::Format(text.to_string())),
                "{text}"
            );
        }
        assert_eq!(
            "0/0".parse::<Shard>(),
            Err(ShardError::NoShards("0/0".to_string()))
        );
        let err = "3/2".parse::<Shard>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "shard '3/2': the index must be below the number of shards (0 to 1)"
        );
        assert!("2/2".parse::<Shard>().is_err());
        assert!("99999999999999999999999/2".parse::<Shard>().is_err());
    }

    #[test]
    fn shards_split_every_game_exactly_once() {
        for total in 0..30 {
            for count in 1..8 {
                let mut seen = vec![0; total];
                for index in 0..count {
                    let shard = Shard::new(index, count).unwrap();
                    let games: Vec<usize> = shard.games(total).collect();
                    assert_eq!(games.len(), shard.game_count(total));
                    for game in games {
                        assert!(shard.contains(game));
                        seen[game] += 1;
                    }
                }
                assert!(
                    seen.iter().all(|&n| n == 1),
                    "{total} games, {count} shards"
                );
            }
        }
        // Balanced: shard sizes differ by one at most.
        let sizes: Vec<usize> = (0..4)
            .map(|i| Shard::new(i, 4).unwrap().game_count(10))
            .collect();
        assert_eq!(sizes, vec![3, 3, 2, 2]);
    }
}
