//! `multipart/form-data` bodies (RFC 7578): segment uploads and file ingestion send one part
//! each. Bodies are already bounded by the upload limit before they get here; a large one is a
//! mapped file whose parts are found as byte ranges ([`spans`]), never copied into memory.

use super::ApiError;
use std::ops::Range;

/// One form part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The `name` of the `Content-Disposition` header.
    pub name: String,
    /// The `filename`, when the part is a file.
    pub filename: Option<String>,
    /// The part's bytes.
    pub data: Vec<u8>,
}

/// The boundary from a `multipart/form-data; boundary=...` content type.
pub fn boundary(content_type: &str) -> Option<String> {
    let mut pieces = content_type.split(';');
    let kind = pieces.next()?.trim();
    if !kind.eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    pieces.find_map(|p| {
        let (k, v) = p.trim().split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| v.trim().trim_matches('"').to_string())
    })
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if from > haystack.len() || needle.is_empty() {
        return None;
    }
    haystack[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

fn disposition_value(header: &str, key: &str) -> Option<String> {
    header.split(';').find_map(|p| {
        let (k, v) = p.trim().split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case(key)
            .then(|| v.trim().trim_matches('"').to_string())
    })
}

/// Where one form part's bytes lie in its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub name: String,
    pub filename: Option<String>,
    pub data: Range<usize>,
}

/// Splits a multipart body into its parts (copies of their bytes).
pub fn parse(body: &[u8], boundary: &str) -> Result<Vec<Part>, ApiError> {
    Ok(spans(body, boundary)?
        .into_iter()
        .map(|s| Part {
            name: s.name,
            filename: s.filename,
            data: body[s.data].to_vec(),
        })
        .collect())
}

/// Finds the parts of a multipart body: their names and where their bytes lie.
pub fn spans(body: &[u8], boundary: &str) -> Result<Vec<Span>, ApiError> {
    let bad = |why: &str| ApiError::bad_request(format!("Invalid multi-part form: {why}"));
    let delimiter = format!("--{boundary}").into_bytes();
    let mut pos = find(body, &delimiter, 0).ok_or_else(|| bad("boundary not found"))?;
    let mut parts = Vec::new();
    loop {
        pos += delimiter.len();
        if body[pos..].starts_with(b"--") {
            return Ok(parts);
        }
        // Skip to the end of the delimiter line.
        let line_end = find(body, b"\r\n", pos).ok_or_else(|| bad("truncated part"))?;
        let head_start = line_end + 2;
        let head_end =
            find(body, b"\r\n\r\n", head_start).ok_or_else(|| bad("truncated part headers"))?;
        let head = String::from_utf8_lossy(&body[head_start..head_end]);
        let mut name = None;
        let mut filename = None;
        for line in head.split("\r\n") {
            if let Some((k, v)) = line.split_once(':')
                && k.trim().eq_ignore_ascii_case("content-disposition")
            {
                name = disposition_value(v, "name");
                filename = disposition_value(v, "filename");
            }
        }
        let data_start = head_end + 4;
        let mut closing = b"\r\n".to_vec();
        closing.extend_from_slice(&delimiter);
        let data_end =
            find(body, &closing, data_start).ok_or_else(|| bad("missing closing boundary"))?;
        parts.push(Span {
            name: name.ok_or_else(|| bad("part without a name"))?,
            filename,
            data: data_start..data_end,
        });
        pos = data_end + 2;
    }
}

/// Builds a multipart body with one file part (for clients and tests). Returns the content type.
pub fn encode_file(field: &str, filename: &str, data: &[u8]) -> (String, Vec<u8>) {
    encode_parts(&[(field, Some(filename), data)])
}

/// Builds a multipart body of `(field, filename, bytes)` parts (a part without a file name is
/// a plain field). Returns the content type.
pub fn encode_parts(parts: &[(&str, Option<&str>, &[u8])]) -> (String, Vec<u8>) {
    let seed = parts
        .iter()
        .fold(0u64, |h, (_, _, d)| h.rotate_left(7) ^ fnv_hash(d));
    let boundary = format!("tessera{seed:016x}");
    let size: usize = parts.iter().map(|(_, _, d)| d.len() + 256).sum();
    let mut out = Vec::with_capacity(size + 64);
    for (field, filename, data) in parts {
        out.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        match filename {
            Some(f) => out.extend_from_slice(
                format!(
                    "Content-Disposition: form-data; name=\"{field}\"; filename=\"{f}\"\r\n\
                     Content-Type: application/octet-stream\r\n\r\n"
                )
                .as_bytes(),
            ),
            None => out.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{field}\"\r\n\r\n").as_bytes(),
            ),
        }
        out.extend_from_slice(data);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), out)
}

/// A cheap content hash for boundaries (FNV-1a); the boundary only has to be unlikely to occur.
fn fnv_hash(data: &[u8]) -> u64 {
    data.iter().take(4096).fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100000001b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_curl_style_bodies() {
        let body = b"--XYZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\nContent-Type: text/csv\r\n\r\na,b\r\n1,2\r\n--XYZ\r\nContent-Disposition: form-data; name=\"x\"\r\n\r\nv\r\n--XYZ--\r\n";
        let parts = parse(body, "XYZ").unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].name, "file");
        assert_eq!(parts[0].filename.as_deref(), Some("a.csv"));
        assert_eq!(parts[0].data, b"a,b\r\n1,2");
        assert_eq!(parts[1].data, b"v");
        assert_eq!(
            boundary("multipart/form-data; boundary=\"XYZ\"").as_deref(),
            Some("XYZ")
        );
        assert_eq!(boundary("application/json"), None);
        assert!(parse(b"garbage", "XYZ").is_err());
        assert!(
            parse(
                b"--XYZ\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\nno end",
                "XYZ"
            )
            .is_err()
        );
    }

    proptest! {
        #[test]
        fn encode_then_parse_round_trips(data in proptest::collection::vec(any::<u8>(), 0..2000)) {
            let (ct, body) = encode_file("seg", "seg.tar.gz", &data);
            let b = boundary(&ct).unwrap();
            let parts = parse(&body, &b).unwrap();
            prop_assert_eq!(parts.len(), 1);
            prop_assert_eq!(&parts[0].data, &data);
            prop_assert_eq!(parts[0].filename.as_deref(), Some("seg.tar.gz"));
        }
    }
}
