//! The controller side of GTP.
