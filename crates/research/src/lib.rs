//! # tengen-research
//!
//! Tools for the experiments behind tengen's defaults, apart from the
//! product's commands: the web server, the GTP engine and the terminal do not
//! depend on this crate (`cargo tree -p tengen-web`, `-p tengen-gtp`). The
//! `tengen nn` subcommands that drive them are thin wrappers.
//!
//! - [`balanced_openings`]: `tengen nn balanced-openings`, sets of even
//!   openings for `tengen match --openings`, valued by a KataGo network.
//! - [`opening_book`]: `tengen nn opening-book`, the 9×9 opening book built
//!   from a KataGo network's searches.
//! - [`policy_games`]: `tengen nn policy-games`, games drawn from a KataGo
//!   network's policy, written with its probabilities.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod balanced_openings;
pub mod opening_book;
pub mod policy_games;
