//! Hash functions over BYTES and text (`sha`, `sha256`, `murmurHash3Bit32`, `crc32`, …) as Pinot's `HashFunctions`.

use super::def::FunctionDef;

/// The functions of this area.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[];
