//! [`ServerDirectory`]: the [`ServerClient`] for a server id. Servers that run in this process
//! are registered once, at start, and called directly; a server elsewhere through its query
//! port ([`TcpServerClient`], one connection per port kept for the directory's life), or over
//! HTTP when it announced no query port.

use super::query_channel::{QueryChannel, TcpServerClient};
use super::server_client::{HttpServerClient, ServerClient};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

/// Server id → client.
pub struct ServerDirectory {
    local: RwLock<HashMap<String, Arc<dyn ServerClient>>>,
    http: surf::Client,
    /// The `Authorization` value query channels open with (access control on).
    authorization: Option<String>,
    /// Query port address → its channel.
    channels: Mutex<HashMap<String, Arc<QueryChannel>>>,
}

impl ServerDirectory {
    /// A directory that reaches servers in other processes with `http` and through query
    /// channels opened with `authorization`, until local ones are added.
    pub fn new(http: surf::Client, authorization: Option<String>) -> ServerDirectory {
        ServerDirectory {
            local: RwLock::default(),
            http,
            authorization,
            channels: Mutex::default(),
        }
    }

    /// Registers the server `id` of this process (called once, when the roles start).
    pub fn add_local(&self, id: &str, client: Arc<dyn ServerClient>) {
        if let Ok(mut local) = self.local.write() {
            local.insert(id.to_string(), client);
        }
    }

    /// The client for server `id`, reachable at `base_url`, and at `query_address` for v1
    /// queries when it has a query port, when not in this process.
    pub fn client(
        &self,
        id: &str,
        base_url: &str,
        query_address: Option<&str>,
    ) -> Arc<dyn ServerClient> {
        if let Some(c) = self.local.read().ok().and_then(|l| l.get(id).cloned()) {
            return c;
        }
        let http = HttpServerClient::new(base_url, self.http.clone());
        let channel = query_address.and_then(|a| {
            let mut channels = self.channels.lock().ok()?;
            if !channels.contains_key(a) {
                // A server that restarted on another free port leaves its old channel ended.
                channels.retain(|_, c| !c.has_ended());
                let c = Arc::new(QueryChannel::new(a, self.authorization.clone()));
                channels.insert(a.to_string(), c);
            }
            channels.get(a).cloned()
        });
        match channel {
            Some(channel) => Arc::new(TcpServerClient { channel, http }),
            None => Arc::new(http),
        }
    }
}
