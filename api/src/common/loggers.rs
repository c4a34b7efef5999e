//! `/loggers`: logger levels and log files on every role, and (controller only) every
//! instance's log files through the controller.
//!
//! Local endpoints ([`routes`], mounted by every role over its [`LoggingHandle`]):
//!
//! | Method | Path | Answer |
//! |---|---|---|
//! | GET | `/loggers` | JSON array of known logger names, `root` first |
//! | GET | `/loggers/{name}` | `{"name","level","filter":null}`; unknown → 404 `Logger <name> not found` |
//! | PUT | `/loggers/{name}?level=L` | the record with the new level |
//! | GET | `/loggers/files` | sorted JSON array of paths relative to the log dir |
//! | GET | `/loggers/download?filePath=P` | the file, streamed as `application/octet-stream` |
//!
//! Remote endpoints ([`remote_routes`], controller only):
//!
//! | Method | Path | Answer |
//! |---|---|---|
//! | GET | `/loggers/instances` | `{"<instance>": [files], …}` for every online instance that answered |
//! | GET | `/loggers/instances/{name}` | that instance's `GET /loggers/files` |
//! | GET | `/loggers/instances/{name}/download?filePath=P` | that instance's download, streamed |
//! | GET | `/loggers/instances/{name}/loggers[/{logger}]` | that instance's `/loggers[/{logger}]` |
//! | PUT | `/loggers/instances/{name}/loggers/{logger}?level=L` | that instance's `PUT /loggers/{logger}` |
//!
//! Deliberate differences from Pinot (`reference/pinot-api.md` §1):
//! * A bad or missing level is **400** `Unrecognized logger level - <level>` and an unknown
//!   logger on PUT is **404** `Logger <name> not found` (Pinot answers 500 for both).
//! * Logger names are canonical (`tessera::broker`; `tessera.broker` and the Rust target
//!   `tessera_api::broker` name the same logger, see [`crate::logging::levels`]); records show
//!   the canonical name. Path segments are percent-decoded.
//! * `download` without `filePath` is 400 (Pinot: 403 for the path `null`).
//! * `/loggers/instances` answers the same body as Pinot but does not hide failures: instances
//!   that did not answer are named in the `X-Tessera-Failed-Instances` header (comma-separated)
//!   and logged at WARN. Instances that are not online are not asked (as in Pinot).
//! * `/loggers/instances/{name}`: unknown instance → 404 `Instance <name> not found` (Pinot: 500);
//!   offline or unreachable → 503 naming it; the remote's 4xx is carried with its status
//!   (Pinot's message `Failed to fetch logs from instance name: <name>`); a remote 5xx or a
//!   malformed answer → 502.
//! * Remote download carries the remote's 4xx (403 `Invalid file path: P`, 404 …) with the
//!   remote's message instead of streaming the error body as if it were the file.
//!
//! The `accept` header is never required. JSON endpoints refuse (406) only an `accept` header
//! that rules JSON out (no `application/json`, `application/*`, `*/*` or `+json` type with a
//! non-zero quality); downloads ignore it (Pinot's docs recommend the non-type
//! `application/octet_string`).
//!
//! Error bodies are rendered by the role's [`crate::http::ErrorBodies`] middleware, so these
//! routes belong on an app made by [`crate::http::new_app`].

use crate::http::ApiError;
use crate::http::body::query_param;
use crate::http::routes::Routes;
use crate::logging::{LevelFilter, LogFile, LoggingError, LoggingHandle, parse_level};
use async_std::io::{BufReader, ReadExt};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Duration;
use tide::http::{Url, mime};
use tide::{Body, Request, Response, StatusCode};

/// State of a role that serves the local logger endpoints.
pub trait LoggerState: Clone + Send + Sync + 'static {
    /// The process's (or, in tests, this instance's) logging.
    fn logging(&self) -> &LoggingHandle;
}

/// One cluster instance as the controller sees it, for the remote log endpoints.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstanceEndpoint {
    /// Instance name (`Server_127.0.0.1_8098`).
    pub name: String,
    /// Base URL of the instance's admin/HTTP port, e.g. `http://127.0.0.1:8098`.
    pub base_url: String,
    /// Whether the instance is live.
    pub online: bool,
}

/// State of the controller, which also serves other instances' log files.
pub trait RemoteLoggerState: LoggerState {
    /// Every instance of the cluster (online or not).
    fn instances(&self) -> Vec<InstanceEndpoint>;
    /// How long to wait for an instance's answer (headers, for downloads). Default 10 s.
    fn remote_timeout(&self) -> Duration {
        Duration::from_secs(10)
    }
}

