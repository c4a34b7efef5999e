//! Upsert tables on a server (`upsertConfig.mode` `FULL` or `PARTIAL`, the schema's
//! `primaryKeyColumns`): a query sees only the latest row of each primary key, across the
//! table's stored and consuming segments on this server (Pinot's model: a key's rows all come
//! from one stream partition, so one server holds all of them).
//!
//! For each table this keeps every key's location — segment, doc (a stored copy's doc id, or a
//! consuming segment's row number) and comparison value — and, per segment, the docs still
//! valid. A row replaces the key's current one when its comparison value (the
//! `comparisonColumns`' first, default the time column) is at least as large; ties go to the
//! later segment, then the later doc. What queries see is each segment's valid docs, set on the
//! segment ([`ImmutableSegment::set_queryable_docs`]; a consuming segment's chunks each get their
//! slice), which the engine intersects with every filter. A stored copy is scanned when it
//! arrives (download, restart, reload, the commit of a consuming segment); a consuming segment's
//! rows are added as they are decoded.
//!
//! `PARTIAL` mode merges an arriving row with the key's latest row column by column
//! (`partialUpsertStrategies`, default `OVERWRITE`) before it is indexed, so this keeps the
//! latest whole row of each key too.

use engine::server::execute_server;
use engine::server::result::IntermediateData;
use engine::{MemoryTables, QueryContext, TableProvider, plan_sql};
use planner::plan::QueryPlan;
use roaring::RoaringBitmap;
use segments::ImmutableSegment;
use segments::types::table_config::{TableConfig, UpsertMode};
use segments::types::{FieldSpec, Schema, Value};
use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

/// How one column of a `PARTIAL` upsert table merges the latest row into an arriving one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The arriving value, unless it is null.
    Overwrite,
    /// The arriving value, null included.
    ForceOverwrite,
    /// The earlier value, unless it is null.
    Ignore,
    /// The sum of both.
    Increment,
    /// The larger / smaller of both.
    Max,
    Min,
    /// A multi-value column's values followed by the arriving ones / their union.
    Append,
    Union,
}

impl Strategy {
    fn parse(text: &str) -> Option<Strategy> {
        Some(match text.trim().to_ascii_uppercase().as_str() {
            "OVERWRITE" => Strategy::Overwrite,
            "FORCE_OVERWRITE" => Strategy::ForceOverwrite,
            "IGNORE" => Strategy::Ignore,
            "INCREMENT" => Strategy::Increment,
            "MAX" => Strategy::Max,
            "MIN" => Strategy::Min,
            "APPEND" => Strategy::Append,
            "UNION" => Strategy::Union,
            _ => return None,
        })
    }

    fn merge(self, old: &Value, new: Value) -> Value {
        if old.is_null() {
            return new;
        }
        match self {
            Strategy::ForceOverwrite => new,
            _ if new.is_null() => old.clone(),
            Strategy::Overwrite => new,
            Strategy::Ignore => old.clone(),
            Strategy::Increment => match (old, &new) {
                (Value::Int(a), Value::Int(b)) => Value::Int(a.wrapping_add(*b)),
                (Value::Long(a), Value::Long(b)) => Value::Long(a.wrapping_add(*b)),
                _ => match (old.as_f64(), new.as_f64()) {
                    (Some(a), Some(b)) => cast_like(Value::Double(a + b), &new),
                    _ => new,
                },
            },
            Strategy::Max => match old.total_cmp(&new) {
                Ordering::Greater => old.clone(),
                _ => new,
            },
            Strategy::Min => match old.total_cmp(&new) {
                Ordering::Less => old.clone(),
                _ => new,
            },
            Strategy::Append | Strategy::Union => {
                let items = |v: &Value| match v {
                    Value::Array(a) => a.clone(),
                    other => vec![other.clone()],
                };
                let mut out = items(old);
                for v in items(&new) {
                    if self == Strategy::Append || !out.contains(&v) {
                        out.push(v);
                    }
                }
                Value::Array(out)
            }
        }
    }
}

/// `v` in the type of `like` (a sum of two FLOATs stays a FLOAT).
fn cast_like(v: Value, like: &Value) -> Value {
    match like.data_type() {
        Some(dt) => v.cast(dt).unwrap_or_else(|_| like.clone()),
        None => v,
    }
}

