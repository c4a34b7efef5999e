//! Answers as the differential tests compare them: rows of [`Cell`]s, numbers as numbers (a
//! `SUM` is `DOUBLE` on one engine and `LONG` on the other, as in Pinot) and sums of doubles to a
//! relative 1e-9 (segments and servers add in different orders).

#![allow(dead_code)] // each test file uses what it needs

use super::{Variant, tables};
use engine::execute_sql;
use serde_json::Value;

/// A cell as compared: numbers as `f64`, everything else as its JSON text.
#[derive(Clone, Debug, PartialEq, PartialOrd)]
pub enum Cell {
    Null,
    Number(f64),
    Text(String),
}

pub fn cell(v: &Value) -> Cell {
    match v {
        Value::Null => Cell::Null,
        Value::Number(n) => Cell::Number(n.as_f64().unwrap_or(f64::NAN)),
        // An engine may render a number it cannot hold in JSON as a string ("NaN", "Infinity").
        Value::String(s) => match s.parse::<f64>() {
            Ok(f) if !f.is_finite() => Cell::Number(f),
            _ => Cell::Text(s.clone()),
        },
        other => Cell::Text(other.to_string()),
    }
}

pub fn same_cell(a: &Cell, b: &Cell) -> bool {
    match (a, b) {
        (Cell::Number(x), Cell::Number(y)) => {
            x == y || (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-9 * x.abs().max(y.abs())
        }
        _ => a == b,
    }
}

/// The rows of `sql` run in-process over `variant`'s tables, or its first exception.
pub fn answer(sql: &str, options: &str, variant: Variant) -> Result<Vec<Vec<Cell>>, String> {
    let r = execute_sql(sql, Some(options), tables(variant));
    if let Some(e) = r.exceptions.first() {
        return Err(format!("[{}] {}", e.error_code, e.message));
    }
    let table = r.result_table.ok_or("no result table")?;
    let json = serde_json::to_value(&table).map_err(|e| e.to_string())?;
    Ok(rows(&json))
}

/// The rows of a JSON `resultTable`.
pub fn rows(result_table: &Value) -> Vec<Vec<Cell>> {
    result_table["rows"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|row| {
                    row.as_array()
                        .map(|c| c.iter().map(cell).collect())
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn same_rows(a: &[Vec<Cell>], b: &[Vec<Cell>], ordered: bool) -> bool {
    let sort = |rows: &[Vec<Cell>]| {
        let mut rows = rows.to_vec();
        if !ordered {
            rows.sort_by(|x, y| x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal));
        }
        rows
    };
    let (a, b) = (sort(a), sort(b));
    a.len() == b.len()
        && a.iter()
            .zip(&b)
            .all(|(x, y)| x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_cell(p, q)))
}

pub fn show(a: &Result<Vec<Vec<Cell>>, String>) -> String {
    match a {
        Err(e) => format!("error {e}"),
        Ok(rows) => {
            let text = format!("{} rows {:?}", rows.len(), rows);
            text.chars().take(600).collect()
        }
    }
}

/// Fails with the first of `failures` (each a query and how its answers differ), if any, out of
/// `count` `what`s compared.
pub fn assert_none_differ(failures: &[String], count: usize, what: &str) {
    assert!(
        failures.is_empty(),
        "{} of {count} {what} differ:\n{}",
        failures.len(),
        failures[..failures.len().min(12)].join("\n")
    );
}
