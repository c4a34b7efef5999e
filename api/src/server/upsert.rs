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
//!
//! The rest of `upsertConfig`: a row whose `deleteRecordColumn` is true becomes its key's latest
//! row but is not queryable, so the key disappears until a later row brings it back (a partial
//! merge then starts afresh); a row older than its key's current one is out of order — dropped
//! before it is indexed with `dropOutOfOrderRecord`, or marked true in `outOfOrderRecordColumn`
//! (every other row false). With `metadataTTL` (in the comparison column's units) keys whose
//! comparison value is more than that below the largest seen are forgotten when a segment is
//! committed or loaded (their rows stay queryable; a later row of the key is then new), and
//! deleted keys likewise after `deletedKeysTTL`.
//!
//! `consistencyMode`: every change (an arriving batch with the chunks holding it, a stored copy
//! scanned) publishes under the table's lock. Without a mode a query reads each segment's docs as
//! it reaches it, so while a key's row moves it may see the key twice or not at all; with `SYNC`
//! the server takes every segment's parts and docs under that lock when the query starts, with
//! `SNAPSHOT` from a view at most `upsertViewRefreshIntervalMs` old ([`UpsertTable::view`]), and
//! the query reads those ([`engine::docs_view::DocsView`]).
//!
//! Dedup tables (`dedupConfig`) use the same keys with the opposite policy: the first row of a
//! key stays, a later one is dropped before it is indexed — unless the key's row is more than
//! `metadataTTL` below the largest `dedupTimeColumn` value (default: the time column) seen.

use engine::server::execute_server;
use engine::server::result::IntermediateData;
use engine::{MemoryTables, QueryContext, TableProvider, plan_sql};
use planner::plan::QueryPlan;
use roaring::RoaringBitmap;
use segments::ImmutableSegment;
use segments::types::table_config::{ConsistencyMode, TableConfig, UpsertMode};
use segments::types::{FieldSpec, Schema, Value};
use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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

/// Which row of a key queries see.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Policy {
    /// Upsert: the latest by comparison value.
    Latest,
    /// Dedup: the first; later rows are dropped.
    First,
}

/// How a table's rows are keyed, compared and merged.
#[derive(Clone, Debug)]
pub struct UpsertSpec {
    schema: Schema,
    policy: Policy,
    /// Field positions of the primary key and of the comparison column (a dedup table without
    /// a time column has none).
    key: Vec<usize>,
    comparison: Option<usize>,
    /// Per field, for `PARTIAL` mode.
    partial: Option<Vec<Strategy>>,
    /// `deleteRecordColumn`, `outOfOrderRecordColumn`.
    delete: Option<usize>,
    out_of_order: Option<usize>,
    drop_out_of_order: bool,
    /// `metadataTTL`, `deletedKeysTTL` (comparison-column units; None when 0 or unset).
    ttl: Option<f64>,
    deleted_ttl: Option<f64>,
    /// `enableSnapshot`: valid-doc snapshots ([`super::upsert_snapshot`]).
    snapshot: bool,
    /// `consistencyMode` and `upsertViewRefreshIntervalMs` (see [`UpsertTable::view`]).
    consistency: ConsistencyMode,
    view_refresh_ms: i64,
}

/// Pinot's default `upsertViewRefreshIntervalMs`.
const DEFAULT_VIEW_REFRESH_MS: i64 = 3000;

