//! [`Routes`]: the one place a role mounts its endpoints, which also records each one — method,
//! path, a one-line summary, its group — so the role's `GET /openapi.json` (an OpenAPI 3
//! document) and `GET /help` (the same as a browsable page) describe exactly the endpoints that
//! exist: an endpoint cannot be mounted without being documented, nor documented without being
//! mounted.

use serde_json::{Map, Value as Json, json};
use std::sync::Arc;

/// One documented endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndpointDoc {
    pub method: &'static str,
    /// Tide's form (`/tables/:table`).
    pub path: String,
    pub summary: &'static str,
    pub group: &'static str,
}

impl EndpointDoc {
    /// The path in OpenAPI's form (`/tables/{table}`).
    pub fn openapi_path(&self) -> String {
        self.path
            .split('/')
            .map(
                |s| match s.strip_prefix(':').or_else(|| s.strip_prefix('*')) {
                    Some(name) if !name.is_empty() => format!("{{{name}}}"),
                    _ => s.to_string(),
                },
            )
            .collect::<Vec<_>>()
            .join("/")
    }

    fn path_params(&self) -> Vec<&str> {
        self.path
            .split('/')
            .filter_map(|s| s.strip_prefix(':').or_else(|| s.strip_prefix('*')))
            .filter(|n| !n.is_empty())
            .collect()
    }
}

/// A role's app while its endpoints are mounted.
pub struct Routes<'a, S> {
    app: &'a mut tide::Server<S>,
    table: Vec<EndpointDoc>,
    group: &'static str,
}

impl<'a, S: Clone + Send + Sync + 'static> Routes<'a, S> {
    /// Mounts onto `app`.
    pub fn new(app: &'a mut tide::Server<S>) -> Routes<'a, S> {
        Routes {
            app,
            table: Vec::new(),
            group: "General",
        }
    }

    /// The group (OpenAPI tag) of the endpoints mounted next.
    pub fn group(&mut self, name: &'static str) -> &mut Self {
        self.group = name;
        self
    }

    /// The app itself, for what is not an endpoint (middleware).
    pub fn app(&mut self) -> &mut tide::Server<S> {
        self.app
    }

    fn add(
        &mut self,
        method: &'static str,
        path: &str,
        summary: &'static str,
        endpoint: impl tide::Endpoint<S>,
    ) -> &mut Self {
        let mut route = self.app.at(path);
        match method {
            "GET" => route.get(endpoint),
            "POST" => route.post(endpoint),
            "PUT" => route.put(endpoint),
            _ => route.delete(endpoint),
        };
        self.table.push(EndpointDoc {
            method,
            path: path.to_string(),
            summary,
            group: self.group,
        });
        self
    }

    /// `GET path`.
    pub fn get(
        &mut self,
        path: &str,
        summary: &'static str,
        endpoint: impl tide::Endpoint<S>,
    ) -> &mut Self {
        self.add("GET", path, summary, endpoint)
    }

    /// `POST path`.
    pub fn post(
        &mut self,
        path: &str,
        summary: &'static str,
        endpoint: impl tide::Endpoint<S>,
    ) -> &mut Self {
        self.add("POST", path, summary, endpoint)
    }

    /// `PUT path`.
    pub fn put(
        &mut self,
        path: &str,
        summary: &'static str,
        endpoint: impl tide::Endpoint<S>,
    ) -> &mut Self {
        self.add("PUT", path, summary, endpoint)
    }

    /// `DELETE path`.
    pub fn delete(
        &mut self,
        path: &str,
        summary: &'static str,
        endpoint: impl tide::Endpoint<S>,
    ) -> &mut Self {
        self.add("DELETE", path, summary, endpoint)
    }

    /// Mounts `GET /openapi.json` and `GET /help` over every endpoint mounted so far (and
    /// themselves); returns the table.
    pub fn document(mut self, title: &str) -> Vec<EndpointDoc> {
        self.group("Documentation");
        let mut table = self.table.clone();
        for (path, summary) in [
            ("/openapi.json", "This API as an OpenAPI 3 document"),
            ("/help", "This API as a browsable page"),
        ] {
            table.push(EndpointDoc {
                method: "GET",
                path: path.to_string(),
                summary,
                group: "Documentation",
            });
        }
        let spec = Arc::new(openapi(title, &table).to_string());
        let page = Arc::new(help_page(title, &table));
        self.app.at("/openapi.json").get(move |_| {
            let spec = spec.clone();
            async move {
                let mut res = tide::Response::new(200);
                res.set_body(spec.as_str());
                res.set_content_type(tide::http::mime::JSON);
                Ok(res)
            }
        });
        self.app.at("/help").get(move |_| {
            let page = page.clone();
            async move {
                let mut res = tide::Response::new(200);
                res.set_body(page.as_str());
                res.set_content_type(tide::http::mime::HTML);
                Ok(res)
            }
        });
        table
    }
}