/// How a table's rows are keyed, compared and merged.
#[derive(Clone, Debug)]
pub struct UpsertSpec {
    schema: Schema,
    /// Field positions of the primary key and of the comparison column.
    key: Vec<usize>,
    comparison: usize,
    /// Per field, for `PARTIAL` mode.
    partial: Option<Vec<Strategy>>,
}

impl UpsertSpec {
    /// The spec of an upsert table (None when upsert is off or the config cannot key rows).
    pub fn new(schema: &Schema, config: &TableConfig) -> Result<Option<UpsertSpec>, String> {
        let Some(u) = config
            .upsert_config
            .as_ref()
            .filter(|u| u.mode != UpsertMode::None)
        else {
            return Ok(None);
        };
        let position = |name: &str| {
            schema
                .fields
                .iter()
                .position(|f| f.name == name)
                .ok_or_else(|| format!("upsert column '{name}' is not in the schema"))
        };
        let key = schema
            .primary_key_columns
            .iter()
            .map(|c| position(c))
            .collect::<Result<Vec<_>, _>>()?;
        if key.is_empty() {
            return Err("an upsert table's schema needs primaryKeyColumns".into());
        }
        let comparison_name = u
            .comparison_columns
            .as_ref()
            .and_then(|c| c.first().cloned())
            .or_else(|| config.time_column().map(str::to_string))
            .ok_or("an upsert table needs comparisonColumns or a time column")?;
        let comparison = position(&comparison_name)?;
        let partial = match u.mode {
            UpsertMode::Partial => {
                let default = u
                    .default_partial_upsert_strategy
                    .as_deref()
                    .map(|s| Strategy::parse(s).ok_or(format!("unknown strategy '{s}'")))
                    .transpose()?
                    .unwrap_or(Strategy::Overwrite);
                let named = u.partial_upsert_strategies.clone().unwrap_or_default();
                let strategies = schema
                    .fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        if key.contains(&i) || i == comparison {
                            return Ok(Strategy::ForceOverwrite);
                        }
                        match named.get(&f.name).and_then(|v| v.as_str()) {
                            Some(s) => Strategy::parse(s)
                                .ok_or_else(|| format!("unknown strategy '{s}' for '{}'", f.name)),
                            None => Ok(default),
                        }
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                Some(strategies)
            }
            _ => None,
        };
        Ok(Some(UpsertSpec {
            schema: schema.clone(),
            key,
            comparison,
            partial,
        }))
    }

    fn key_of(&self, row: &[Value]) -> String {
        let mut k = String::new();
        for &i in &self.key {
            k.push_str(&row[i].to_string());
            k.push('\u{1}');
        }
        k
    }
}

/// Where a key's current row is.
#[derive(Clone, Debug)]
struct Loc {
    segment: Arc<str>,
    doc: u32,
    comparison: Value,
    sequence: u64,
}

impl Loc {
    /// Whether `self` (arriving) replaces `current`.
    fn beats(&self, current: &Loc) -> bool {
        self.comparison
            .total_cmp(&current.comparison)
            .then(self.sequence.cmp(&current.sequence))
            .then(self.doc.cmp(&current.doc))
            != Ordering::Less
    }
}

/// How queries see one tracked segment.
enum View {
    Stored(Arc<ImmutableSegment>),
    /// Chunks with the row number of their first doc.
    Consuming(Vec<(u32, Arc<ImmutableSegment>)>),
}

struct Tracked {
    valid: RoaringBitmap,
    view: View,
}

#[derive(Default)]
struct State {
    keys: HashMap<String, Loc>,
    /// The latest whole row of each key (`PARTIAL` mode only).
    latest: HashMap<String, Vec<Value>>,
    segments: HashMap<Arc<str>, Tracked>,
}

/// One upsert table's keys and valid docs.
pub struct UpsertTable {
    spec: UpsertSpec,
    state: Mutex<State>,
}

