//! Tessera's HTTP edge and command line.
//!
//! * [`cli`] — the `tessera` subcommands.

pub mod cli;
