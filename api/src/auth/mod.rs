//! Access control: Pinot's basic auth, with its configuration names and answers.
//!
//! `tessera start --auth-config FILE` turns it on (off by default). The file is Pinot's
//! properties, one principal list per role:
//!
//! ```text
//! controller.admin.access.control.principals=admin,reader
//! controller.admin.access.control.principals.admin.password=verysecret
//! controller.admin.access.control.principals.reader.password=secret
//! controller.admin.access.control.principals.reader.permissions=READ
//! controller.admin.access.control.principals.reader.tables=baseballStats
//! pinot.broker.access.control.principals=…          (same keys; else the controller's list)
//! pinot.server.admin.access.control.principals=…    (same keys; else the controller's list)
//! ```
//!
//! or JSON, a list of Pinot's user configs (`[{"username","password","component":
//! "CONTROLLER|BROKER|SERVER","role":"ADMIN|USER","permissions":[…],"tables":[…],
//! "excludeTables":[…]}]`). Permissions are `READ`, `CREATE`, `UPDATE`, `DELETE` (none listed:
//! all); tables none listed: all. Passwords are kept only as salted SHA-256 digests.
//!
//! Every route of every role goes through [`guard::Guard`]: no or unknown credentials answer 401
//! (`WWW-Authenticate: Basic`), a principal without the request's permission (`GET` reads, `POST`
//! creates — queries read —, `PUT` updates, `DELETE` deletes) or table 403, in the role's error
//! shape. The broker checks a query's tables after planning ([`Principal::denied_tables`]).
//! Roles call each other with the internal credentials ([`Auth::internal_header`]: Pinot's
//! `pinot.server.instance.auth.token` or `controller.segment.fetcher.auth.token` if set, else the
//! first principal allowed everything); the controller forwards the caller's own `Authorization`
//! when it runs a query (`POST /sql`) or reads another instance's log files. The controller also
//! answers the console's `GET /auth/info` and `/auth/verify[/v2]` ([`routes`]).

pub mod guard;
pub mod routes;

use base64::Engine as _;
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// What a request does to what it names (Pinot's `AccessType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessType {
    Read,
    Create,
    Update,
    Delete,
}

impl AccessType {
    /// Pinot's name, any case (`read`, `UPDATE` …).
    pub fn parse(s: &str) -> Option<AccessType> {
        match s.trim().to_ascii_uppercase().as_str() {
            "READ" => Some(AccessType::Read),
            "CREATE" => Some(AccessType::Create),
            "UPDATE" => Some(AccessType::Update),
            "DELETE" => Some(AccessType::Delete),
            _ => None,
        }
    }

    /// Pinot's name (`READ` …).
    pub fn name(self) -> &'static str {
        match self {
            AccessType::Read => "READ",
            AccessType::Create => "CREATE",
            AccessType::Update => "UPDATE",
            AccessType::Delete => "DELETE",
        }
    }
}

/// The role a principal list protects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Controller,
    Broker,
    Server,
}

/// One user: a name, a password digest, and what it may do.
pub struct Principal {
    pub name: String,
    salt: [u8; 16],
    digest: [u8; 32],
    /// Empty: every table.
    tables: HashSet<String>,
    exclude_tables: HashSet<String>,
    /// Empty: every permission.
    permissions: HashSet<AccessType>,
}

impl Principal {
    fn new(
        name: &str,
        password: &str,
        tables: HashSet<String>,
        exclude_tables: HashSet<String>,
        permissions: HashSet<AccessType>,
    ) -> Result<Principal, String> {
        if name.is_empty() || name.contains(':') {
            return Err(format!("'{name}' is not a valid name"));
        }
        if password.is_empty() {
            return Err(format!("must provide a password for {name}"));
        }
        let mut salt = [0u8; 16];
        getrandom::getrandom(&mut salt).map_err(|e| format!("no random salt: {e}"))?;
        Ok(Principal {
            name: name.to_string(),
            salt,
            digest: digest(&salt, password),
            tables,
            exclude_tables,
            permissions,
        })
    }

    fn password_is(&self, password: &str) -> bool {
        let d = digest(&self.salt, password);
        // Compared in constant time.
        d.iter()
            .zip(&self.digest)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
    }

    /// Whether this principal may read or change `table` (raw name).
    pub fn has_table(&self, table: &str) -> bool {
        (self.tables.is_empty() || self.tables.contains(table))
            && !self.exclude_tables.contains(table)
    }

    pub fn has_permission(&self, access: AccessType) -> bool {
        self.permissions.is_empty() || self.permissions.contains(&access)
    }

    fn allowed_everything(&self) -> bool {
        self.tables.is_empty() && self.exclude_tables.is_empty() && self.permissions.is_empty()
            || self.permissions.len() == 4 && self.tables.is_empty()
    }

    /// The tables among `tables` this principal may not query, sorted (Pinot's failure list).
    pub fn denied_tables<'t>(&self, tables: impl IntoIterator<Item = &'t str>) -> Vec<String> {
        let mut denied: Vec<String> = tables
            .into_iter()
            .filter(|t| !self.has_table(t))
            .map(str::to_string)
            .collect();
        denied.sort();
        denied.dedup();
        denied
    }
}

