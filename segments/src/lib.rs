//! Tessera's segments: what a segment is, on disk and in memory.
//!
//! * [`types`] — the shared vocabulary (data types, values, schema, table config, error codes).

pub mod types;
