//! Geohash functions (`encodeGeoHash`, `decodeGeoHash`, …).

use super::def::FunctionDef;

/// The functions of this area.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[];
