//! The engine side of GTP.
