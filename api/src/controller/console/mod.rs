//! The web console: a single-page app the controller serves at `/` (as Pinot's controller serves
//! its own on port 9000), with the pages and buttons a Pinot operator knows and nothing on the
//! server side but Tessera's public REST API — every action in the browser is the same call a
//! script would make.
//!
//! The app is three files compiled into the binary (`index.html`, `console.js`, `console.css`;
//! plain HTML, CSS and modern JavaScript, no build step, no third-party code). Pages are
//! client-side routes behind `#`, Pinot's own: `#/` cluster manager, `#/query` query console,
//! `#/tables`, `#/tenants/table/{table}` table page, `#/tenants/table/{table}/{segment}`
//! segment page, `#/login` when access control is on (`GET /auth/info`). The files are public
//! paths for the auth guard (a top-level name with a dot); the API calls they make carry the
//! credentials the user logs in with.

use super::ControllerState;
use crate::http::routes::Routes;
use tide::{Request, Response};

const INDEX: &str = include_str!("index.html");
const SCRIPT: &str = include_str!("console.js");
const STYLE: &str = include_str!("console.css");

/// Mounts the console's files.
pub fn routes(r: &mut Routes<'_, ControllerState>) {
    r.group("Console")
        .get("/", "The web console", |r| {
            file(r, INDEX, tide::http::mime::HTML)
        })
        .get("/index.html", "The web console", |r| {
            file(r, INDEX, tide::http::mime::HTML)
        })
        .get("/console.js", "The web console's script", |r| {
            file(r, SCRIPT, tide::http::mime::JAVASCRIPT)
        })
        .get("/console.css", "The web console's style", |r| {
            file(r, STYLE, tide::http::mime::CSS)
        });
}

async fn file(
    _req: Request<ControllerState>,
    body: &'static str,
    mime: tide::http::Mime,
) -> tide::Result {
    let mut res = Response::new(200);
    res.set_body(body);
    res.set_content_type(mime);
    // The files change with the binary only; a restart serves the new ones.
    res.insert_header("Cache-Control", "no-cache");
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_loads_its_script_and_style() {
        assert!(INDEX.contains("src=\"console.js\""));
        assert!(INDEX.contains("href=\"console.css\""));
        // Every route the script draws is one Pinot's console has.
        for route in ["#/query", "#/tables", "#/tenants/table/"] {
            assert!(SCRIPT.contains(route), "{route}");
        }
    }
}
