//! The input files of a job: every file under `inputDirURI` (its subdirectories too with
//! `searchRecursively`) whose absolute path matches `includeFileNamePattern` and not
//! `excludeFileNamePattern`. Patterns are Java `PathMatcher` syntax as Pinot reads them:
//! `glob:**/*.csv` or `regex:.*\.csv`, matched against the whole path.

use super::JobError;
use std::path::{Path, PathBuf};

/// A file name pattern.
pub enum Pattern {
    Glob(glob::Pattern),
    Regex(regex::Regex),
}

impl Pattern {
    /// Reads `glob:…` or `regex:…` (a pattern without a prefix is a glob).
    pub fn parse(text: &str) -> Result<Pattern, JobError> {
        let bad = |e: String| JobError::Spec(format!("invalid file name pattern '{text}': {e}"));
        if let Some(r) = text.strip_prefix("regex:") {
            return regex::Regex::new(&format!("^(?:{r})$"))
                .map(Pattern::Regex)
                .map_err(|e| bad(e.to_string()));
        }
        let g = text.strip_prefix("glob:").unwrap_or(text);
        glob::Pattern::new(g)
            .map(Pattern::Glob)
            .map_err(|e| bad(e.to_string()))
    }

    /// Whether `path` (absolute) matches.
    pub fn matches(&self, path: &Path) -> bool {
        match self {
            Pattern::Glob(g) => g.matches_path_with(
                path,
                glob::MatchOptions {
                    require_literal_separator: true,
                    ..glob::MatchOptions::new()
                },
            ),
            Pattern::Regex(r) => r.is_match(&path.to_string_lossy()),
        }
    }
}

/// A directory of a `file://` URI or a plain path.
pub fn local_path(uri: &str) -> PathBuf {
    PathBuf::from(uri.strip_prefix("file://").unwrap_or(uri))
}

/// The input files, sorted by path (so sequence ids are stable).
pub fn list(
    dir: &Path,
    include: Option<&str>,
    exclude: Option<&str>,
    recursive: bool,
) -> Result<Vec<PathBuf>, JobError> {
    let include = include.map(Pattern::parse).transpose()?;
    let exclude = exclude.map(Pattern::parse).transpose()?;
    let root = std::fs::canonicalize(dir)
        .map_err(|e| JobError::Input(format!("input directory '{}': {e}", dir.display())))?;
    let mut out = Vec::new();
    let mut dirs = vec![root];
    while let Some(d) = dirs.pop() {
        let entries = std::fs::read_dir(&d)
            .map_err(|e| JobError::Input(format!("cannot list '{}': {e}", d.display())))?;
        for entry in entries {
            let path = entry
                .map_err(|e| JobError::Input(format!("cannot list '{}': {e}", d.display())))?
                .path();
            if path.is_dir() {
                if recursive {
                    dirs.push(path);
                }
                continue;
            }
            if include.as_ref().is_some_and(|p| !p.matches(&path))
                || exclude.as_ref().is_some_and(|p| p.matches(&path))
            {
                continue;
            }
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_regexes_match_whole_paths() {
        let p = Pattern::parse("glob:**/*.csv").unwrap();
        assert!(p.matches(Path::new("/data/in/a.csv")));
        assert!(p.matches(Path::new("/data/in/deep/b.csv")));
        assert!(!p.matches(Path::new("/data/in/a.csv.gz")));
        let p = Pattern::parse("regex:.*/part-[0-9]+\\.parquet").unwrap();
        assert!(p.matches(Path::new("/d/part-01.parquet")));
        assert!(!p.matches(Path::new("/d/part-01.parquet.crc")));
        assert!(Pattern::parse("regex:(").is_err());
    }

    #[test]
    fn listing_filters_and_recurses() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a.csv", "b.json", "sub/c.csv", "sub/skip_me.csv"] {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        let names = |v: Vec<PathBuf>| -> Vec<String> {
            v.iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        let flat = list(dir.path(), Some("glob:**/*.csv"), None, false).unwrap();
        assert_eq!(names(flat), ["a.csv"]);
        let deep = list(
            dir.path(),
            Some("glob:**/*.csv"),
            Some("glob:**/skip_*"),
            true,
        )
        .unwrap();
        assert_eq!(names(deep), ["a.csv", "c.csv"]);
        assert!(list(&dir.path().join("nope"), None, None, false).is_err());
    }
}