/// Response header naming the instances `/loggers/instances` could not reach.
pub const FAILED_INSTANCES_HEADER: &str = "X-Tessera-Failed-Instances";

/// Mounts the local logger and log-file endpoints.
pub fn routes<S: LoggerState>(r: &mut Routes<'_, S>) {
    r.group("Logger")
        .get(
            "/loggers",
            "Lists the loggers, root first",
            list_loggers::<S>,
        )
        .get(
            "/loggers/files",
            "Lists this instance's log files",
            list_files::<S>,
        )
        .get(
            "/loggers/download",
            "Downloads one log file of this instance (filePath=)",
            download::<S>,
        )
        .get(
            "/loggers/:loggerName",
            "Reads a logger's level",
            get_logger::<S>,
        )
        .put(
            "/loggers/:loggerName",
            "Sets a logger's level (level=OFF|ERROR|WARN|INFO|DEBUG|TRACE)",
            put_logger::<S>,
        );
}

/// Mounts the controller-only endpoints serving other instances' log files.
pub fn remote_routes<S: RemoteLoggerState>(r: &mut Routes<'_, S>) {
    r.group("Logger")
        .get(
            "/loggers/instances",
            "Lists every online instance's log files",
            all_instance_files::<S>,
        )
        .get(
            "/loggers/instances/:instanceName",
            "Lists one instance's log files",
            instance_files::<S>,
        )
        .get(
            "/loggers/instances/:instanceName/download",
            "Downloads one log file of an instance (filePath=)",
            instance_download::<S>,
        )
        .get(
            "/loggers/instances/:instanceName/loggers",
            "Lists an instance's loggers",
            |r| instance_loggers::<S>(r, false),
        )
        .get(
            "/loggers/instances/:instanceName/loggers/:loggerName",
            "Reads a logger's level on an instance",
            |r| instance_loggers::<S>(r, false),
        )
        .put(
            "/loggers/instances/:instanceName/loggers/:loggerName",
            "Sets a logger's level on an instance (level=)",
            |r| instance_loggers::<S>(r, true),
        );
}

/// `GET|PUT /loggers/instances/{i}/loggers[/{logger}]`: the same call on instance `i`'s own
/// `/loggers[/{logger}]`, its answer passed back (so the console sets any process's levels).
async fn instance_loggers<S: RemoteLoggerState>(req: Request<S>, put: bool) -> tide::Result {
    let name = decoded_param(&req, "instanceName")?;
    let instance = online_instance(req.state(), &name)?;
    let timeout = req.state().remote_timeout();
    let tail = match req.param("loggerName") {
        Ok(logger) => logger.to_string(),
        Err(_) => String::new(),
    };
    let base = format!("{}/loggers", instance.base_url.trim_end_matches('/'));
    let text = if tail.is_empty() {
        base
    } else {
        format!("{base}/{tail}")
    };
    let mut url = Url::parse(&text)
        .map_err(|e| remote_api_error(&name, RemoteFailure::Unreachable(e.to_string())))?;
    url.set_query(req.url().query());
    let mut request = if put {
        client().put(url)
    } else {
        client().get(url)
    };
    if let Some(a) = crate::auth::authorization(&req) {
        request = request.header("Authorization", a);
    }
    let mut res = match async_std::future::timeout(timeout, request).await {
        Err(_) => {
            return Err(remote_api_error(
                &name,
                RemoteFailure::Unreachable(format!("no answer within {timeout:?}")),
            )
            .into());
        }
        Ok(Err(e)) => {
            return Err(remote_api_error(&name, RemoteFailure::Unreachable(e.to_string())).into());
        }
        Ok(Ok(res)) => res,
    };
    let status = res.status() as u16;
    let body = async_std::future::timeout(timeout, res.body_string())
        .await
        .map_err(|_| ApiError::new(503, format!("Instance {name} did not answer in time")))?
        .map_err(|e| ApiError::new(502, format!("Instance {name}: {e}")))?;
    let mut out = tide::Response::new(status);
    out.set_body(body);
    out.set_content_type(tide::http::mime::JSON);
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Local endpoints

async fn list_loggers<S: LoggerState>(req: Request<S>) -> tide::Result {
    accepts_json(&req)?;
    json_response(&req.state().logging().logger_names())
}

async fn get_logger<S: LoggerState>(req: Request<S>) -> tide::Result {
    accepts_json(&req)?;
    let name = decoded_param(&req, "loggerName")?;
    let logging = req.state().logging();
    let level = logging
        .level(&name)
        .ok_or_else(|| logger_not_found(&name))?;
    let canonical = crate::logging::canonical_name(&name).unwrap_or(name);
    json_response(&logger_record(&canonical, level))
}

async fn put_logger<S: LoggerState>(req: Request<S>) -> tide::Result {
    accepts_json(&req)?;
    let name = decoded_param(&req, "loggerName")?;
    let text = query_param(&req, "level").unwrap_or_default();
    let level = parse_level(&text)
        .ok_or_else(|| ApiError::bad_request(format!("Unrecognized logger level - {text}")))?;
    let canonical = req
        .state()
        .logging()
        .set_level(&name, level)
        .map_err(|e| match e {
            LoggingError::UnknownLogger(_) => logger_not_found(&name),
            other => ApiError::internal(other.to_string()),
        })?;
    json_response(&logger_record(&canonical, level))
}

async fn list_files<S: LoggerState>(req: Request<S>) -> tide::Result {
    accepts_json(&req)?;
    let files = req.state().logging().list_files().map_err(file_error)?;
    json_response(&files)
}

async fn download<S: LoggerState>(req: Request<S>) -> tide::Result {
    let path = query_param(&req, "filePath")
        .ok_or_else(|| ApiError::bad_request("Missing query parameter filePath"))?;
    let LogFile {
        file,
        len,
        file_name,
    } = req.state().logging().open_file(&path).map_err(file_error)?;
    // Serve exactly the length seen at open: the active log keeps growing while we stream.
    let reader = BufReader::new(async_std::fs::File::from(file).take(len));
    let size = usize::try_from(len).ok();
    let mut res = Response::new(StatusCode::Ok);
    res.set_body(Body::from_reader(reader, size));
    res.set_content_type(mime::BYTE_STREAM);
    res.insert_header("Content-Disposition", content_disposition(&file_name));
    Ok(res)
}

/// One logger as `GET`/`PUT /loggers/{name}` answer it (Pinot's `LoggerUtils` map).
#[derive(Debug, Serialize)]
struct LoggerRecord<'a> {
    name: &'a str,
    level: String,
    filter: Option<String>,
}

