//! Bitwise functions over INT and LONG (`bitAnd`, `bitOr`, `bitShiftLeft`, `bitExtract`, …).

use super::def::FunctionDef;

/// The functions of this area.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[];
