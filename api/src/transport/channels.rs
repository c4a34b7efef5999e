//! [`Channels`]: the query channels of a process, one per query port address, shared by
//! whatever in the process calls other processes' ports (v1 queries and stage submissions
//! through [`super::ServerDirectory`], mailbox blocks through [`super::Mailboxes`]).

use super::query_channel::QueryChannel;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Query port address → its channel.
pub struct Channels {
    /// The `Authorization` value channels open with (access control on).
    authorization: Option<String>,
    by_address: Mutex<HashMap<String, Arc<QueryChannel>>>,
}

impl Channels {
    /// Channels that open with `authorization` in their hello.
    pub fn new(authorization: Option<String>) -> Channels {
        Channels {
            authorization,
            by_address: Mutex::default(),
        }
    }

    /// The channel to the query port at `address` (`host:port`), made on first use.
    pub fn get(&self, address: &str) -> Arc<QueryChannel> {
        let mut channels = match self.by_address.lock() {
            Ok(c) => c,
            // A panic elsewhere while holding the map: a channel of its own still works.
            Err(_) => return Arc::new(QueryChannel::new(address, self.authorization.clone())),
        };
        if let Some(c) = channels.get(address) {
            return c.clone();
        }
        // A process that restarted on another free port leaves its old channel ended.
        channels.retain(|_, c| !c.has_ended());
        let c = Arc::new(QueryChannel::new(address, self.authorization.clone()));
        channels.insert(address.to_string(), c.clone());
        c
    }
}
