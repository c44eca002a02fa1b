//! # tengen-sgf
//!
//! SGF FF\[4\] game records.
#![deny(missing_docs)]
