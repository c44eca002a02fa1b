//! # tengen-match
