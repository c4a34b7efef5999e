//! The controller's auth endpoints, as Pinot's console calls them: `GET /auth/info` (which login
//! workflow to show: `{"workflow":"BASIC"}`, or `NONE` when access control is off) and
//! `GET /auth/verify[?tableName=&accessType=]` / `GET /auth/verify/v2` (`true` or `false`: whether
//! the request's credentials are valid and, for v1, allowed that access). All three are public
//! paths: they answer for any caller.

use super::{AccessType, Auth, Role};
use crate::http::body::query_param;
use crate::http::routes::Routes;
use std::sync::Arc;
use tide::{Request, Response};

/// A state that knows the process's access control.
pub trait AuthState: Clone + Send + Sync + 'static {
    fn auth(&self) -> Option<&Arc<Auth>>;
}

/// Mounts the three endpoints.
pub fn routes<S: AuthState>(r: &mut Routes<'_, S>) {
    r.group("Auth")
        .get(
            "/auth/info",
            "Which login the console shows (BASIC or NONE)",
            info::<S>,
        )
        .get(
            "/auth/verify",
            "Whether the request's credentials may access a table (tableName=, accessType=)",
            |r| verify::<S>(r, false),
        )
        .get(
            "/auth/verify/v2",
            "Whether the request's credentials are valid",
            |r| verify::<S>(r, true),
        );
}

fn json(v: serde_json::Value) -> tide::Result {
    let mut res = Response::new(200);
    res.set_body(v.to_string());
    res.set_content_type(tide::http::mime::JSON);
    Ok(res)
}

async fn info<S: AuthState>(req: Request<S>) -> tide::Result {
    let workflow = if req.state().auth().is_some() {
        "BASIC"
    } else {
        "NONE"
    };
    json(serde_json::json!({ "workflow": workflow }))
}

async fn verify<S: AuthState>(req: Request<S>, v2: bool) -> tide::Result {
    let Some(auth) = req.state().auth() else {
        return json(serde_json::Value::Bool(true));
    };
    let principal = super::authorization(&req).and_then(|a| auth.authenticate(Role::Controller, a));
    let allowed = principal.is_some_and(|p| {
        if v2 {
            return true;
        }
        let query = |k: &str| query_param(&req, k);
        let access = query("accessType")
            .and_then(|a| AccessType::parse(&a))
            .unwrap_or(AccessType::Read);
        p.has_permission(access) && query("tableName").is_none_or(|t| p.has_table(&t))
    });
    json(serde_json::Value::Bool(allowed))
}
