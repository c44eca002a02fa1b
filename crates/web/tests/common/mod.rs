//! Helpers shared by the integration tests.

pub mod cpu;
pub mod http;