fn logger_record(name: &str, level: LevelFilter) -> LoggerRecord<'_> {
    LoggerRecord {
        name,
        level: level.to_string(),
        filter: None,
    }
}

fn logger_not_found(name: &str) -> ApiError {
    ApiError::not_found(format!("Logger {name} not found"))
}

/// Maps file errors to Pinot's statuses and messages.
fn file_error(e: LoggingError) -> ApiError {
    match e {
        LoggingError::InvalidFilePath(p) => ApiError::new(403, format!("Invalid file path: {p}")),
        LoggingError::FileGone(p) => ApiError::not_found(format!("File: {p} doesn't exists")),
        other => ApiError::internal(other.to_string()),
    }
}

// ---------------------------------------------------------------------------------------------
// Remote endpoints

/// Why an instance's answer could not be used.
#[derive(Debug)]
enum RemoteFailure {
    /// No connection, no answer in time, or a bad base URL.
    Unreachable(String),
    /// The instance answered with this error status and message.
    Status(u16, String),
    /// The instance answered 2xx with a body that is not a JSON array of strings.
    BadBody(String),
}

impl std::fmt::Display for RemoteFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RemoteFailure::Unreachable(why) => write!(f, "unreachable: {why}"),
            RemoteFailure::Status(status, message) => write!(f, "answered {status}: {message}"),
            RemoteFailure::BadBody(why) => write!(f, "malformed answer: {why}"),
        }
    }
}

fn client() -> surf::Client {
    static CLIENT: OnceLock<surf::Client> = OnceLock::new();
    CLIENT.get_or_init(crate::http::http_client).clone()
}

/// `<base>/loggers/<tail>` as a URL.
fn remote_url(base: &str, tail: &str) -> Result<Url, RemoteFailure> {
    let text = format!("{}/loggers/{tail}", base.trim_end_matches('/'));
    Url::parse(&text).map_err(|e| RemoteFailure::Unreachable(format!("bad base url '{base}': {e}")))
}

/// Sends `GET url`, waiting at most `timeout` for the response head.
async fn remote_get(
    url: Url,
    accept: &str,
    timeout: Duration,
    authorization: Option<&str>,
) -> Result<surf::Response, RemoteFailure> {
    let mut request = client().get(url).header("accept", accept);
    // The caller's own credentials travel on (Pinot forwards the `Authorization` header).
    if let Some(a) = authorization {
        request = request.header("Authorization", a);
    }
    match async_std::future::timeout(timeout, request).await {
        Err(_) => Err(RemoteFailure::Unreachable(format!(
            "no answer within {timeout:?}"
        ))),
        Ok(Err(e)) => Err(RemoteFailure::Unreachable(e.to_string())),
        Ok(Ok(res)) => Ok(res),
    }
}