/// The OpenAPI 3 document of `table`.
pub fn openapi(title: &str, table: &[EndpointDoc]) -> Json {
    let mut paths = Map::new();
    for e in table {
        let entry = paths
            .entry(e.openapi_path())
            .or_insert_with(|| Json::Object(Map::new()));
        let parameters: Vec<Json> = e
            .path_params()
            .into_iter()
            .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
            .collect();
        let mut op = json!({
            "summary": e.summary,
            "tags": [e.group],
            "operationId": format!("{} {}", e.method, e.path),
            "responses": {"200": {"description": "Success"}, "default": {"description": "Pinot's error body: {\"code\", \"error\"}"}},
        });
        if !parameters.is_empty() {
            op["parameters"] = Json::Array(parameters);
        }
        entry[e.method.to_ascii_lowercase()] = op;
    }
    json!({
        "openapi": "3.0.3",
        "info": {"title": title, "version": env!("CARGO_PKG_VERSION")},
        "paths": paths,
    })
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `table` as a page: one section per group, one row per endpoint.
pub fn help_page(title: &str, table: &[EndpointDoc]) -> String {
    let mut groups: Vec<&'static str> = Vec::new();
    for e in table {
        if !groups.contains(&e.group) {
            groups.push(e.group);
        }
    }
    let mut body = String::new();
    for g in groups {
        body.push_str(&format!("<h2>{}</h2>\n<table>\n", escape(g)));
        for e in table.iter().filter(|e| e.group == g) {
            body.push_str(&format!(
                "<tr><td class=\"m {m}\">{m}</td><td><code>{p}</code></td><td>{s}</td></tr>\n",
                m = e.method,
                p = escape(&e.openapi_path()),
                s = escape(e.summary)
            ));
        }
        body.push_str("</table>\n");
    }
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{t}</title><style>\
         body{{font-family:system-ui,sans-serif;margin:20px;color:#1d2330}}\
         table{{border-collapse:collapse;margin-bottom:18px}}\
         td{{border-bottom:1px solid #d9dee7;padding:4px 10px;vertical-align:top}}\
         .m{{font-weight:700;font-family:monospace}}.GET{{color:#067647}}.POST{{color:#1f5fbf}}\
         .PUT{{color:#b45309}}.DELETE{{color:#b42318}}</style></head>\n<body><h1>{t}</h1>\
         <p>The same as an OpenAPI 3 document: <a href=\"openapi.json\">openapi.json</a>.</p>\n{body}</body></html>\n",
        t = escape(title)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[async_std::test]
    async fn mounted_endpoints_are_the_documented_ones() {
        let mut app = tide::new();
        let mut r = Routes::new(&mut app);
        r.group("Table")
            .get("/tables/:table", "Reads a table", |_| async { Ok("t") })
            .delete("/tables/:table", "Deletes a table", |_| async { Ok("d") });
        let table = r.document("Test API");
        let spec = openapi("Test API", &table);
        let op = &spec["paths"]["/tables/{table}"];
        assert_eq!(op["get"]["summary"], "Reads a table");
        assert_eq!(op["delete"]["tags"][0], "Table");
        assert_eq!(op["get"]["parameters"][0]["name"], "table");
        assert!(spec["paths"]["/openapi.json"]["get"].is_object());
        let res: tide::http::Response = app
            .respond(tide::http::Request::new(
                tide::http::Method::Get,
                "http://x/openapi.json",
            ))
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let mut res: tide::http::Response = app
            .respond(tide::http::Request::new(
                tide::http::Method::Get,
                "http://x/help",
            ))
            .await
            .unwrap();
        let page = res.body_string().await.unwrap();
        assert!(page.contains("<code>/tables/{table}</code>"));
        let res: tide::http::Response = app
            .respond(tide::http::Request::new(
                tide::http::Method::Delete,
                "http://x/tables/a",
            ))
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
    }
}