/// A segment's sequence in its partition (`<table>__<partition>__<seq>__<time>`), 0 otherwise.
pub fn sequence_of(segment: &str) -> u64 {
    segment
        .split("__")
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

impl UpsertTable {
    /// An upsert table with nothing tracked yet.
    pub fn new(spec: UpsertSpec) -> UpsertTable {
        UpsertTable {
            spec,
            state: Mutex::new(State::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Tracks a stored copy of `name` (replacing what was tracked under the name: the consuming
    /// segment it was, or an older copy): scans its keys and sets what queries see. Blocking.
    pub fn add_stored(&self, name: &str, segment: Arc<ImmutableSegment>) -> Result<(), String> {
        if let Some(Tracked {
            view: View::Stored(s),
            ..
        }) = self.lock().segments.get(name)
            && Arc::ptr_eq(s, &segment)
        {
            return Ok(());
        }
        let rows = self.scan(&segment)?;
        let mut state = self.lock();
        forget(&mut state, name);
        let name: Arc<str> = Arc::from(name);
        state.segments.insert(
            name.clone(),
            Tracked {
                valid: RoaringBitmap::new(),
                view: View::Stored(segment),
            },
        );
        let mut changed = BTreeSet::new();
        for (doc, row) in rows {
            self.place(&mut state, &name, doc, row, &mut changed);
        }
        changed.insert(name);
        publish(&state, &changed);
        Ok(())
    }

    /// Stops tracking `name` (its copy is gone from this server).
    pub fn remove(&self, name: &str) {
        let mut state = self.lock();
        forget(&mut state, name);
    }

    /// The names of the stored copies tracked.
    pub fn stored(&self) -> Vec<(String, Arc<ImmutableSegment>)> {
        self.lock()
            .segments
            .iter()
            .filter_map(|(n, t)| match &t.view {
                View::Stored(s) => Some((n.to_string(), s.clone())),
                View::Consuming(_) => None,
            })
            .collect()
    }

    /// `PARTIAL` mode: each arriving row merged with its key's latest row (rows of one batch in
    /// order). Rows of a `FULL` table come back as they are.
    pub fn merge(&self, rows: Vec<Vec<Value>>) -> Vec<Vec<Value>> {
        let Some(strategies) = &self.spec.partial else {
            return rows;
        };
        let state = self.lock();
        let mut batch: HashMap<String, Vec<Value>> = HashMap::new();
        rows.into_iter()
            .map(|row| {
                let key = self.spec.key_of(&row);
                let previous = batch.get(&key).or_else(|| state.latest.get(&key));
                let merged = match previous {
                    Some(old)
                        if row[self.spec.comparison].total_cmp(&old[self.spec.comparison])
                            != Ordering::Less =>
                    {
                        row.into_iter()
                            .zip(old)
                            .zip(strategies)
                            .map(|((new, old), s)| s.merge(old, new))
                            .collect()
                    }
                    _ => row,
                };
                batch.insert(key, merged.clone());
                merged
            })
            .collect()
    }

    /// Adds rows of consuming segment `name` starting at row number `first` (what
    /// [`UpsertTable::merge`] returned). Queries see them once the chunks holding them are
    /// published ([`UpsertTable::set_chunks`]).
    pub fn add_rows(&self, name: &str, first: u32, rows: &[Vec<Value>]) {
        let mut state = self.lock();
        let name: Arc<str> = match state.segments.get_key_value(name) {
            Some((k, _)) => k.clone(),
            None => {
                let k: Arc<str> = Arc::from(name);
                state.segments.insert(
                    k.clone(),
                    Tracked {
                        valid: RoaringBitmap::new(),
                        view: View::Consuming(Vec::new()),
                    },
                );
                k
            }
        };
        let mut changed = BTreeSet::new();
        for (i, row) in rows.iter().enumerate() {
            self.place(
                &mut state,
                &name,
                first + i as u32,
                row.clone(),
                &mut changed,
            );
        }
        changed.remove(&name);
        publish(&state, &changed);
    }

    /// Publishes the chunks of consuming segment `name` (each with its first row number) with
    /// the valid rows they hold.
    pub fn set_chunks(&self, name: &str, chunks: Vec<(u32, Arc<ImmutableSegment>)>) {
        let mut state = self.lock();
        let Some(key) = state.segments.get_key_value(name).map(|(k, _)| k.clone()) else {
            return;
        };
        if let Some(t) = state.segments.get_mut(name) {
            t.view = View::Consuming(chunks);
        }
        publish(&state, &BTreeSet::from([key]));
    }

    /// Puts one row at `(segment, doc)`: it becomes the key's row if it beats the current one.
    fn place(
        &self,
        state: &mut State,
        segment: &Arc<str>,
        doc: u32,
        row: Vec<Value>,
        changed: &mut BTreeSet<Arc<str>>,
    ) {
        let key = self.spec.key_of(&row);
        let loc = Loc {
            segment: segment.clone(),
            doc,
            comparison: row[self.spec.comparison].clone(),
            sequence: sequence_of(segment),
        };
        if let Some(current) = state.keys.get(&key) {
            if !loc.beats(current) {
                return;
            }
            let (old_segment, old_doc) = (current.segment.clone(), current.doc);
            if let Some(t) = state.segments.get_mut(&old_segment) {
                t.valid.remove(old_doc);
                changed.insert(old_segment);
            }
        }
        if let Some(t) = state.segments.get_mut(segment) {
            t.valid.insert(doc);
        }
        if self.spec.partial.is_some() {
            state.latest.insert(key.clone(), row);
        }
        state.keys.insert(key, loc);
    }

    /// Every doc of a stored copy with the columns this table keys, compares (and, in `PARTIAL`
    /// mode, merges) rows by, in schema order (other fields null): a selection with the engine.
    fn scan(&self, segment: &Arc<ImmutableSegment>) -> Result<Vec<(u32, Vec<Value>)>, String> {
        let fields = &self.spec.schema.fields;
        let wanted: Vec<usize> = if self.spec.partial.is_some() {
            (0..fields.len()).collect()
        } else {
            let mut w = self.spec.key.clone();
            w.push(self.spec.comparison);
            w.sort_unstable();
            w.dedup();
            w
        };
        let present: Vec<usize> = wanted
            .into_iter()
            .filter(|&i| segment.column(&fields[i].name).is_some())
            .collect();
        let scan_schema = Schema {
            schema_name: "tessera_upsert".into(),
            fields: present
                .iter()
                .map(|&i| fields[i].clone())
                .collect::<Vec<FieldSpec>>(),
            ..Schema::default()
        };
        let columns: Vec<String> = std::iter::once("$docId".to_string())
            .chain(
                present
                    .iter()
                    .map(|&i| crate::common::transform::quote_column(&fields[i].name)),
            )
            .collect();
        let sql = format!(
            "SET enableNullHandling = true; SELECT {} FROM tessera_upsert LIMIT {}",
            columns.join(", "),
            segment.total_docs().max(1)
        );
        let mut tables = MemoryTables::new();
        tables.add("tessera_upsert", scan_schema, vec![segment.clone()]);
        let (plan, _) = plan_sql(&sql, None, &tables).map_err(|e| e.pinot_message())?;
        let QueryPlan::SingleStage(plan) = plan else {
            return Err("the upsert scan did not plan as one stage".into());
        };
        let ctx = QueryContext::new(plan.server.options.clone());
        let result = execute_server(&plan.server, &tables.segments("tessera_upsert"), &ctx);
        if let Some(e) = result.exceptions.first() {
            return Err(e.message.clone());
        }
        let IntermediateData::Rows(rows) = result.data else {
            return Err("the upsert scan did not produce rows".into());
        };
        Ok(rows
            .into_iter()
            .filter_map(|r| {
                let doc = u32::try_from(r.first()?.as_i64()?).ok()?;
                let mut row = vec![Value::Null; fields.len()];
                for (slot, v) in present.iter().zip(r.into_iter().skip(1)) {
                    row[*slot] = match v.data_type() {
                        Some(dt) if dt != fields[*slot].data_type && !v.is_null() => {
                            v.cast(fields[*slot].data_type).unwrap_or(v)
                        }
                        _ => v,
                    };
                }
                Some((doc, row))
            })
            .collect())
    }
}

/// Drops a segment's locations (its rows no longer count; rows they had replaced stay hidden).
fn forget(state: &mut State, name: &str) {
    if state.segments.remove(name).is_none() {
        return;
    }
    state.keys.retain(|_, loc| &*loc.segment != name);
}

/// Sets what queries see of the `changed` segments.
fn publish(state: &State, changed: &BTreeSet<Arc<str>>) {
    for name in changed {
        let Some(t) = state.segments.get(name) else {
            continue;
        };
        match &t.view {
            View::Stored(s) => s.set_queryable_docs(Some(Arc::new(t.valid.clone()))),
            View::Consuming(chunks) => {
                for (first, chunk) in chunks {
                    let end = first + chunk.total_docs();
                    let mask: RoaringBitmap =
                        t.valid.range(*first..end).map(|r| r - first).collect();
                    chunk.set_queryable_docs(Some(Arc::new(mask)));
                }
            }
        }
    }
}

/// The upsert tables of a server.
#[derive(Default)]
pub struct UpsertTables {
    /// Table → its state, or None for a real-time table known not to upsert.
    tables: Mutex<HashMap<String, Option<Arc<UpsertTable>>>>,
}

impl UpsertTables {
    /// The state of `table`, if it is an upsert table this server knows.
    pub fn get(&self, table: &str) -> Option<Arc<UpsertTable>> {
        self.tables.lock().ok()?.get(table).cloned().flatten()
    }

    /// Whether this server has looked at `table`'s config.
    pub fn knows(&self, table: &str) -> bool {
        self.tables.lock().is_ok_and(|t| t.contains_key(table))
    }

    /// Records what `table` is (an upsert table with `spec`, or not one).
    pub fn set(&self, table: &str, spec: Option<UpsertSpec>) -> Option<Arc<UpsertTable>> {
        let state = spec.map(|s| Arc::new(UpsertTable::new(s)));
        if let Ok(mut t) = self.tables.lock() {
            t.insert(table.to_string(), state.clone());
        }
        state
    }

    /// The tables this server has looked at.
    pub fn known(&self) -> Vec<String> {
        self.tables
            .lock()
            .map(|t| t.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Forgets a table (dropped from this server).
    pub fn drop_table(&self, table: &str) {
        if let Ok(mut t) = self.tables.lock() {
            t.remove(table);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_strategies_merge_as_pinot() {
        let s = |t| Strategy::parse(t).unwrap();
        assert_eq!(
            s("increment").merge(&Value::Long(2), Value::Long(3)),
            Value::Long(5)
        );
        assert_eq!(
            s("OVERWRITE").merge(&Value::Long(2), Value::Null),
            Value::Long(2)
        );
        assert_eq!(
            s("FORCE_OVERWRITE").merge(&Value::Long(2), Value::Null),
            Value::Null
        );
        assert_eq!(
            s("IGNORE").merge(&Value::Long(2), Value::Long(3)),
            Value::Long(2)
        );
        assert_eq!(
            s("IGNORE").merge(&Value::Null, Value::Long(3)),
            Value::Long(3)
        );
        assert_eq!(
            s("MAX").merge(&Value::Long(2), Value::Long(1)),
            Value::Long(2)
        );
        assert_eq!(
            s("MIN").merge(&Value::Long(2), Value::Long(1)),
            Value::Long(1)
        );
        let a = |v: &[i64]| Value::Array(v.iter().map(|x| Value::Long(*x)).collect());
        assert_eq!(s("APPEND").merge(&a(&[1, 2]), a(&[2, 3])), a(&[1, 2, 2, 3]));
        assert_eq!(s("UNION").merge(&a(&[1, 2]), a(&[2, 3])), a(&[1, 2, 3]));
        assert!(Strategy::parse("nope").is_none());
    }

    #[test]
    fn later_sequences_and_docs_win_ties() {
        let loc = |c: i64, seq, doc| Loc {
            segment: Arc::from("s"),
            doc,
            comparison: Value::Long(c),
            sequence: seq,
        };
        assert!(loc(2, 0, 0).beats(&loc(1, 5, 9)));
        assert!(!loc(1, 5, 9).beats(&loc(2, 0, 0)));
        assert!(loc(1, 1, 0).beats(&loc(1, 0, 9)));
        assert!(loc(1, 0, 3).beats(&loc(1, 0, 2)));
        assert_eq!(sequence_of("t__0__12__20240101T0000Z"), 12);
        assert_eq!(sequence_of("t_7"), 0);
    }
}