/// The message of a remote error body (`{"code","error"}`, `{"message","status"}` or text).
async fn remote_error(mut res: surf::Response, timeout: Duration) -> RemoteFailure {
    let status = res.status() as u16;
    let text = async_std::future::timeout(timeout, res.body_string())
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    let message = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| {
            v.get("error")
                .or_else(|| v.get("message"))
                .and_then(|m| m.as_str().map(str::to_string))
        })
        .unwrap_or(text);
    RemoteFailure::Status(status, message)
}

/// One instance's `GET /loggers/files`.
async fn fetch_files(
    instance: InstanceEndpoint,
    timeout: Duration,
    authorization: Option<String>,
) -> Result<Vec<String>, RemoteFailure> {
    let url = remote_url(&instance.base_url, "files")?;
    let mut res = remote_get(url, "application/json", timeout, authorization.as_deref()).await?;
    if !res.status().is_success() {
        return Err(remote_error(res, timeout).await);
    }
    let text = async_std::future::timeout(timeout, res.body_string())
        .await
        .map_err(|_| RemoteFailure::Unreachable(format!("no answer within {timeout:?}")))?
        .map_err(|e| RemoteFailure::Unreachable(e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| RemoteFailure::BadBody(e.to_string()))
}

/// Finds an online instance by name: unknown → 404, offline → 503.
fn online_instance<S: RemoteLoggerState>(
    state: &S,
    name: &str,
) -> Result<InstanceEndpoint, ApiError> {
    let instance = state
        .instances()
        .into_iter()
        .find(|i| i.name == name)
        .ok_or_else(|| ApiError::not_found(format!("Instance {name} not found")))?;
    if !instance.online {
        return Err(ApiError::new(503, format!("Instance {name} is not online")));
    }
    Ok(instance)
}

/// The API error for a failed remote call to instance `name`.
fn remote_api_error(name: &str, failure: RemoteFailure) -> ApiError {
    let prefix = format!("Failed to fetch logs from instance name: {name}");
    match failure {
        RemoteFailure::Unreachable(why) => ApiError::new(503, format!("{prefix} ({why})")),
        RemoteFailure::Status(status, _) if (400..500).contains(&status) => {
            ApiError::new(status, prefix)
        }
        other => ApiError::new(502, format!("{prefix} ({other})")),
    }
}

async fn all_instance_files<S: RemoteLoggerState>(req: Request<S>) -> tide::Result {
    accepts_json(&req)?;
    let timeout = req.state().remote_timeout();
    let authorization = crate::auth::authorization(&req).map(str::to_string);
    let tasks: Vec<_> = req
        .state()
        .instances()
        .into_iter()
        .filter(|i| i.online)
        .map(|instance| {
            let name = instance.name.clone();
            (
                name,
                async_std::task::spawn(fetch_files(instance, timeout, authorization.clone())),
            )
        })
        .collect();
    let mut files = BTreeMap::new();
    let mut failed = Vec::new();
    for (name, task) in tasks {
        match task.await {
            Ok(list) => {
                files.insert(name, list);
            }
            Err(failure) => {
                log::warn!("cannot list log files of instance {name}: {failure}");
                failed.push(name);
            }
        }
    }
    let mut res = json_response(&files)?;
    if !failed.is_empty() {
        res.insert_header(FAILED_INSTANCES_HEADER, header_safe(&failed.join(", ")));
    }
    Ok(res)
}

async fn instance_files<S: RemoteLoggerState>(req: Request<S>) -> tide::Result {
    accepts_json(&req)?;
    let name = decoded_param(&req, "instanceName")?;
    let instance = online_instance(req.state(), &name)?;
    let files = fetch_files(
        instance,
        req.state().remote_timeout(),
        crate::auth::authorization(&req).map(str::to_string),
    )
    .await
    .map_err(|failure| remote_api_error(&name, failure))?;
    json_response(&files)
}

async fn instance_download<S: RemoteLoggerState>(req: Request<S>) -> tide::Result {
    let name = decoded_param(&req, "instanceName")?;
    let path = query_param(&req, "filePath")
        .ok_or_else(|| ApiError::bad_request("Missing query parameter filePath"))?;
    let instance = online_instance(req.state(), &name)?;
    let timeout = req.state().remote_timeout();
    let mut url =
        remote_url(&instance.base_url, "download").map_err(|f| remote_api_error(&name, f))?;
    url.query_pairs_mut().append_pair("filePath", &path);
    let mut remote = remote_get(
        url.clone(),
        "application/octet-stream",
        timeout,
        crate::auth::authorization(&req)
            .map(str::to_string)
            .as_deref(),
    )
    .await
    .map_err(|f| remote_api_error(&name, f))?;
    let status = remote.status() as u16;
    if !remote.status().is_success() {
        return Err(match remote_error(remote, timeout).await {
            RemoteFailure::Status(s, message) if (400..500).contains(&s) => {
                ApiError::new(s, message)
            }
            other => remote_api_error(&name, other),
        }
        .into());
    }
    let mut res = Response::new(StatusCode::try_from(status).unwrap_or(StatusCode::Ok));
    res.set_body(remote.take_body());
    res.set_content_type(mime::BYTE_STREAM);
    let base = path.rsplit('/').next().unwrap_or(&path);
    res.insert_header("Content-Disposition", content_disposition(base));
    res.insert_header("Content-Location", url.as_str());
    Ok(res)
}

// ---------------------------------------------------------------------------------------------
// Helpers shared by the handlers

/// 406 if an `accept` header is present and rules JSON out.
fn accepts_json<S>(req: &Request<S>) -> Result<(), ApiError> {
    let Some(values) = req.header("accept") else {
        return Ok(());
    };
    let header: String = values
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(",");
    if header.trim().is_empty() || media_ranges_allow_json(&header) {
        return Ok(());
    }
    Err(ApiError::new(
        406,
        format!("Not Acceptable: {header}; this endpoint produces application/json"),
    ))
}

/// True if any media range in an `accept` value admits `application/json` with quality > 0.
fn media_ranges_allow_json(header: &str) -> bool {
    header.split(',').any(|range| {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let zero_quality = parts.any(|p| {
            p.trim()
                .strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        let admits = matches!(
            media.as_str(),
            "*/*" | "*" | "application/*" | "application/json"
        ) || media.ends_with("+json");
        admits && !zero_quality
    })
}

/// A JSON 200 response.
fn json_response<T: Serialize>(value: &T) -> tide::Result {
    let mut res = Response::new(StatusCode::Ok);
    res.set_body(Body::from_json(value)?);
    res.set_content_type(mime::JSON);
    Ok(res)
}

/// A path parameter, percent-decoded (tide hands them over raw).
fn decoded_param<S>(req: &Request<S>, name: &str) -> Result<String, ApiError> {
    let raw = crate::http::body::path_param(req, name)?;
    percent_decode(&raw)
        .ok_or_else(|| ApiError::bad_request(format!("Invalid percent-encoding in '{raw}'")))
}

/// Decodes `%XX` escapes; `None` if an escape is malformed or the result is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Keeps printable ASCII other than `"`, `\`, `;` and `,`; everything else becomes `_`.
fn header_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_graphic() && !"\"\\;,".contains(c) || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `attachment; filename=<name>`, with an RFC 5987 `filename*` when the name is not plain ASCII.
fn content_disposition(file_name: &str) -> String {
    let plain: String = file_name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && !"\"\\;,".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if plain == file_name {
        return format!("attachment; filename={plain}");
    }
    let encoded: String = file_name
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    format!("attachment; filename={plain}; filename*=UTF-8''{encoded}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_headers() {
        for ok in [
            "application/json",
            "*/*",
            "text/html,application/xhtml+xml,*/*;q=0.8",
            "application/*",
            "application/problem+json",
        ] {
            assert!(media_ranges_allow_json(ok), "{ok}");
        }
        for bad in [
            "text/plain",
            "application/json;q=0",
            "application/octet-stream",
            "text/html",
        ] {
            assert!(!media_ranges_allow_json(bad), "{bad}");
        }
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(
            percent_decode("tessera%3A%3Abroker").as_deref(),
            Some("tessera::broker")
        );
        assert_eq!(percent_decode("a%2e%2E").as_deref(), Some("a.."));
        assert_eq!(percent_decode("plain").as_deref(), Some("plain"));
        assert_eq!(percent_decode("%zz"), None);
        assert_eq!(percent_decode("%4"), None);
        assert_eq!(percent_decode("%ff"), None);
    }

    #[test]
    fn content_disposition_is_header_safe() {
        assert_eq!(content_disposition("a.log"), "attachment; filename=a.log");
        assert_eq!(
            content_disposition("é \"x\r\n"),
            "attachment; filename=___x__; filename*=UTF-8''%C3%A9%20%22x%0D%0A"
        );
        assert_eq!(header_safe("a, b\r\n"), "a_ b__");
    }
}
