//! [`ServerDirectory`]: the [`ServerClient`] for a server id. Servers that run in this process
//! are registered once, at start, and called directly; a server elsewhere through its query
//! port ([`TcpServerClient`] over the process's [`Channels`]), or over HTTP when it announced
//! no query port.

use super::channels::Channels;
use super::health::ServerHealth;
use super::query_channel::TcpServerClient;
use super::server_client::{HttpServerClient, ServerClient};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// Server id → client.
pub struct ServerDirectory {
    local: RwLock<HashMap<String, Arc<dyn ServerClient>>>,
    http: surf::Client,
    channels: Arc<Channels>,
    /// Servers found unreachable, avoided while they have replicas.
    pub health: Arc<ServerHealth>,
}

impl ServerDirectory {
    /// A directory that reaches servers in other processes through `channels`, or with `http`
    /// when they have no query port, until local ones are added.
    pub fn new(http: surf::Client, channels: Arc<Channels>) -> ServerDirectory {
        ServerDirectory {
            local: RwLock::default(),
            http,
            channels,
            health: Arc::default(),
        }
    }

    /// Registers the server `id` of this process (called once, when the roles start).
    pub fn add_local(&self, id: &str, client: Arc<dyn ServerClient>) {
        if let Ok(mut local) = self.local.write() {
            local.insert(id.to_string(), client);
        }
    }

    /// The client for server `id` when not in this process: through its query port at
    /// `query_address`, else over HTTP at `base_url`.
    pub fn client(
        &self,
        id: &str,
        base_url: &str,
        query_address: Option<&str>,
    ) -> Arc<dyn ServerClient> {
        if let Some(c) = self.local.read().ok().and_then(|l| l.get(id).cloned()) {
            return c;
        }
        match query_address {
            Some(a) => Arc::new(TcpServerClient(self.channels.get(a))),
            None => Arc::new(HttpServerClient::new(base_url, self.http.clone())),
        }
    }
}