impl UpsertSpec {
    /// The spec of an upsert or dedup table (None for any other table).
    pub fn new(schema: &Schema, config: &TableConfig) -> Result<Option<UpsertSpec>, String> {
        let position = |name: &str| {
            schema
                .fields
                .iter()
                .position(|f| f.name == name)
                .ok_or_else(|| format!("upsert column '{name}' is not in the schema"))
        };
        let key = || -> Result<Vec<usize>, String> {
            let key = schema
                .primary_key_columns
                .iter()
                .map(|c| position(c))
                .collect::<Result<Vec<_>, _>>()?;
            if key.is_empty() {
                return Err("an upsert or dedup table's schema needs primaryKeyColumns".into());
            }
            Ok(key)
        };
        let ttl = |t: Option<f64>| t.filter(|t| *t > 0.0);
        if let Some(d) = config.dedup_config.as_ref().filter(|d| d.dedup_enabled) {
            let time = d
                .dedup_time_column
                .as_deref()
                .or_else(|| config.time_column());
            let ttl = ttl(d.metadata_ttl);
            if ttl.is_some() && time.is_none() {
                return Err(
                    "a dedup table's metadataTTL needs a dedupTimeColumn or a time column".into(),
                );
            }
            return Ok(Some(UpsertSpec {
                schema: schema.clone(),
                policy: Policy::First,
                key: key()?,
                comparison: time.map(position).transpose()?,
                partial: None,
                delete: None,
                out_of_order: None,
                drop_out_of_order: false,
                ttl,
                deleted_ttl: None,
                snapshot: false,
                consistency: ConsistencyMode::None,
                view_refresh_ms: DEFAULT_VIEW_REFRESH_MS,
            }));
        }
        let Some(u) = config
            .upsert_config
            .as_ref()
            .filter(|u| u.mode != UpsertMode::None)
        else {
            return Ok(None);
        };
        let key = key()?;
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
            policy: Policy::Latest,
            key,
            comparison: Some(comparison),
            partial,
            delete: u
                .delete_record_column
                .as_deref()
                .map(position)
                .transpose()?,
            out_of_order: u
                .out_of_order_record_column
                .as_deref()
                .map(position)
                .transpose()?,
            drop_out_of_order: u.drop_out_of_order_record.unwrap_or(false),
            ttl: ttl(u.metadata_ttl),
            deleted_ttl: ttl(u.deleted_keys_ttl),
            snapshot: u.enable_snapshot.unwrap_or(false),
            consistency: u.consistency_mode.unwrap_or_default(),
            view_refresh_ms: u
                .upsert_view_refresh_interval_ms
                .unwrap_or(DEFAULT_VIEW_REFRESH_MS),
        }))
    }

    /// A row's comparison value (null for a dedup table without a time column).
    fn comparison_of(&self, row: &[Value]) -> Value {
        self.comparison.map_or(Value::Null, |i| row[i].clone())
    }

    /// Whether a row deletes its key (its `deleteRecordColumn` is true).
    fn deletes(&self, row: &[Value]) -> bool {
        self.delete.is_some_and(|i| match &row[i] {
            Value::Boolean(b) => *b,
            Value::String(s) => s.eq_ignore_ascii_case("true"),
            v => v.as_f64().is_some_and(|n| n != 0.0),
        })
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
    /// The row deletes its key: it is not queryable.
    deleted: bool,
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
    /// The largest comparison value seen (with a TTL).
    largest: Option<f64>,
    /// The latest whole row of each key (`PARTIAL` mode only).
    latest: HashMap<String, Vec<Value>>,
    segments: HashMap<Arc<str>, Tracked>,
}

/// One upsert table's keys and valid docs.
pub struct UpsertTable {
    spec: UpsertSpec,
    state: Mutex<State>,
    /// The `SNAPSHOT` view and when it was taken.
    snapshot_view: Mutex<Option<(Instant, Arc<SegmentsView>)>>,
}

