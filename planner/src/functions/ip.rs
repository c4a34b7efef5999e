//! IP address functions (`isSubnetOf`, `ipPrefix`, `ipv4ToLong`, …) as Pinot's `IpAddressFunctions`.

use super::def::FunctionDef;

/// The functions of this area.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[];
