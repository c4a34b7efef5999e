//! UUID functions (`isUuid`, `toUuid`, `uuidToBytes`, `uuidVersion`, …) as Pinot's `uuid` scalar functions.

use super::def::FunctionDef;

/// The functions of this area.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[];
