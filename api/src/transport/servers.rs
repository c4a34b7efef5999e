//! [`ServerDirectory`]: the [`ServerClient`] for a server id. Servers that run in this process
//! are registered once, at start, and called directly; every other server over HTTP.

use super::server_client::{HttpServerClient, ServerClient};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// Server id → client.
pub struct ServerDirectory {
    local: RwLock<HashMap<String, Arc<dyn ServerClient>>>,
    http: surf::Client,
}

impl ServerDirectory {
    /// A directory that reaches servers over HTTP with `http` until local ones are added.
    pub fn new(http: surf::Client) -> ServerDirectory {
        ServerDirectory {
            local: RwLock::default(),
            http,
        }
    }

    /// Registers the server `id` of this process (called once, when the roles start).
    pub fn add_local(&self, id: &str, client: Arc<dyn ServerClient>) {
        if let Ok(mut local) = self.local.write() {
            local.insert(id.to_string(), client);
        }
    }

    /// The client for server `id`, reachable at `base_url` when not in this process.
    pub fn client(&self, id: &str, base_url: &str) -> Arc<dyn ServerClient> {
        if let Some(c) = self.local.read().ok().and_then(|l| l.get(id).cloned()) {
            return c;
        }
        Arc::new(HttpServerClient::new(base_url, self.http.clone()))
    }
}
