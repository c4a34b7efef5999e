//! Endpoints every role serves.

pub mod loggers;
