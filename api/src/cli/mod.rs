//! Command-line subcommands, one file each. Every `run` returns `Err(message)` for the user;
//! `main` prints it and exits non-zero.

pub mod admin;
pub mod bench;
pub mod ingest;
pub mod query;
pub mod quickstart;
pub mod segment;
pub mod start;
