//! URL functions (`urlDomain`, `urlPath`, `extractURLParameter`, `cutWWW`, …) as Pinot's `UrlFunctions`.

use super::def::FunctionDef;

/// The functions of this area.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[];
