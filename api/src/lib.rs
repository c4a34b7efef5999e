//! Tessera's HTTP edge and command line.
//!
//! * [`cli`] — the `tessera` subcommands.
//! * [`http`] — listener, Pinot error bodies, request extractors, the rayon bridge.
//! * [`metadata`] — the cluster's records and the controller's transactional metadata store.
//! * [`transport`] — how one role reaches another (HTTP or in-process).
//! * [`controller`], [`broker`], [`server`] — the three roles, one tide app each.
//! * [`cluster`] — starting any subset of roles in one process.
//! * [`cloud`] — object storage (S3, GCS, Azure): the deep store there and `s3://` URIs.
//! * [`tls`] — TLS on every port and in every call between roles.
//! * [`heap`] — allocator settings for large short-lived buffers.
//! * [`logging`], [`common`] — logging setup and the `/loggers` endpoints every role serves.
//! * [`quickstart`] — the sample `lineitem` table (generator, schema, config, loader).

pub mod auth;
pub mod broker;
pub mod cli;
pub mod cloud;
pub mod cluster;
pub mod common;
pub mod controller;
pub mod heap;
pub mod http;
pub mod ingest_job;
pub mod logging;
pub mod metadata;
pub mod minion;
pub mod quickstart;
pub mod server;
pub mod stream;
pub mod tls;
pub mod transport;
