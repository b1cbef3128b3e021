//! mutiny: mutation testing for Rust that lives inside the editor.
//!
//! The engine is a library: the CLI (`main.rs`) and, later, the language
//! server call it. See docs/ARCHITECTURE.md for the map.

pub mod cache;
pub mod config;
pub mod console;
pub mod exit_code;
pub mod filter;
pub mod in_diff;
pub mod lab;
pub mod list;
pub mod lock;
pub mod lsp;
pub mod manifest;
pub mod merge;
pub mod mutate;
pub mod options;
pub mod outcome;
pub mod output;
pub mod position;
pub mod report;
pub mod semantic;
pub mod session;
pub mod shard;
pub mod skip;
pub mod sources;
pub mod workspace;
