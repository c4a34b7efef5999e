//! [`ControllerError`]: why a controller operation failed, in the controller's own terms —
//! below HTTP. The segment commit service and the archive store answer it; the HTTP edge turns it
//! into Pinot's status and message in one place (`From<ControllerError> for ApiError`).
//!
//! It deliberately does not implement `std::error::Error`: tide would otherwise turn it into a
//! 500 on its own through `?`, so every handler converts it to an [`ApiError`] explicitly and the
//! compiler finds one that does not. Controller code not moved onto it yet (the metadata catalog,
//! placement, the write lock) answers `ApiError`, which converts back by its status.

use crate::http::ApiError;
use std::fmt;

/// Why a controller operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControllerError {
    /// The request is wrong (not a segment archive, no such table, a name that cannot be):
    /// nothing changed.
    Invalid(String),
    /// What it names does not exist (an archive gone from the deep store).
    Missing(String),
    /// Allowed in form but refused by a limit the table sets (a storage quota): nothing changed.
    Refused(String),
    /// It changed meanwhile (a segment refreshed during a rebuild, a lost compare-and-set).
    Conflict(String),
    /// The metadata store cannot be reached now; the same request may succeed later.
    Unavailable(String),
    /// Anything else: a local disk, the deep store, corrupt metadata.
    Internal(String),
}

impl ControllerError {
    pub fn invalid(message: impl Into<String>) -> ControllerError {
        ControllerError::Invalid(message.into())
    }

    pub fn missing(message: impl Into<String>) -> ControllerError {
        ControllerError::Missing(message.into())
    }

    pub fn refused(message: impl Into<String>) -> ControllerError {
        ControllerError::Refused(message.into())
    }

    pub fn conflict(message: impl Into<String>) -> ControllerError {
        ControllerError::Conflict(message.into())
    }

    pub fn internal(message: impl Into<String>) -> ControllerError {
        ControllerError::Internal(message.into())
    }

    /// The message, as Pinot words it.
    pub fn message(&self) -> &str {
        match self {
            ControllerError::Invalid(m)
            | ControllerError::Missing(m)
            | ControllerError::Refused(m)
            | ControllerError::Conflict(m)
            | ControllerError::Unavailable(m)
            | ControllerError::Internal(m) => m,
        }
    }
}

impl fmt::Display for ControllerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// The HTTP edge's one mapping: 400, 404, 403, 409, 503, 500.
impl From<ControllerError> for ApiError {
    fn from(e: ControllerError) -> ApiError {
        let status = match &e {
            ControllerError::Invalid(_) => 400,
            ControllerError::Missing(_) => 404,
            ControllerError::Refused(_) => 403,
            ControllerError::Conflict(_) => 409,
            ControllerError::Unavailable(_) => 503,
            ControllerError::Internal(_) => 500,
        };
        ApiError::new(status, e.message())
    }
}

/// From controller code that still answers `ApiError` (see the module docs), by its status.
impl From<ApiError> for ControllerError {
    fn from(e: ApiError) -> ControllerError {
        match e.status {
            404 => ControllerError::Missing(e.message),
            403 => ControllerError::Refused(e.message),
            409 => ControllerError::Conflict(e.message),
            503 => ControllerError::Unavailable(e.message),
            400..=499 => ControllerError::Invalid(e.message),
            _ => ControllerError::Internal(e.message),
        }
    }
}

impl From<ControllerError> for tide::Error {
    fn from(e: ControllerError) -> tide::Error {
        ApiError::from(e).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_status_and_comes_back() {
        for (e, status) in [
            (ControllerError::invalid("a"), 400),
            (ControllerError::missing("b"), 404),
            (ControllerError::refused("f"), 403),
            (ControllerError::conflict("c"), 409),
            (ControllerError::Unavailable("d".into()), 503),
            (ControllerError::internal("e"), 500),
        ] {
            let api = ApiError::from(e.clone());
            assert_eq!((api.status, api.message.as_str()), (status, e.message()));
            assert_eq!(ControllerError::from(api), e);
        }
    }
}
