//! Linearizable reads: a `GET` of the cluster's metadata (tables, schemas, segments, instances,
//! tenants, tasks, and the brokers' and servers' own fetches) first waits until this
//! controller's store has caught up with every commit acknowledged before the request
//! ([`crate::metadata::MetadataStore::catch_up`]), so a config written through one controller
//! and acknowledged is never read back older through another. With several controllers on
//! ZooKeeper, each reads from the node its session is on, which may be behind the quorum.
//! Writes need nothing: they hold the cluster's write lease, taken by a write through the
//! quorum, and commit with compare-and-sets.

use super::ControllerState;
use crate::http::ApiError;
use tide::{Middleware, Next, Request};

/// Path prefixes of the resources whose reads must be current.
const METADATA: [&str; 7] = [
    "/tables",
    "/schemas",
    "/segments",
    "/instances",
    "/tenants",
    "/tasks",
    "/tessera/",
];

/// Whether a `GET` of `path` reads the cluster's metadata.
fn reads_metadata(path: &str) -> bool {
    METADATA.iter().any(|p| path.starts_with(p))
}

/// Middleware making metadata reads current.
pub struct FreshReads;

#[tide::utils::async_trait]
impl Middleware<ControllerState> for FreshReads {
    async fn handle(
        &self,
        req: Request<ControllerState>,
        next: Next<'_, ControllerState>,
    ) -> tide::Result {
        let store = req.state().store.clone();
        if store.is_shared()
            && req.method() == tide::http::Method::Get
            && reads_metadata(req.url().path())
        {
            // The store blocks; keep the HTTP threads free.
            async_std::task::spawn_blocking(move || store.catch_up())
                .await
                .map_err(ApiError::from)?;
        }
        Ok(next.run(req).await)
    }
}

#[cfg(test)]
mod tests {
    use super::reads_metadata;

    #[test]
    fn metadata_reads_are_told_from_the_rest() {
        for path in [
            "/tables",
            "/tables/t/size",
            "/schemas/s",
            "/segments/t/lineage",
            "/instances",
            "/tenants/DefaultTenant",
            "/tasks/tasktypes",
            "/tessera/routing/t",
        ] {
            assert!(reads_metadata(path), "{path}");
        }
        for path in [
            "/health",
            "/",
            "/console.js",
            "/metrics",
            "/loggers",
            "/sql",
        ] {
            assert!(!reads_metadata(path), "{path}");
        }
    }
}
