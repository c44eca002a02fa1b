//! Options defined once: the kinds of values a setting takes, their
//! parsers, and [`Setting`], the one definition of an option of some typed
//! settings `S` — its tengen name, KataGo's names for it, its category,
//! its kind with range and field, when it applies, and its help.
//!
//! Every door reads the same definitions: a bot's spec
//! (`katago:visits=200`) by the tengen name, and the analysis engine's
//! config file, `overrideSettings`, the query's fields and GTP's
//! `kata-set-param` by KataGo's names ([`Setting::apply_katago`]), so a
//! range or a flag word cannot differ between them.
//!
//! ```
//! use tengen_options::{Category, Kind, Setting};
//!
//! #[derive(Default)]
//! struct Search { visits: Option<u64> }
//!
//! let visits: Setting<Search> = Setting {
//!     name: "visits",
//!     katago: &["maxVisits"],
//!     category: Category::Limits,
//!     help: "root visits per move",
//!     kind: Kind::OptionalWhole {
//!         min: 1,
//!         max: 1000,
//!         get: |s| s.visits,
//!         set: |s, n| s.visits = n,
//!     },
//!     applies: None,
//! };
//! let mut search = Search::default();
//! visits.kind.apply(&mut search, "200").unwrap();
//! assert_eq!(search.visits, Some(200));
//! visits.apply_katago(&mut search, "none").unwrap();
//! assert_eq!(search.visits, None);
//! assert_eq!(visits.kind.apply(&mut search, "2000").unwrap_err(), "must be from 1 to 1000");
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod kind;
mod parse;
mod setting;

pub use kind::{FileChoice, Kind};
pub use parse::{format_time, parse_flag, parse_real, parse_think_time, parse_whole, wide};
pub use setting::{Category, Condition, Setting};
