//! The middleware every role's routes go through when access control is on: public paths pass,
//! anything else needs a principal of the role (401 otherwise) allowed the request's access type
//! and the table it names (403 otherwise, with Pinot's text). The principal rides on the request
//! ([`Identity`]) for handlers that check more (the broker: a query's tables).

use super::{AccessType, Auth, Principal, Role};
use crate::http::{ErrorStyle, error_response};
use std::sync::Arc;

/// The authenticated principal of a request.
#[derive(Clone)]
pub struct Identity(pub Arc<Principal>);

/// Access control of one role's app.
pub struct Guard {
    pub auth: Arc<Auth>,
    pub role: Role,
    pub style: ErrorStyle,
}

/// Paths anyone may call (Pinot's unprotected paths, and the console's files).
fn public(path: &str) -> bool {
    let p = path.trim_start_matches('/');
    matches!(
        p,
        "" | "help" | "health" | "auth/info" | "auth/verify" | "auth/verify/v2"
    ) || (!p.contains('/') && p.contains('.'))
}

/// The access type of a request: reads, except writes by method; queries read.
fn access_type(method: tide::http::Method, path: &str) -> AccessType {
    use tide::http::Method;
    let query = matches!(
        path.trim_end_matches('/'),
        "/query/sql" | "/query" | "/sql" | "/timeseries/api/v1/query_range"
    );
    match method {
        Method::Post if !query => AccessType::Create,
        Method::Put | Method::Patch => AccessType::Update,
        Method::Delete => AccessType::Delete,
        _ => AccessType::Read,
    }
}

/// The raw table a request names, as Pinot finds it: a `tableName`/`schemaName` query
/// parameter, or the path segment after `tables`, `table`, `schemas` or `segments`.
fn table_of(url: &tide::http::Url) -> Option<String> {
    let from_query = url.query_pairs().find_map(|(k, v)| {
        matches!(k.as_ref(), "tableName" | "tableNameWithType" | "schemaName")
            .then(|| v.into_owned())
    });
    let from_path = || {
        let parts: Vec<&str> = url.path_segments()?.collect();
        parts
            .windows(2)
            .find(|w| matches!(w[0], "tables" | "table" | "schemas" | "segments"))
            .map(|w| w[1].to_string())
            .filter(|t| !t.is_empty())
    };
    let t = from_query.or_else(from_path)?;
    Some(segments::types::raw_table_name(&t).to_string())
}

#[tide::utils::async_trait]
impl<S: Clone + Send + Sync + 'static> tide::Middleware<S> for Guard {
    async fn handle(&self, mut req: tide::Request<S>, next: tide::Next<'_, S>) -> tide::Result {
        let path = req.url().path().to_string();
        if public(&path) {
            return Ok(next.run(req).await);
        }
        let principal =
            super::authorization(&req).and_then(|a| self.auth.authenticate(self.role, a));
        let Some(principal) = principal else {
            let mut res = error_response(self.style, 401, "HTTP 401 Unauthorized");
            res.insert_header("WWW-Authenticate", "Basic realm=\"Tessera\"");
            return Ok(res);
        };
        let access = access_type(req.method(), &path);
        let table = table_of(req.url());
        let allowed = principal.has_permission(access)
            && table.as_deref().is_none_or(|t| principal.has_table(t));
        if !allowed {
            let what = match &table {
                Some(t) => format!("{} '{path}' for table '{t}'", access.name()),
                None => format!("{} '{path}'", access.name()),
            };
            return Ok(error_response(
                self.style,
                403,
                &format!("Permission is denied for {what}"),
            ));
        }
        req.set_ext(Identity(principal));
        Ok(next.run(req).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tide::http::{Method, Url};

    #[test]
    fn access_types_and_tables_of_requests() {
        assert_eq!(access_type(Method::Post, "/query/sql"), AccessType::Read);
        assert_eq!(access_type(Method::Post, "/tables"), AccessType::Create);
        assert_eq!(access_type(Method::Put, "/tables/t"), AccessType::Update);
        assert_eq!(access_type(Method::Delete, "/tables/t"), AccessType::Delete);
        let url = |s: &str| Url::parse(&format!("http://h{s}")).unwrap();
        assert_eq!(table_of(&url("/tables/t_OFFLINE/size")), Some("t".into()));
        assert_eq!(table_of(&url("/segments/t/s1/reload")), Some("t".into()));
        assert_eq!(table_of(&url("/x?tableName=u_REALTIME")), Some("u".into()));
        assert_eq!(table_of(&url("/tables")), None);
        assert!(public("/health") && public("/") && public("/main.js"));
        assert!(!public("/tables") && !public("/loggers/root"));
    }
}
