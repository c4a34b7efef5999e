//! What every role shares below the metadata layer: the clock, segment archives and the
//! `/loggers` endpoints.
//!
//! * [`clock`] — wall-clock milliseconds.
//! * [`archive`] — a segment directory as a tar.gz: packing, unpacking, validating.
//! * [`location`] — a file named by URI (local, `http://` or object storage), read with a bound.
//! * [`properties`] — Java properties files (the auth config, `tessera start --config`).
//! * [`loggers`] — `/loggers` on every role, other instances' logs on the controller.
//! * [`transform`] — `transformConfigs` applied with the query engine, for file and stream
//!   ingestion.

pub mod archive;
pub mod clock;
pub mod ids;
pub mod location;
pub mod loggers;
pub mod properties;
pub mod transform;

use std::future::Future;
use std::pin::Pin;

/// A boxed future, so async traits (transport clients, change listeners) can be used as `dyn`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
