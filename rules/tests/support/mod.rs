//! Helpers shared by several integration tests (each test file that needs them says `mod support;`).
#![allow(dead_code)]

pub mod chushin;
pub mod jupiter;
pub mod perft_data;
pub mod worked;