/// Every tracked segment's parts (a stored copy, or a consuming segment's chunks) with the docs
/// each shows, taken at one instant.
pub type SegmentsView = HashMap<Arc<str>, Vec<(Arc<ImmutableSegment>, Option<Arc<RoaringBitmap>>)>>;

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
            snapshot_view: Mutex::new(None),
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
        // A segment not tracked yet (a restart) with a snapshot: only the docs it names.
        let snapshot = match self.spec.snapshot && !self.lock().segments.contains_key(name) {
            true => super::upsert_snapshot::read(&segment),
            false => None,
        };
        let rows = match &snapshot {
            Some(valid) => {
                segment.set_queryable_docs(Some(Arc::new(valid.clone())));
                let rows = self.scan(&segment)?;
                log::info!(
                    "upsert: {name}: read {} of {} docs from its valid-doc snapshot",
                    rows.len(),
                    segment.total_docs()
                );
                rows
            }
            None => self.scan(&segment)?,
        };
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
        self.purge(&mut state);
        changed.insert(name);
        publish(&state, &changed);
        Ok(())
    }

    /// Writes every stored segment's valid docs as its snapshot (with `enableSnapshot`; after a
    /// commit). Blocking.
    pub fn snapshot(&self) {
        if !self.spec.snapshot {
            return;
        }
        let stored: Vec<(Arc<ImmutableSegment>, RoaringBitmap)> = self
            .lock()
            .segments
            .values()
            .filter_map(|t| match &t.view {
                View::Stored(s) => Some((s.clone(), t.valid.clone())),
                View::Consuming(_) => None,
            })
            .collect();
        for (segment, valid) in stored {
            if let Err(e) = super::upsert_snapshot::write(&segment, &valid) {
                log::warn!(
                    "cannot write the valid-doc snapshot of {}: {e}",
                    segment.dir().display()
                );
            }
        }
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

    /// Arriving rows (of one batch, in order) as they are to be indexed: a dedup table drops
    /// rows of keys it holds; an upsert table drops or marks out-of-order rows and, in `PARTIAL`
    /// mode, merges each row with its key's latest row. Rows of a plain `FULL` table come back
    /// as they are.
    pub fn admit(&self, rows: Vec<Vec<Value>>) -> Vec<Vec<Value>> {
        let spec = &self.spec;
        let plain = spec.policy == Policy::Latest
            && spec.partial.is_none()
            && spec.out_of_order.is_none()
            && !spec.drop_out_of_order;
        if plain {
            return rows;
        }
        let state = self.lock();
        // What this batch did to its keys: comparison value, deleted, latest whole row.
        let mut batch: HashMap<String, (Value, bool, Option<Vec<Value>>)> = HashMap::new();
        let mut largest = state.largest;
        let mut out = Vec::with_capacity(rows.len());
        for mut row in rows {
            let key = spec.key_of(&row);
            let comparison = spec.comparison_of(&row);
            if spec.ttl.is_some() {
                largest = max_seen(largest, &comparison);
            }
            let current = batch
                .get(&key)
                .map(|(c, deleted, _)| (c.clone(), *deleted))
                .or_else(|| {
                    let loc = state.keys.get(&key)?;
                    Some((loc.comparison.clone(), loc.deleted))
                });
            if spec.policy == Policy::First {
                let live = current.is_some_and(|(c, _)| !expired(spec.ttl, largest, &c));
                if !live {
                    batch.insert(key, (comparison, false, None));
                    out.push(row);
                }
                continue;
            }
            let out_of_order = current
                .as_ref()
                .is_some_and(|(c, _)| comparison.total_cmp(c) == Ordering::Less);
            if out_of_order && spec.drop_out_of_order {
                continue;
            }
            if let Some(i) = spec.out_of_order {
                row[i] = Value::Boolean(out_of_order);
            }
            if out_of_order {
                out.push(row);
                continue;
            }
            if let Some(strategies) = &spec.partial {
                let previous = match batch.get(&key) {
                    Some((_, deleted, latest)) => latest.as_ref().filter(|_| !deleted),
                    None => state.latest.get(&key),
                };
                if let Some(old) = previous {
                    row = row
                        .into_iter()
                        .zip(old)
                        .zip(strategies)
                        .map(|((new, old), s)| s.merge(old, new))
                        .collect();
                }
            }
            let deleted = spec.deletes(&row);
            let latest = spec.partial.as_ref().map(|_| row.clone());
            batch.insert(key, (comparison, deleted, latest));
            out.push(row);
        }
        out
    }

    /// Publishes consuming segment `name`'s new rows — `rows` (as [`UpsertTable::admit`]
    /// returned them), the first at row number `first` — and its `chunks` (each with its first
    /// row number) at once: the rows they replace are hidden and the chunks show their valid rows
    /// in one step, so no query sees a key twice or not at all in between (under a consistency
    /// mode; without one a query reads segment by segment).
    pub fn publish_rows(
        &self,
        name: &str,
        first: u32,
        rows: &[Vec<Value>],
        chunks: Vec<(u32, Arc<ImmutableSegment>)>,
    ) {
        let mut state = self.lock();
        let name: Arc<str> = match state.segments.get_key_value(name) {
            Some((k, _)) => k.clone(),
            None => Arc::from(name),
        };
        let tracked = state.segments.entry(name.clone()).or_insert(Tracked {
            valid: RoaringBitmap::new(),
            view: View::Consuming(Vec::new()),
        });
        tracked.view = View::Consuming(chunks);
        let mut changed = BTreeSet::from([name.clone()]);
        for (i, row) in rows.iter().enumerate() {
            self.place(
                &mut state,
                &name,
                first + i as u32,
                row.clone(),
                &mut changed,
            );
        }
        publish(&state, &changed);
    }

    /// What queries under the table's consistency mode read (`None` without one, or with
    /// `skipUpsertView`): every tracked segment's parts with their docs, taken under the lock
    /// every change publishes under — at once (`SYNC`), or from a view at most
    /// `upsertViewRefreshIntervalMs` old (`SNAPSHOT`; the query's `upsertViewFreshnessMs`
    /// bounds it instead when given).
    pub fn view(&self, options: &planner::plan::UpsertView) -> Option<Arc<SegmentsView>> {
        if options.skip {
            return None;
        }
        match self.spec.consistency {
            ConsistencyMode::None => None,
            ConsistencyMode::Sync => Some(Arc::new(self.take_view())),
            ConsistencyMode::Snapshot => {
                let oldest = options.freshness_ms.unwrap_or(self.spec.view_refresh_ms);
                let oldest = Duration::from_millis(oldest.max(0) as u64);
                let mut cached = self.snapshot_view.lock().unwrap_or_else(|p| p.into_inner());
                match &*cached {
                    Some((at, view)) if at.elapsed() <= oldest => Some(view.clone()),
                    _ => {
                        let view = Arc::new(self.take_view());
                        *cached = Some((Instant::now(), view.clone()));
                        Some(view)
                    }
                }
            }
        }
    }

    fn take_view(&self) -> SegmentsView {
        let state = self.lock();
        state
            .segments
            .iter()
            .map(|(name, t)| {
                let parts = match &t.view {
                    View::Stored(s) => vec![(s.clone(), s.queryable_docs())],
                    View::Consuming(chunks) => chunks
                        .iter()
                        .map(|(_, c)| (c.clone(), c.queryable_docs()))
                        .collect(),
                };
                (name.clone(), parts)
            })
            .collect()
    }

    /// Puts one row at `(segment, doc)`: it becomes the key's row if it beats the current one
    /// (dedup: if the key has no live row).
    fn place(
        &self,
        state: &mut State,
        segment: &Arc<str>,
        doc: u32,
        row: Vec<Value>,
        changed: &mut BTreeSet<Arc<str>>,
    ) {
        let spec = &self.spec;
        let key = spec.key_of(&row);
        let loc = Loc {
            segment: segment.clone(),
            doc,
            comparison: spec.comparison_of(&row),
            sequence: sequence_of(segment),
            deleted: spec.deletes(&row),
        };
        if spec.ttl.is_some() {
            state.largest = max_seen(state.largest, &loc.comparison);
        }
        if let Some(current) = state.keys.get(&key) {
            let replaces = match spec.policy {
                Policy::Latest => loc.beats(current),
                Policy::First => expired(spec.ttl, state.largest, &current.comparison),
            };
            if !replaces {
                return;
            }
            if spec.policy == Policy::Latest {
                let (old_segment, old_doc) = (current.segment.clone(), current.doc);
                if let Some(t) = state.segments.get_mut(&old_segment) {
                    t.valid.remove(old_doc);
                    changed.insert(old_segment);
                }
            }
        }
        if !loc.deleted
            && let Some(t) = state.segments.get_mut(segment)
        {
            t.valid.insert(doc);
        }
        if spec.partial.is_some() {
            if loc.deleted {
                state.latest.remove(&key);
            } else {
                state.latest.insert(key.clone(), row);
            }
        }
        state.keys.insert(key, loc);
    }

    /// Forgets keys past `metadataTTL` (and deleted keys past `deletedKeysTTL`) below the
    /// largest comparison value seen; their queryable rows stay as they are.
    fn purge(&self, state: &mut State) {
        let (ttl, deleted_ttl) = (self.spec.ttl, self.spec.deleted_ttl);
        if ttl.is_none() && deleted_ttl.is_none() {
            return;
        }
        let largest = state.largest;
        let mut gone = Vec::new();
        state.keys.retain(|key, loc| {
            let expire = expired(ttl, largest, &loc.comparison)
                || (loc.deleted && expired(deleted_ttl, largest, &loc.comparison));
            if expire {
                gone.push(key.clone());
            }
            !expire
        });
        for key in gone {
            state.latest.remove(&key);
        }
    }

    /// Every doc of a stored copy with the columns this table keys, compares (and, in `PARTIAL`
    /// mode, merges) rows by, in schema order (other fields null): a selection with the engine.
    fn scan(&self, segment: &Arc<ImmutableSegment>) -> Result<Vec<(u32, Vec<Value>)>, String> {
        let fields = &self.spec.schema.fields;
        let wanted: Vec<usize> = if self.spec.partial.is_some() {
            (0..fields.len()).collect()
        } else {
            let mut w = self.spec.key.clone();
            w.extend(self.spec.comparison);
            w.extend(self.spec.delete);
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

/// The larger of the largest comparison value so far and `v` (numbers only).
fn max_seen(largest: Option<f64>, v: &Value) -> Option<f64> {
    match (largest, v.as_f64()) {
        (Some(l), Some(v)) => Some(l.max(v)),
        (l, v) => l.or(v),
    }
}

/// Whether comparison value `v` is more than `ttl` below the largest seen.
fn expired(ttl: Option<f64>, largest: Option<f64>, v: &Value) -> bool {
    match (ttl, largest, v.as_f64()) {
        (Some(ttl), Some(largest), Some(v)) => v < largest - ttl,
        _ => false,
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

    /// A table keyed by `id`, compared by `ts`, with `del` and `ooo` columns.
    fn table(extra: serde_json::Value) -> UpsertTable {
        let schema = Schema::from_json(
            r#"{"schemaName":"t","primaryKeyColumns":["id"],
               "dimensionFieldSpecs":[{"name":"id","dataType":"LONG"},
                 {"name":"del","dataType":"BOOLEAN"},{"name":"ooo","dataType":"BOOLEAN"}],
               "metricFieldSpecs":[{"name":"v","dataType":"LONG"}],
               "dateTimeFieldSpecs":[{"name":"ts","dataType":"LONG",
                 "format":"1:MILLISECONDS:EPOCH","granularity":"1:MILLISECONDS"}]}"#,
        )
        .unwrap();
        let mut config = serde_json::json!({"tableName": "t", "tableType": "REALTIME",
            "segmentsConfig": {"timeColumnName": "ts", "replication": "1"},
            "tenants": {}, "tableIndexConfig": {}, "metadata": {}});
        config
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let config = TableConfig::from_value(config).unwrap();
        UpsertTable::new(UpsertSpec::new(&schema, &config).unwrap().unwrap())
    }

    /// Rows `(id, ts, del)` in schema order (id, del, ooo, v, ts).
    fn rows(rows: &[(i64, i64, bool)]) -> Vec<Vec<Value>> {
        rows.iter()
            .map(|&(id, ts, del)| {
                vec![
                    Value::Long(id),
                    Value::Boolean(del),
                    Value::Null,
                    Value::Long(ts * 10),
                    Value::Long(ts),
                ]
            })
            .collect()
    }

    fn valid(t: &UpsertTable, segment: &str) -> Vec<u32> {
        t.lock().segments[segment].valid.iter().collect()
    }

    #[test]
    fn deletes_hide_keys_and_out_of_order_rows_are_marked_or_dropped() {
        let t = table(serde_json::json!({"upsertConfig": {"mode": "FULL",
            "deleteRecordColumn": "del", "outOfOrderRecordColumn": "ooo"}}));
        let admitted = t.admit(rows(&[
            (1, 10, false),
            (1, 5, false),
            (2, 1, false),
            (1, 20, true),
        ]));
        let marks: Vec<&Value> = admitted.iter().map(|r| &r[2]).collect();
        let (yes, no) = (&Value::Boolean(true), &Value::Boolean(false));
        assert_eq!(marks, vec![no, yes, no, no]);
        t.publish_rows("s", 0, &admitted, Vec::new());
        // Row 0 replaced by the delete (not queryable), row 1 out of order: only key 2 shows.
        assert_eq!(valid(&t, "s"), vec![2]);
        let again = t.admit(rows(&[(1, 30, false), (1, 25, false)]));
        t.publish_rows("s", 4, &again, Vec::new());
        assert_eq!(valid(&t, "s"), vec![2, 4]);

        let t = table(serde_json::json!({"upsertConfig": {"mode": "FULL",
            "dropOutOfOrderRecord": true}}));
        let admitted = t.admit(rows(&[(1, 10, false), (1, 5, false), (1, 10, false)]));
        assert_eq!(admitted.len(), 2);
        t.publish_rows("s", 0, &admitted, Vec::new());
        assert_eq!(t.admit(rows(&[(1, 9, false)])).len(), 0);
        assert_eq!(valid(&t, "s"), vec![1]);
    }

    #[test]
    fn partial_upsert_starts_afresh_after_a_delete() {
        let t = table(serde_json::json!({"upsertConfig": {"mode": "PARTIAL",
            "deleteRecordColumn": "del", "partialUpsertStrategies": {"v": "INCREMENT"}}}));
        let admitted = t.admit(rows(&[(1, 1, false), (1, 2, false)]));
        assert_eq!(admitted[1][3], Value::Long(30));
        t.publish_rows("s", 0, &admitted, Vec::new());
        let admitted = t.admit(rows(&[(1, 3, true), (1, 4, false)]));
        // The delete merged (30 + 30); the row after it starts from nothing.
        assert_eq!(admitted[0][3], Value::Long(60));
        assert_eq!(admitted[1][3], Value::Long(40));
        t.publish_rows("s", 2, &admitted, Vec::new());
        assert_eq!(valid(&t, "s"), vec![3]);
    }

    #[test]
    fn dedup_keeps_the_first_row_of_a_key_within_its_ttl() {
        let t = table(serde_json::json!({"dedupConfig": {"dedupEnabled": true,
            "metadataTTL": 100}}));
        let admitted = t.admit(rows(&[(1, 10, false), (1, 11, false), (2, 5, false)]));
        assert_eq!(admitted.len(), 2);
        t.publish_rows("s", 0, &admitted, Vec::new());
        assert_eq!(t.admit(rows(&[(1, 50, false), (2, 60, false)])).len(), 0);
        // Key 2's row (5) is now more than 100 below the largest time seen (200): it may come
        // again; key 1 (10) too, but the batch holds it once.
        let admitted = t.admit(rows(&[(3, 200, false), (2, 150, false), (2, 151, false)]));
        assert_eq!(admitted.len(), 2);
        t.publish_rows("s", 2, &admitted, Vec::new());
        assert_eq!(valid(&t, "s"), vec![0, 1, 2, 3]);
        let mut state = t.lock();
        t.purge(&mut state);
        let mut keys: Vec<&String> = state.keys.keys().collect();
        keys.sort();
        assert_eq!(keys.len(), 2, "key 1 (10) is past the TTL: {keys:?}");
    }

    #[test]
    fn later_sequences_and_docs_win_ties() {
        let loc = |c: i64, seq, doc| Loc {
            segment: Arc::from("s"),
            doc,
            comparison: Value::Long(c),
            sequence: seq,
            deleted: false,
        };
        assert!(loc(2, 0, 0).beats(&loc(1, 5, 9)));
        assert!(!loc(1, 5, 9).beats(&loc(2, 0, 0)));
        assert!(loc(1, 1, 0).beats(&loc(1, 0, 9)));
        assert!(loc(1, 0, 3).beats(&loc(1, 0, 2)));
        assert_eq!(sequence_of("t__0__12__20240101T0000Z"), 12);
        assert_eq!(sequence_of("t_7"), 0);
    }

    /// Opens a segment of `rows` (the test schema's) named `name` under `dir`.
    fn segment(
        t: &UpsertTable,
        dir: &std::path::Path,
        name: &str,
        rows: &[Vec<Value>],
    ) -> Arc<ImmutableSegment> {
        let config = segments::BuildConfig::new("t", name);
        let rows = rows.iter().cloned().map(Ok);
        let built = segments::build_segment_from_rows(&t.spec.schema, &config, rows, dir).unwrap();
        Arc::new(ImmutableSegment::open(&built.segment_dir).unwrap())
    }

    fn docs(d: &Option<Arc<RoaringBitmap>>) -> Vec<u32> {
        d.as_ref().map_or_else(Vec::new, |d| d.iter().collect())
    }

    #[test]
    fn a_consistency_mode_view_is_taken_at_one_instant() {
        use planner::plan::UpsertView;
        let dir = tempfile::tempdir().unwrap();
        let sync = table(serde_json::json!({"upsertConfig": {"mode": "FULL",
            "consistencyMode": "SYNC"}}));
        let first = sync.admit(rows(&[(1, 1, false), (2, 1, false)]));
        let c1 = segment(&sync, dir.path(), "c1", &first);
        sync.publish_rows("s", 0, &first, vec![(0, c1.clone())]);
        let before = sync.view(&UpsertView::default()).unwrap();
        // Key 1's newer row arrives in a second chunk: the first chunk hides its old row.
        let second = sync.admit(rows(&[(1, 2, false)]));
        let c2 = segment(&sync, dir.path(), "c2", &second);
        sync.publish_rows("s", 2, &second, vec![(0, c1.clone()), (2, c2.clone())]);
        assert_eq!(docs(&c1.queryable_docs()), [1]);
        // The view taken before shows the table as it was: one chunk, both its rows.
        let parts = &before["s"];
        assert_eq!(parts.len(), 1);
        assert!(Arc::ptr_eq(&parts[0].0, &c1));
        assert_eq!(docs(&parts[0].1), [0, 1]);
        // A query's view now: each key once.
        let now = sync.view(&UpsertView::default()).unwrap();
        let shown: Vec<Vec<u32>> = now["s"].iter().map(|(_, d)| docs(d)).collect();
        assert_eq!(shown, [vec![1], vec![0]]);
        // `skipUpsertView`, or no consistency mode: no view, each segment's current docs.
        let skip = UpsertView {
            skip: true,
            ..UpsertView::default()
        };
        assert!(sync.view(&skip).is_none());
        let none = table(serde_json::json!({"upsertConfig": {"mode": "FULL"}}));
        assert!(none.view(&UpsertView::default()).is_none());

        // SNAPSHOT: the same view until it is older than the refresh interval (or than the
        // query's freshness).
        let snap = table(serde_json::json!({"upsertConfig": {"mode": "FULL",
            "consistencyMode": "SNAPSHOT", "upsertViewRefreshIntervalMs": 3_600_000}}));
        let first = snap.admit(rows(&[(1, 1, false)]));
        let d1 = segment(&snap, dir.path(), "d1", &first);
        snap.publish_rows("s", 0, &first, vec![(0, d1.clone())]);
        let old = snap.view(&UpsertView::default()).unwrap();
        let second = snap.admit(rows(&[(1, 2, false)]));
        let d2 = segment(&snap, dir.path(), "d2", &second);
        snap.publish_rows("s", 1, &second, vec![(0, d1), (1, d2)]);
        assert!(Arc::ptr_eq(
            &old,
            &snap.view(&UpsertView::default()).unwrap()
        ));
        let fresh = UpsertView {
            freshness_ms: Some(0),
            ..UpsertView::default()
        };
        std::thread::sleep(std::time::Duration::from_millis(2));
        let new = snap.view(&fresh).unwrap();
        assert_eq!(new["s"].len(), 2);
        assert!(Arc::ptr_eq(
            &new,
            &snap.view(&UpsertView::default()).unwrap()
        ));
    }
}