impl std::fmt::Debug for Principal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Principal")
            .field("name", &self.name)
            .field("tables", &self.tables)
            .field("permissions", &self.permissions)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Auth")
            .field("principals", &self.principals)
            .field("internal", &self.internal.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

fn digest(salt: &[u8; 16], password: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(salt);
    h.update(password.as_bytes());
    h.finalize().into()
}

/// The access control of a process: principals per role and the credentials roles use to call
/// each other. Its `Debug` names principals only: no digest, salt or credential.
#[derive(Default)]
pub struct Auth {
    principals: HashMap<Role, Vec<Arc<Principal>>>,
    /// `Authorization` header value for calls between roles.
    internal: Option<String>,
}

const CONTROLLER_PREFIX: &str = "controller.admin.access.control.principals";
const BROKER_PREFIX: &str = "pinot.broker.access.control.principals";
const SERVER_PREFIX: &str = "pinot.server.admin.access.control.principals";
const INTERNAL_TOKEN_KEYS: [&str; 2] = [
    "pinot.server.instance.auth.token",
    "controller.segment.fetcher.auth.token",
];

/// A request's `Authorization` header (its last value): what the guard checks and what the
/// controller forwards when it calls another role for the caller.
pub fn authorization<S>(req: &tide::Request<S>) -> Option<&str> {
    req.header("Authorization").map(|h| h.last().as_str())
}

/// `Basic base64(name:password)`, Pinot's token.
pub fn basic_token(name: &str, password: &str) -> String {
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{name}:{password}"))
    )
}

