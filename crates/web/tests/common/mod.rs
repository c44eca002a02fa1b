//! Helpers shared by the integration tests.

pub mod capped;
pub mod cpu;
pub mod http;
