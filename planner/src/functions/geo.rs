//! Geospatial functions (`ST_Point`, `ST_GeomFromText`, `ST_Distance`, `ST_Contains`, `geoToH3`, …) over Pinot's serialized geometries.

use super::def::FunctionDef;

/// The functions of this area.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[];
