//! Vector functions over numeric arrays (`cosineDistance`, `innerProduct`, `l2Distance`, `vectorNorm`, …).

use super::def::FunctionDef;

/// The functions of this area.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[];