impl Auth {
    /// Reads an auth config file (JSON when it starts with `[` or `{`, else properties).
    pub fn from_file(path: &std::path::Path) -> Result<Auth, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read auth config {}: {e}", path.display()))?;
        Auth::parse(&text).map_err(|e| format!("auth config {}: {e}", path.display()))
    }

    /// Parses an auth config (see the module docs).
    pub fn parse(text: &str) -> Result<Auth, String> {
        let t = text.trim_start();
        if t.starts_with('[') || t.starts_with('{') {
            Auth::from_json(t)
        } else {
            Auth::from_properties(text)
        }
    }

    fn from_properties(text: &str) -> Result<Auth, String> {
        let props = crate::common::properties::parse(text);
        let set = |key: String| -> HashSet<String> {
            props
                .get(&key)
                .map(|v| {
                    v.split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut auth = Auth::default();
        let mut first_admin: Option<String> = None;
        for (role, prefix) in [
            (Role::Controller, CONTROLLER_PREFIX),
            (Role::Broker, BROKER_PREFIX),
            (Role::Server, SERVER_PREFIX),
        ] {
            let Some(names) = props.get(prefix) else {
                continue;
            };
            let mut list = Vec::new();
            for name in names.split(',').map(str::trim) {
                let password = props
                    .get(&format!("{prefix}.{name}.password"))
                    .map(String::as_str)
                    .unwrap_or_default();
                let mut permissions = HashSet::new();
                for p in set(format!("{prefix}.{name}.permissions")) {
                    permissions.insert(
                        AccessType::parse(&p)
                            .ok_or_else(|| format!("unknown permission '{p}' of {name}"))?,
                    );
                }
                let p = Principal::new(
                    name,
                    password,
                    set(format!("{prefix}.{name}.tables")),
                    set(format!("{prefix}.{name}.excludeTables")),
                    permissions,
                )?;
                if first_admin.is_none() && p.allowed_everything() {
                    first_admin = Some(basic_token(name, password));
                }
                list.push(Arc::new(p));
            }
            if list.is_empty() {
                return Err(format!("{prefix}: must provide principals"));
            }
            auth.principals.insert(role, list);
        }
        if auth.principals.is_empty() {
            return Err(format!("no principals ({CONTROLLER_PREFIX}=…)"));
        }
        auth.internal = INTERNAL_TOKEN_KEYS
            .iter()
            .find_map(|k| props.get(*k).cloned())
            .or(first_admin);
        Ok(auth)
    }

    fn from_json(text: &str) -> Result<Auth, String> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
        let users = match &v {
            serde_json::Value::Array(a) => a.clone(),
            serde_json::Value::Object(o) => o
                .get("users")
                .and_then(|u| u.as_array())
                .cloned()
                .ok_or("expected a list of users or {\"users\": [...]}")?,
            _ => return Err("expected a list of users".into()),
        };
        let strings = |u: &serde_json::Value, k: &str| -> HashSet<String> {
            u.get(k)
                .and_then(|a| a.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut auth = Auth::default();
        let mut first_admin: Option<String> = None;
        for u in &users {
            let text = |k: &str| u.get(k).and_then(|s| s.as_str()).unwrap_or_default();
            let (name, password) = (text("username"), text("password"));
            let role = match text("component").to_ascii_uppercase().as_str() {
                "CONTROLLER" => Role::Controller,
                "BROKER" => Role::Broker,
                "SERVER" => Role::Server,
                other => return Err(format!("unknown component '{other}' of {name}")),
            };
            let admin = text("role").eq_ignore_ascii_case("ADMIN");
            let mut permissions = HashSet::new();
            if !admin {
                for p in strings(u, "permissions") {
                    permissions.insert(
                        AccessType::parse(&p)
                            .ok_or_else(|| format!("unknown permission '{p}' of {name}"))?,
                    );
                }
                if permissions.is_empty() {
                    permissions.insert(AccessType::Read);
                }
            }
            let p = Principal::new(
                name,
                password,
                strings(u, "tables"),
                strings(u, "excludeTables"),
                permissions,
            )?;
            if first_admin.is_none() && p.allowed_everything() {
                first_admin = Some(basic_token(name, password));
            }
            auth.principals.entry(role).or_default().push(Arc::new(p));
        }
        if auth.principals.is_empty() {
            return Err("no users".into());
        }
        auth.internal = first_admin;
        Ok(auth)
    }

    /// The principal `authorization` (an `Authorization` header value) names for `role`, if
    /// its password is right.
    pub fn authenticate(&self, role: Role, authorization: &str) -> Option<Arc<Principal>> {
        let token = authorization.trim().strip_prefix("Basic ")?.trim();
        let decoded = base64::engine::general_purpose::STANDARD_NO_PAD
            .decode(token.trim_end_matches('='))
            .ok()?;
        let text = String::from_utf8(decoded).ok()?;
        let (name, password) = text.split_once(':')?;
        self.principals_of(role)
            .iter()
            .find(|p| p.name == name && p.password_is(password))
            .cloned()
    }

    fn principals_of(&self, role: Role) -> &[Arc<Principal>] {
        self.principals
            .get(&role)
            .or_else(|| self.principals.get(&Role::Controller))
            .or_else(|| self.principals.values().next())
            .map_or(&[], Vec::as_slice)
    }

    /// The `Authorization` value roles send each other.
    pub fn internal_header(&self) -> Option<&str> {
        self.internal.as_deref()
    }
}

/// The HTTP client a role uses to call the others: with the internal credentials when access
/// control is on.
pub fn internal_client(auth: Option<&Auth>) -> surf::Client {
    let client = crate::http::http_client();
    match auth.and_then(Auth::internal_header) {
        Some(token) => {
            let config: surf::Config = client.config().clone();
            config
                .add_header("Authorization", token)
                .ok()
                .and_then(|c| c.try_into().ok())
                .unwrap_or(client)
        }
        None => client,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROPS: &str = "
# Pinot's keys
controller.admin.access.control.principals=admin, reader
controller.admin.access.control.principals.admin.password=verysecret
controller.admin.access.control.principals.reader.password=secret
controller.admin.access.control.principals.reader.permissions=read
controller.admin.access.control.principals.reader.tables=baseballStats
";

    #[test]
    fn properties_principals_permissions_and_tables() {
        let a = Auth::parse(PROPS).unwrap();
        let admin = a
            .authenticate(Role::Broker, &basic_token("admin", "verysecret"))
            .unwrap();
        assert!(admin.has_permission(AccessType::Delete) && admin.has_table("any"));
        let reader = a
            .authenticate(Role::Controller, &basic_token("reader", "secret"))
            .unwrap();
        assert!(reader.has_permission(AccessType::Read));
        assert!(!reader.has_permission(AccessType::Update));
        assert_eq!(
            reader.denied_tables(["baseballStats", "other", "other"]),
            vec!["other".to_string()]
        );
        assert!(
            a.authenticate(Role::Controller, &basic_token("reader", "wrong"))
                .is_none()
        );
        assert!(a.authenticate(Role::Controller, "Bearer x").is_none());
        assert!(a.authenticate(Role::Controller, "Basic !!!").is_none());
        // Padding stripped as Pinot normalizes tokens.
        let t = basic_token("admin", "verysecret");
        assert!(
            a.authenticate(Role::Server, t.trim_end_matches('='))
                .is_some()
        );
        assert_eq!(a.internal_header(), Some(t.as_str()));
        // The password itself is not kept, and no credential is ever printed.
        let shown = format!("{a:?}");
        assert!(
            !shown.contains("verysecret") && !shown.contains(&t[6..12]),
            "{shown}"
        );
        assert!(shown.contains("reader"));
    }

    #[test]
    fn json_users_and_bad_configs() {
        let a = Auth::parse(
            r#"[{"username":"ops","password":"p","component":"BROKER","role":"ADMIN"},
                {"username":"bi","password":"q","component":"BROKER","role":"USER","tables":["t"]}]"#,
        )
        .unwrap();
        let bi = a
            .authenticate(Role::Broker, &basic_token("bi", "q"))
            .unwrap();
        assert!(!bi.has_permission(AccessType::Create) && !bi.has_table("u"));
        assert!(Auth::parse("").is_err());
        assert!(Auth::parse("controller.admin.access.control.principals=a").is_err());
        assert!(
            Auth::parse(
                "controller.admin.access.control.principals=a\ncontroller.admin.access.control.principals.a.password=x\ncontroller.admin.access.control.principals.a.permissions=fly"
            )
            .is_err()
        );
    }
}
