//! The aggregate operator: a group id per row by the key columns ([`hash_table::group_ids`]),
//! each call's states per group from the single-stage engine's accumulators
//! ([`accumulate`]), then final values (direct and final modes) or the states themselves
//! (partial mode, for an exchange to a final aggregate).
//!
//! A large grouped input on a pool of several threads is aggregated in parts (radix-partitioned
//! aggregation): its rows are cut by their keys — by hash, or by a slice of the key range when
//! the key is one integer column whose groups index an array — into disjoint parts, so all the
//! rows of a group fall in one part; the parts are aggregated side by side on the pool, each as a
//! block of its own, and their groups put one after the other. A group's states are the same
//! either way (its rows are read in the same order). Past the groups limit, the groups kept are
//! those one pass over the block would have kept: the ones whose first rows come first.
//!
//! Dealing rows out costs about what one pass costs when the key is one integer column indexing
//! an array of groups and the calls only count or add numbers; such an input is instead
//! aggregated a morsel per thread into arrays of states indexed by key, merged slot by slot.
//!
//! Dealing rows out is also wasted when the groups are few against the rows (a join's output
//! grouped by nation and year): each morsel of rows is then aggregated on its own thread into
//! partial states, and the morsels' few groups merged as a final aggregate merges an exchange's
//! (in partial mode they go out unmerged: the final aggregate after the exchange merges them).
//! How few is read off a sample of the rows ([`sampled_groups`]).

use super::block::{Cells, Column, DataBlock};
use super::evaluate::evaluate;
use super::filter_rows::kept_rows;
use super::group_states::accumulate;
use super::hash_table;
use crate::aggregate::{AggState, number_states};
use crate::column::hash_rows_within;
use crate::error::EngineError;
use crate::morsels::{
    MIN_MORSEL_ROWS, drop_in_morsels, fill_morsels, map_items, map_morsels, morsels,
};
use planner::plan::aggregate::AggregateFunction;
use planner::plan::multistage::AggMode;
use planner::plan::{AggregateCall, Expr};
use rayon::prelude::*;
use segments::types::DataType;
use std::borrow::Cow;

/// Below this many rows an input is aggregated in one pass: cutting it costs more than the
/// second thread saves.
const MIN_PARTITIONED_ROWS: usize = 4 * MIN_MORSEL_ROWS;

/// Parts per pool thread: more parts than threads, so a part heavier than the others (a frequent
/// key) is not all of one thread's work.
const PARTS_PER_THREAD: usize = 4;

/// Rows sampled to estimate how many groups a block has ([`sampled_groups`]).
const SAMPLE_ROWS: usize = 4096;

/// Morsels are aggregated apart when their groups together are at most this fraction of the
/// rows (the merge then reads at most that many rows again).
const MORSEL_GROUPS_PER_ROW: usize = 4;

/// How a block is aggregated ([`Aggregate::way`]).
#[derive(Debug, PartialEq)]
enum Way {
    OnePass,
    /// A morsel per thread into arrays of states indexed by the key's range `(lo, span)`.
    Slots((i64, usize)),
    /// Dealt out by key into `parts` parts (by slices of `array_key`'s range when there is one).
    Parts {
        parts: usize,
        array_key: Option<(i64, usize)>,
    },
    /// A morsel per thread into partial states, then merged ([`Aggregate::by_morsels`]); as
    /// `Parts` when the morsels' groups pass the groups limit.
    Morsels {
        parts: usize,
        array_key: Option<(i64, usize)>,
    },
}

/// The operator's settings.
#[derive(Clone, Copy)]
pub struct Aggregate<'a> {
    pub group_keys: &'a [usize],
    pub aggregates: &'a [AggregateCall],
    pub mode: AggMode,
    /// The output's types: the keys', then the calls'.
    pub types: &'a [DataType],
    pub null_handling: bool,
    pub groups_limit: usize,
}

impl Aggregate<'_> {
    /// Aggregates `block`. Past `groups_limit` groups (numbered in order of first appearance)
    /// the rows of later groups are dropped, as Pinot's v2 aggregate stops adding groups; the
    /// second value says whether that happened.
    pub fn run(&self, block: DataBlock) -> Result<(DataBlock, bool), EngineError> {
        let (parts, array_key) = match self.way(&block) {
            Way::OnePass => {
                let (out, _, limited) = self.one_pass(block, self.groups_limit)?;
                return Ok((out, limited));
            }
            Way::Slots(range) => return Ok((self.by_slots(&block, range)?, false)),
            Way::Parts { parts, array_key } => (parts, array_key),
            Way::Morsels { parts, array_key } => match self.by_morsels(&block)? {
                Some(out) => return Ok((out, false)),
                None => (parts, array_key),
            },
        };
        let read = self.read_columns(block.columns.len());
        let dealt = deal_by_keys(&block, self.group_keys, &read, parts, array_key);
        drop(block);
        // Each part's groups and, for each, its first row in `block`.
        let outputs: Vec<Result<(DataBlock, Vec<u32>), EngineError>> = dealt
            .into_par_iter()
            .map(|(part, rows)| {
                let (out, first, _) = self.one_pass(part, usize::MAX)?;
                let first = first.iter().map(|f| rows[*f as usize]).collect();
                Ok((out, first))
            })
            .collect();
        let outputs: Vec<(DataBlock, Vec<u32>)> = outputs.into_iter().collect::<Result<_, _>>()?;
        let groups: usize = outputs.iter().map(|(b, _)| b.num_rows).sum();
        let limited = groups > self.groups_limit;
        let blocks: Vec<DataBlock> = if limited {
            // The groups one pass keeps: those whose first rows are the first `groups_limit`.
            let mut firsts: Vec<u32> = outputs
                .iter()
                .flat_map(|(_, f)| f.iter().copied())
                .collect();
            let (_, cut, _) = firsts.select_nth_unstable(self.groups_limit);
            let cut = *cut;
            outputs
                .into_iter()
                .map(|(b, first)| {
                    let kept: Vec<u32> = (0..first.len() as u32)
                        .filter(|&g| first[g as usize] < cut)
                        .collect();
                    b.take(&kept)
                })
                .collect()
        } else {
            outputs.into_iter().map(|(b, _)| b).collect()
        };
        Ok((DataBlock::concat(blocks, self.types), limited))
    }

    /// How `block` is aggregated. In one pass, unless it is large grouped raw rows (not a final
    /// merge of states: one row per partial group, a merge apiece) and the pool has several
    /// threads; then in parts dealt out by key — unless one pass is cheap: one integer key whose
    /// values index an array of groups ([`Self::array_key`]) and calls that count or add numbers
    /// ([`Self::adds_numbers`]), where dealing costs what it saves; such a block goes a morsel
    /// per thread into arrays of slots ([`Self::by_slots`]) when the range holds at most a slot
    /// per four rows (each morsel holds a state per slot) and no more groups than the limit,
    /// else in one pass. The key's range is found once, for all of these. Other keys whose
    /// groups, estimated from a sample, are few against the rows go a morsel per thread into
    /// partial states ([`Self::by_morsels`]).
    fn way(&self, block: &DataBlock) -> Way {
        let threads = rayon::current_num_threads();
        if threads < 2
            || self.group_keys.is_empty()
            || self.mode == AggMode::Final
            || block.num_rows < MIN_PARTITIONED_ROWS
        {
            return Way::OnePass;
        }
        let array_key = self.array_key(block);
        match array_key {
            Some((lo, span)) if self.adds_numbers() => {
                if span <= self.groups_limit && span <= block.num_rows / 4 {
                    Way::Slots((lo, span))
                } else {
                    Way::OnePass
                }
            }
            _ => {
                let parts = threads * PARTS_PER_THREAD;
                let keys: Vec<&Column> = self
                    .group_keys
                    .iter()
                    .filter_map(|k| block.columns.get(*k))
                    .collect();
                let merged = sampled_groups(&keys, block.num_rows)
                    .saturating_mul(morsels(block.num_rows).len());
                if merged <= block.num_rows / MORSEL_GROUPS_PER_ROW {
                    Way::Morsels { parts, array_key }
                } else {
                    Way::Parts { parts, array_key }
                }
            }
        }
    }

    /// Which of `width` input columns the aggregate reads: its keys and its calls' inputs.
    fn read_columns(&self, width: usize) -> Vec<bool> {
        let mut read = vec![false; width];
        let mut mark = |e: &Expr| {
            e.visit(&mut |e| {
                if let Expr::Input(i) = e
                    && let Some(r) = read.get_mut(i.index)
                {
                    *r = true;
                }
            })
        };
        for call in self.aggregates {
            call.arg.iter().chain(&call.second).for_each(&mut mark);
            if let Some(f) = &call.filter {
                f.walk_exprs(&mut mark);
            }
        }
        for k in self.group_keys {
            if let Some(r) = read.get_mut(*k) {
                *r = true;
            }
        }
        read
    }

    /// Aggregates `block` a morsel of rows per thread into partial states, then merges the
    /// morsels' groups as a final aggregate does (in partial mode they go out as they are: the
    /// final aggregate after the exchange merges them). Each morsel reads only the columns the
    /// aggregate reads, copied on its own thread. The groups come out in order of first
    /// appearance, as one pass's; a floating sum adds up each morsel apart, so it may differ in
    /// its last bits from one pass's. `None` when the morsels' groups together pass the groups
    /// limit: which groups one pass keeps is then found as the parts find it.
    fn by_morsels(&self, block: &DataBlock) -> Result<Option<DataBlock>, EngineError> {
        let read = self.read_columns(block.columns.len());
        let partial = Aggregate {
            mode: AggMode::Partial,
            ..*self
        };
        let outputs: Vec<Result<DataBlock, EngineError>> = map_morsels(block.num_rows, |rows| {
            Ok(partial
                .one_pass(block.morsel_of(&read, rows), usize::MAX)?
                .0)
        });
        let outputs: Vec<DataBlock> = outputs.into_iter().collect::<Result<_, _>>()?;
        if outputs.iter().map(|b| b.num_rows).sum::<usize>() > self.groups_limit {
            return Ok(None);
        }
        let states = DataBlock::concat(outputs, self.types);
        if self.mode == AggMode::Partial {
            return Ok(Some(states));
        }
        let keys: Vec<usize> = (0..self.group_keys.len()).collect();
        let merge = Aggregate {
            group_keys: &keys,
            mode: AggMode::Final,
            ..*self
        };
        Ok(Some(merge.one_pass(states, self.groups_limit)?.0))
    }

    /// Whether every call counts or adds numbers, unfiltered.
    fn adds_numbers(&self) -> bool {
        self.aggregates.iter().all(|c| {
            c.filter.is_none()
                && !c.multi_value
                && matches!(
                    c.function,
                    AggregateFunction::Count
                        | AggregateFunction::Sum
                        | AggregateFunction::Min
                        | AggregateFunction::Max
                        | AggregateFunction::Avg
                )
        })
    }

    /// The range `(lo, span)` of a single integer key without NULLs, when it is at most four
    /// slots a row wide (or narrow whatever the rows) and so worth an array of groups.
    fn array_key(&self, block: &DataBlock) -> Option<(i64, usize)> {
        let [key] = self.group_keys else {
            return None;
        };
        let values = hash_table::plain_ints(&[block.columns.get(*key)?])?;
        hash_table::dense_range(values, values.len() as u128 * 4)
    }

    /// Aggregates `block` by its one integer key in the range `lo..lo + span`: each morsel of rows
    /// accumulates into an array of states indexed by `key - lo`, the morsels' arrays merge slot
    /// by slot (in parallel over slices of slots), and the slots some row reached become the
    /// groups, in key order. Each morsel adds up its own rows, so a floating sum may differ in
    /// its last bits from one pass's, as a segment's doc-range parts' do.
    fn by_slots(
        &self,
        block: &DataBlock,
        (lo, span): (i64, usize),
    ) -> Result<DataBlock, EngineError> {
        let key = &block.columns[self.group_keys[0]];
        let Cells::I64(keys) = &key.cells else {
            return Err(EngineError::execution("an integer key without integers"));
        };
        // Arguments that are inputs are read where they are (not copied), each morsel's slice
        // copied on its own thread.
        type Arg<'b> = Option<Cow<'b, Column>>;
        let args: Vec<(Arg<'_>, Arg<'_>)> = self
            .aggregates
            .iter()
            .map(|call| {
                let eval = |e: &Expr| crate::vectorised::evaluate(e, block);
                let arg = call.arg.as_ref().map(eval).transpose()?;
                let second = call.second.as_ref().map(eval).transpose()?;
                Ok((arg, second))
            })
            .collect::<Result<_, EngineError>>()?;
        // Per morsel: the slots its rows reached, and each call's states over every slot.
        type Morsel = (Vec<bool>, Vec<Vec<AggState>>);
        let morsels: Vec<Result<Morsel, EngineError>> = map_morsels(block.num_rows, |rows| {
            let slots: Vec<u32> = keys[rows.clone()].iter().map(|k| (k - lo) as u32).collect();
            let mut reached = vec![false; span];
            for s in &slots {
                reached[*s as usize] = true;
            }
            let slice = |c: &Arg<'_>| c.as_ref().map(|c| c.slice(rows.start, rows.end));
            let states = self
                .aggregates
                .iter()
                .zip(&args)
                .map(|(call, (arg, second))| {
                    accumulate(
                        call,
                        &slots,
                        span,
                        slice(arg).as_ref(),
                        slice(second).as_ref(),
                    )
                })
                .collect::<Result<_, _>>()?;
            Ok((reached, states))
        });
        let mut morsels = morsels.into_iter();
        let (mut reached, mut states) = morsels
            .next()
            .ok_or_else(|| EngineError::execution("no morsel"))??;
        for m in morsels {
            let (more_reached, more_states) = m?;
            for (r, m) in reached.iter_mut().zip(more_reached) {
                *r |= m;
            }
            for ((call, into), from) in self.aggregates.iter().zip(&mut states).zip(more_states) {
                merge_slots(call, into, from)?;
            }
        }
        let slots: Vec<u32> = (0..span as u32).filter(|s| reached[*s as usize]).collect();
        let mut columns = vec![Column {
            cells: Cells::I64(slots.iter().map(|s| lo + i64::from(*s)).collect()),
            data_type: key.data_type,
            nulls: None,
        }];
        for (i, (call, mut all)) in self.aggregates.iter().zip(states).enumerate() {
            let kept: Vec<AggState> = slots
                .iter()
                .map(|s| std::mem::replace(&mut all[*s as usize], AggState::Count(0)))
                .collect();
            drop_in_morsels(all);
            let data_type = self.types.get(1 + i).copied().unwrap_or(DataType::Double);
            columns.push(self.output_column(call, kept, data_type));
        }
        Ok(DataBlock::new(columns, slots.len()))
    }

    /// Aggregates `block` in one pass, keeping at most `groups_limit` groups; with the output,
    /// each output group's first row in `block` and whether groups were dropped.
    fn one_pass(
        &self,
        mut block: DataBlock,
        groups_limit: usize,
    ) -> Result<(DataBlock, Vec<u32>, bool), EngineError> {
        let group_keys = self.group_keys;
        let cols: Vec<&Column> = group_keys
            .iter()
            .filter_map(|k| block.columns.get(*k))
            .collect();
        // A final merge whose every row may be a group of its own (one worker grouped them
        // all): the keys in place, a state column per call, no more rows than groups kept.
        let mergeable = self.mode == AggMode::Final
            && block.num_rows <= groups_limit
            && group_keys.windows(2).all(|k| k[0] < k[1])
            && self.aggregates.iter().enumerate().all(|(i, call)| {
                block.columns.get(group_keys.len() + i).is_some_and(|c| {
                    c.len() == block.num_rows
                        && (matches!(c.cells, Cells::States(_))
                            || number_states::is_number_state(&call.function))
                })
            });
        // Its first key strictly ascending (a leaf's groups by a sorted column) says so before
        // any numbering.
        if mergeable
            && cols
                .first()
                .and_then(|c| hash_table::plain_ints(&[c]))
                .is_some_and(|v| v.windows(2).all(|w| w[0] < w[1]))
        {
            return self.own_groups(block);
        }
        let (mut groups, mut first) = hash_table::group_ids(&cols, block.num_rows);
        // As many groups as rows: each row is its own, numbered by its position.
        if mergeable && first.len() == block.num_rows {
            return self.own_groups(block);
        }
        let limited = !group_keys.is_empty() && first.len() > groups_limit;
        let mut first_in_input = first.clone();
        if limited {
            let kept: Vec<u32> = (0..block.num_rows as u32)
                .filter(|&r| (groups[r as usize] as usize) < groups_limit)
                .collect();
            groups = kept.iter().map(|&r| groups[r as usize]).collect();
            block = block.take(&kept);
            first_in_input.truncate(groups_limit);
            first = first[..groups_limit]
                .iter()
                .map(|&row| kept.partition_point(|&k| k < row) as u32)
                .collect();
        }
        // An aggregation without GROUP BY answers one row even over no input.
        let num_groups = if group_keys.is_empty() {
            1
        } else {
            first.len()
        };
        let mut columns: Vec<Column> = group_keys
            .iter()
            .map(|k| block.columns[*k].take(&first))
            .collect();
        // Each call's states over the rows; the calls in parallel (their inputs are disjoint).
        let inputs: Vec<(usize, &AggregateCall, Option<Column>)> = match self.mode {
            AggMode::Final => {
                let mut taken = Vec::with_capacity(self.aggregates.len());
                for (i, call) in self.aggregates.iter().enumerate() {
                    let states = block
                        .columns
                        .get_mut(group_keys.len() + i)
                        .map(|c| std::mem::replace(c, Column::empty(c.data_type)));
                    taken.push((i, call, states));
                }
                taken
            }
            _ => self
                .aggregates
                .iter()
                .enumerate()
                .map(|(i, c)| (i, c, None))
                .collect(),
        };
        let block = &block;
        let groups = &groups;
        let calls = map_items(inputs, block.num_rows, |(i, call, states)| {
            self.call_column(
                call,
                states,
                block,
                groups,
                num_groups,
                self.types.get(group_keys.len() + i).copied(),
            )
        });
        for c in calls {
            columns.push(c?);
        }
        Ok((DataBlock::new(columns, num_groups), first_in_input, limited))
    }

    /// The final merge of `block` whose every row is a group of its own (a state column per
    /// call): its keys moved out, its states finalized.
    fn own_groups(&self, mut block: DataBlock) -> Result<(DataBlock, Vec<u32>, bool), EngineError> {
        let rows = block.num_rows;
        let keys = self.group_keys.len();
        let mut columns: Vec<Column> = self
            .group_keys
            .iter()
            .map(|k| {
                let empty = Column::empty(block.columns[*k].data_type);
                std::mem::replace(&mut block.columns[*k], empty)
            })
            .collect();
        let states: Vec<(usize, Option<Column>)> = (0..self.aggregates.len())
            .map(|i| {
                let column = block
                    .columns
                    .get_mut(keys + i)
                    .map(|c| std::mem::replace(c, Column::empty(c.data_type)));
                (i, column)
            })
            .collect();
        let calls = map_items(states, rows, |(i, column)| {
            let call = &self.aggregates[i];
            let f = &call.function;
            let data_type = self
                .types
                .get(keys + i)
                .copied()
                .unwrap_or(DataType::Double);
            let missing = || EngineError::execution("a final merge without its states");
            // Numbers are their final values; states are finalized one by one.
            match number_states::finalize(
                f,
                column.ok_or_else(missing)?,
                data_type,
                self.null_handling,
            ) {
                Ok(values) => Ok::<Column, EngineError>(values),
                Err(column) => {
                    let states = number_states::states_of_column(f, column).ok_or_else(missing)?;
                    Ok(self.output_column(call, states, data_type))
                }
            }
        });
        for c in calls {
            columns.push(c?);
        }
        Ok((
            DataBlock::new(columns, rows),
            (0..rows as u32).collect(),
            false,
        ))
    }

    /// One aggregate call's output column over `block`'s rows in `groups`: its final values, or
    /// (partial mode) its states; `states` is the call's column of partial states in final mode.
    fn call_column(
        &self,
        call: &AggregateCall,
        states: Option<Column>,
        block: &DataBlock,
        groups: &[u32],
        num_groups: usize,
        data_type: Option<DataType>,
    ) -> Result<Column, EngineError> {
        let data_type = data_type.unwrap_or(DataType::Double);
        let states = match self.mode {
            AggMode::Final => {
                let f = &call.function;
                if let Some(merged) = states.as_ref().and_then(|c| {
                    number_states::merge(f, c, groups, num_groups, data_type, self.null_handling)
                }) {
                    return Ok(merged);
                }
                let mut merged: Vec<AggState> =
                    (0..num_groups).map(|_| AggState::empty(f)).collect();
                if let Some(column) = states {
                    let states = number_states::states_of_column(f, column).ok_or_else(|| {
                        EngineError::execution("a final merge without its states")
                    })?;
                    for (s, g) in states.into_iter().zip(groups) {
                        merged[*g as usize].merge(s, f)?;
                    }
                }
                merged
            }
            // A FILTER (WHERE …) applies where rows are aggregated; the final phase merges
            // states made from the kept rows only.
            AggMode::Direct | AggMode::Partial => {
                let arg = match &call.arg {
                    None => None,
                    Some(e) => Some(evaluate(e, block)?),
                };
                let second = match &call.second {
                    None => None,
                    Some(e) => Some(evaluate(e, block)?),
                };
                match &call.filter {
                    None => accumulate(call, groups, num_groups, arg.as_ref(), second.as_ref())?,
                    Some(f) => {
                        let kept = kept_rows(f, block)?;
                        let groups: Vec<u32> = kept.iter().map(|&r| groups[r as usize]).collect();
                        let arg = arg.map(|c| c.take(&kept));
                        let second = second.map(|c| c.take(&kept));
                        accumulate(call, &groups, num_groups, arg.as_ref(), second.as_ref())?
                    }
                }
            }
        };
        Ok(self.output_column(call, states, data_type))
    }

    /// A call's output column from its states per group: the states themselves (partial mode),
    /// else their final values, finalized and typed in morsels put one after the other.
    fn output_column(
        &self,
        call: &AggregateCall,
        states: Vec<AggState>,
        data_type: DataType,
    ) -> Column {
        if self.mode == AggMode::Partial {
            return number_states::state_column(&call.function, data_type, states);
        }
        let null_handling = self.null_handling;
        if let Some(numbers) = finalize_numbers(call, &states, data_type, null_handling) {
            drop_in_morsels(states);
            return numbers;
        }
        let column = Column::concat(
            map_morsels(states.len(), |rows| {
                let states = &states[rows];
                let values = states
                    .iter()
                    .map(|s| s.finalize(&call.function, null_handling))
                    .collect();
                Column::from_values(data_type, values)
            }),
            data_type,
        );
        drop_in_morsels(states);
        column
    }
}

/// The final values of counting, summing, averaging and extreme states as a number column of
/// `data_type` (COUNT's as integers, the others' as doubles), straight from the states: no
/// [`Value`](segments::types::Value) per group, a morsel of states per pool thread written in
/// place. `None` when a state is of another kind or the type does not hold its values.
fn finalize_numbers(
    call: &AggregateCall,
    states: &[AggState],
    data_type: DataType,
    null_handling: bool,
) -> Option<Column> {
    let (cells, nulls) = match data_type {
        DataType::Long => {
            let mut out = vec![0i64; states.len()];
            let all = fill_morsels(&mut out, |start, out| {
                out.iter_mut().zip(&states[start..]).all(|(o, s)| match s {
                    AggState::Count(n) => {
                        *o = *n;
                        true
                    }
                    _ => false,
                })
            });
            (all.iter().all(|a| *a).then_some(Cells::I64(out))?, None)
        }
        DataType::Double => {
            let finalize = |s: &AggState| s.finalize_number(&call.function, null_handling);
            let mut values = vec![0.0; states.len()];
            // Per morsel: `None` when a state is of another kind, else whether one is NULL.
            let morsels = fill_morsels(&mut values, |start, values| {
                let mut any_null = false;
                for (v, s) in values.iter_mut().zip(&states[start..]) {
                    match finalize(s)? {
                        Some(x) => *v = x,
                        None => any_null = true,
                    }
                }
                Some(any_null)
            });
            let any_null = morsels.into_iter().collect::<Option<Vec<bool>>>()?;
            // NULLs are rare (a SUM over no non-NULL value): marked in a second pass.
            let nulls = any_null
                .contains(&true)
                .then(|| states.iter().map(|s| finalize(s) == Some(None)).collect());
            (Cells::F64(values), nulls)
        }
        _ => return None,
    };
    Some(Column {
        cells,
        data_type,
        nulls,
    })
}

/// Each slot's state of `from` merged into the same slot of `into`, slices of slots in parallel.
fn merge_slots(
    call: &AggregateCall,
    into: &mut [AggState],
    mut from: Vec<AggState>,
) -> Result<(), EngineError> {
    into.par_chunks_mut(MIN_MORSEL_ROWS)
        .zip(from.par_chunks_mut(MIN_MORSEL_ROWS))
        .try_for_each(|(into, from)| {
            for (a, b) in into.iter_mut().zip(from) {
                a.merge(std::mem::replace(b, AggState::Count(0)), &call.function)?;
            }
            Ok(())
        })
}

/// About how many groups the key columns `keys` of `rows` rows hold, from [`SAMPLE_ROWS`] rows
/// spread evenly over them: the sample's own groups when they are at most half of it (the sample
/// then met about every group), else the count for which evenly spread keys would repeat as
/// often in the sample (`n` rows from `g` groups make about `n²/2g` repeats), `usize::MAX`
/// when none repeats. Keys whose groups are runs of rows (a sorted key) look many.
fn sampled_groups(keys: &[&Column], rows: usize) -> usize {
    let n = SAMPLE_ROWS.min(rows);
    if n == 0 {
        return 0;
    }
    let sample: Vec<u32> = (0..n).map(|i| (i * rows / n) as u32).collect();
    let columns: Vec<Column> = keys.iter().map(|c| c.take(&sample)).collect();
    let columns: Vec<&Column> = columns.iter().collect();
    let seen = hash_table::group_ids(&columns, n).1.len();
    let repeats = n - seen;
    if seen * 2 <= n {
        seen
    } else if repeats == 0 {
        usize::MAX
    } else {
        n * n / (2 * repeats)
    }
}

/// `block` dealt into `parts` blocks by the columns `keys` — rows with equal keys into the same
/// block, each block's rows in their order in `block` — with each block's rows' places in
/// `block`; of the other columns only those `read` marks are dealt (the rest are empty). One
/// integer key whose values index an array (its range `dense`, from [`Aggregate::array_key`]) is
/// cut by slices of its range (each part's keys then index an array of their own); other keys
/// by the middle bits of their hash.
/// Each morsel of rows is dealt out in one pass ([`Column::deal`]), then each part joins its
/// pieces.
fn deal_by_keys(
    block: &DataBlock,
    keys: &[usize],
    read: &[bool],
    parts: usize,
    dense: Option<(i64, usize)>,
) -> Vec<(DataBlock, Vec<u32>)> {
    let cols: Vec<&Column> = keys.iter().filter_map(|k| block.columns.get(*k)).collect();
    let rows = block.num_rows;
    let ints = hash_table::plain_ints(&cols);
    let hashes = match (ints, dense) {
        (Some(_), Some(_)) => Vec::new(),
        _ => hash_rows_within(&cols, rows),
    };
    let part_of = |r: usize| -> u16 {
        let p = match (ints, dense) {
            (Some(v), Some((lo, span))) => (v[r] - lo) as usize * parts / span,
            _ => hash_table::part_of(hashes[r], parts),
        };
        p as u16
    };
    // Per morsel: its rows per part and each column's pieces per part (`[column][part]`); then
    // per part: its rows per morsel and each morsel's pieces (`[morsel][column]`).
    type Pieces = (Vec<Vec<u32>>, Vec<Vec<Column>>);
    let dealt: Vec<Pieces> = map_morsels(rows, |range| {
        let part: Vec<u16> = range.clone().map(part_of).collect();
        let mut rows_of: Vec<Vec<u32>> = (0..parts)
            .map(|_| Vec::with_capacity(range.len() / parts + 16))
            .collect();
        for (r, p) in range.clone().zip(&part) {
            rows_of[usize::from(*p)].push(r as u32);
        }
        let counts: Vec<usize> = rows_of.iter().map(Vec::len).collect();
        let pieces = block
            .columns
            .iter()
            .zip(read)
            .map(|(c, r)| match r {
                true => c.deal(range.start, &part, &counts),
                false => (0..parts).map(|_| Column::empty(c.data_type)).collect(),
            })
            .collect();
        (rows_of, pieces)
    });
    // Regrouped by part (moving the pieces), then each part's pieces joined.
    let mut by_part: Vec<Pieces> = (0..parts).map(|_| (Vec::new(), Vec::new())).collect();
    for (rows_of, pieces) in dealt {
        for (p, rows) in rows_of.into_iter().enumerate() {
            by_part[p].0.push(rows);
        }
        let mut per_column: Vec<std::vec::IntoIter<Column>> =
            pieces.into_iter().map(Vec::into_iter).collect();
        for part in by_part.iter_mut() {
            part.1
                .push(per_column.iter_mut().filter_map(Iterator::next).collect());
        }
    }
    by_part
        .into_par_iter()
        .map(|(rows, morsels)| {
            let rows: Vec<u32> = rows.concat();
            let mut per_column: Vec<Vec<Column>> =
                block.columns.iter().map(|_| Vec::new()).collect();
            for m in morsels {
                for (c, piece) in m.into_iter().enumerate() {
                    per_column[c].push(piece);
                }
            }
            let columns = per_column
                .into_iter()
                .zip(&block.columns)
                .map(|(pieces, col)| Column::concat(pieces, col.data_type))
                .collect();
            (DataBlock::new(columns, rows.len()), rows)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner::plan::{ColumnType, InputRef};
    use segments::types::Value;

    fn input(index: usize, t: DataType) -> Expr {
        Expr::Input(InputRef {
            index,
            name: format!("${index}"),
            column_type: ColumnType::sv(t),
        })
    }

    fn call(function: AggregateFunction, arg: Option<Expr>) -> AggregateCall {
        AggregateCall {
            function,
            arg,
            second: None,
            multi_value: false,
            filter: None,
            name: "agg".into(),
        }
    }

    /// Pools of one thread (one pass) and of three (parts, slots, morsels).
    fn pools() -> (rayon::ThreadPool, rayon::ThreadPool) {
        let pool = |n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        };
        (pool(1), pool(3))
    }

    /// Calls counting, adding, and counting distinct values of input `arg` (a DOUBLE), with
    /// `third` between them.
    fn calls(arg: usize, third: AggregateFunction) -> [AggregateCall; 4] {
        let x = || Some(input(arg, DataType::Double));
        [
            call(AggregateFunction::Count, None),
            call(AggregateFunction::Sum, x()),
            call(third, x()),
            call(AggregateFunction::DistinctCount, x()),
        ]
    }

    /// The output rows, in an order of their own (the parts put groups in another order).
    fn sorted_rows(b: &DataBlock) -> Vec<String> {
        let mut rows: Vec<String> = b.rows().iter().map(|r| format!("{r:?}")).collect();
        rows.sort();
        rows
    }

    /// Aggregated in parts on a pool of three, a block has the groups and values of one pass,
    /// for one dense integer key (cut by key range), a spread one and two key columns (cut by
    /// hash), in direct and partial mode; past a groups limit the same groups are kept.
    #[test]
    fn parts_on_a_pool_aggregate_as_one_pass() {
        let rows = MIN_PARTITIONED_ROWS * 2 + 13;
        let (one, three) = pools();
        let calls = calls(2, AggregateFunction::Min);
        for scale in [1i64, 1 << 40] {
            let keys: Vec<Value> = (0..rows as i64)
                // Many groups (no sampled key repeats), within a slot per four rows.
                .map(|i| Value::Long((i * 7 % 16381) * scale))
                .collect();
            let names: Vec<Value> = (0..rows)
                .map(|i| Value::String(format!("n{}", i % 3)))
                .collect();
            let values: Vec<Value> = (0..rows)
                .map(|i| {
                    if i % 11 == 0 {
                        Value::Null
                    } else {
                        // Quarters: sums are exact in any order (morsels add up apart).
                        Value::Double((i % 1000) as f64 * 0.25)
                    }
                })
                .collect();
            let block = DataBlock::new(
                vec![
                    Column::from_values(DataType::Long, keys),
                    Column::from_values(DataType::String, names),
                    Column::from_values(DataType::Double, values),
                ],
                rows,
            );
            for group_keys in [&[0usize][..], &[0, 1][..]] {
                for mode in [AggMode::Direct, AggMode::Partial] {
                    for groups_limit in [usize::MAX, 700] {
                        let mut types: Vec<DataType> = group_keys
                            .iter()
                            .map(|k| [DataType::Long, DataType::String][*k])
                            .collect();
                        types.extend([
                            DataType::Long,
                            DataType::Double,
                            DataType::Double,
                            DataType::Int,
                        ]);
                        let agg = Aggregate {
                            group_keys,
                            aggregates: &calls,
                            mode,
                            types: &types,
                            null_handling: true,
                            groups_limit,
                        };
                        let (want, want_limited) = one.install(|| agg.run(block.clone())).unwrap();
                        let array_key = scale == 1 && group_keys.len() == 1;
                        assert_eq!(one.install(|| agg.way(&block)), Way::OnePass);
                        assert!(matches!(
                            three.install(|| agg.way(&block)),
                            Way::Parts { parts, array_key: range } if parts > 1 && range.is_some() == array_key
                        ));
                        // Counting and adding by one key that indexes an array: one pass.
                        let cheap = Aggregate {
                            aggregates: &calls[..3],
                            types: &types[..types.len() - 1],
                            ..agg
                        };
                        let cheap_way = three.install(|| cheap.way(&block));
                        assert_eq!(!matches!(cheap_way, Way::Parts { .. }), array_key);
                        // ... aggregated a morsel per thread into slots instead, within the limit.
                        assert_eq!(
                            matches!(cheap_way, Way::Slots(_)),
                            array_key && groups_limit == usize::MAX
                        );
                        let (one_pass, _) = one.install(|| cheap.run(block.clone())).unwrap();
                        let (slots, _) = three.install(|| cheap.run(block.clone())).unwrap();
                        assert_eq!(
                            sorted_rows(&slots),
                            sorted_rows(&one_pass),
                            "cheap: {group_keys:?} {mode:?}"
                        );
                        let (got, got_limited) = three.install(|| agg.run(block.clone())).unwrap();
                        let what = format!(
                            "scale {scale} keys {group_keys:?} {mode:?} limit {groups_limit}"
                        );
                        assert_eq!(got_limited, want_limited, "{what}");
                        assert_eq!(got_limited, groups_limit < usize::MAX, "{what}");
                        assert_eq!(got.num_rows, want.num_rows, "{what}");
                        assert_eq!(sorted_rows(&got), sorted_rows(&want), "{what}");
                    }
                }
            }
        }
    }

    /// A block with few groups against its rows is aggregated a morsel per thread on a pool of
    /// three: directly, it answers one pass's groups and values; its partial states, merged as
    /// after an exchange, do too. Past a groups limit it is dealt into parts and keeps the groups
    /// one pass keeps; with many groups it is dealt into parts from the start.
    #[test]
    fn few_groups_aggregate_a_morsel_per_thread_as_one_pass() {
        let rows = MIN_PARTITIONED_ROWS * 2 + 13;
        let (one, three) = pools();
        let calls = calls(3, AggregateFunction::Avg);
        let types = [
            DataType::String,
            DataType::Long,
            DataType::Long,
            DataType::Double,
            DataType::Double,
            DataType::Int,
        ];
        let block = |groups: usize| {
            let names = (0..rows)
                .map(|i| Value::String(format!("n{}", i * 13 % groups)))
                .collect();
            let keys = (0..rows).map(|i| Value::Long((i % 7) as i64)).collect();
            // A column the aggregate does not read.
            let unread = (0..rows).map(|i| Value::Long(i as i64)).collect();
            let values = (0..rows)
                .map(|i| match i % 11 {
                    0 => Value::Null,
                    _ => Value::Double((i % 1000) as f64 * 0.25),
                })
                .collect();
            DataBlock::new(
                vec![
                    Column::from_values(DataType::String, names),
                    Column::from_values(DataType::Long, keys),
                    Column::from_values(DataType::Long, unread),
                    Column::from_values(DataType::Double, values),
                ],
                rows,
            )
        };
        let agg = |mode, groups_limit| Aggregate {
            group_keys: &[0, 1],
            aggregates: &calls,
            mode,
            types: &types,
            null_handling: true,
            groups_limit,
        };
        let merged = |pool: &rayon::ThreadPool, b: DataBlock| {
            pool.install(|| {
                let (states, _) = agg(AggMode::Partial, usize::MAX).run(b).unwrap();
                let keys = [0, 1];
                let merge = Aggregate {
                    group_keys: &keys,
                    ..agg(AggMode::Final, usize::MAX)
                };
                merge.run(states).unwrap().0
            })
        };
        let few = block(40);
        assert!(matches!(
            three.install(|| agg(AggMode::Direct, usize::MAX).way(&few)),
            Way::Morsels { .. }
        ));
        let (want, _) = one
            .install(|| agg(AggMode::Direct, usize::MAX).run(few.clone()))
            .unwrap();
        assert_eq!(want.num_rows, 280);
        let (got, limited) = three
            .install(|| agg(AggMode::Direct, usize::MAX).run(few.clone()))
            .unwrap();
        assert!(!limited);
        // In order of first appearance, as one pass.
        assert_eq!(got.rows(), want.rows());
        // Partial states of each morsel go out unmerged; merged after, they are one pass's.
        let (states, _) = three
            .install(|| agg(AggMode::Partial, usize::MAX).run(few.clone()))
            .unwrap();
        assert_eq!(states.num_rows, 3 * 280);
        assert_eq!(
            sorted_rows(&merged(&three, few.clone())),
            sorted_rows(&want)
        );
        // Past the limit: the groups one pass keeps.
        let (want, _) = one
            .install(|| agg(AggMode::Direct, 150).run(few.clone()))
            .unwrap();
        let (got, limited) = three
            .install(|| agg(AggMode::Direct, 150).run(few.clone()))
            .unwrap();
        assert!(limited);
        assert_eq!(sorted_rows(&got), sorted_rows(&want));
        // Many groups: dealt into parts.
        let many = block(rows);
        assert!(matches!(
            three.install(|| agg(AggMode::Direct, usize::MAX).way(&many)),
            Way::Parts { .. }
        ));
    }

    /// A final merge whose every row is its own group (by a strictly ascending key, or numbered
    /// in another order; finalized in morsels) answers as the raw rows aggregated directly, and
    /// one with a repeated key merges it.
    #[test]
    fn a_final_merge_of_ascending_groups_answers_as_any_order() {
        let (_, three) = pools();
        let rows = 3 * MIN_MORSEL_ROWS + 17;
        let calls = [
            call(AggregateFunction::Count, None),
            call(AggregateFunction::Sum, Some(input(1, DataType::Double))),
            call(AggregateFunction::Max, Some(input(1, DataType::Double))),
            call(
                AggregateFunction::DistinctCount,
                Some(input(1, DataType::Double)),
            ),
        ];
        let types = [
            DataType::Long,
            DataType::Long,
            DataType::Double,
            DataType::Double,
            DataType::Int,
        ];
        // Raw rows: two per key, one key's values all NULL (its SUM and MAX are NULL).
        let raw = |order: &dyn Fn(usize) -> i64| {
            let keys = (0..2 * rows).map(|i| Value::Long(order(i / 2))).collect();
            let values = (0..2 * rows)
                .map(|i| match order(i / 2) {
                    15 => Value::Null,
                    k => Value::Double((k % 97) as f64 + (i % 2) as f64),
                })
                .collect();
            DataBlock::new(
                vec![
                    Column::from_values(DataType::Long, keys),
                    Column::from_values(DataType::Double, values),
                ],
                2 * rows,
            )
        };
        let agg = |mode| Aggregate {
            group_keys: &[0],
            aggregates: &calls,
            mode,
            types: &types,
            null_handling: true,
            groups_limit: usize::MAX,
        };
        let merged = |block: DataBlock| {
            three.install(|| {
                let (states, _) = agg(AggMode::Partial).run(block).unwrap();
                agg(AggMode::Final).run(states).unwrap().0
            })
        };
        let ascending = merged(raw(&|k| k as i64 * 3));
        let descending = merged(raw(&|k| (rows - 1 - k) as i64 * 3));
        assert_eq!(ascending.num_rows, rows);
        assert!(sorted_rows(&ascending) == sorted_rows(&descending));
        // Both as the raw rows aggregated directly, without states between.
        let (direct, _) = three
            .install(|| agg(AggMode::Direct).run(raw(&|k| k as i64 * 3)))
            .unwrap();
        assert!(sorted_rows(&ascending) == sorted_rows(&direct));
        let null_row = &ascending.rows()[5];
        assert_eq!(null_row[0], Value::Long(15));
        assert_eq!(null_row[2], Value::Null);
        // The partial states of two halves, one after the other: keys repeat, groups merge.
        let half = || {
            three
                .install(|| agg(AggMode::Partial).run(raw(&|k| k as i64)))
                .unwrap()
                .0
        };
        let twice = DataBlock::concat(vec![half(), half()], &types);
        let (doubled, _) = three.install(|| agg(AggMode::Final).run(twice)).unwrap();
        assert_eq!(doubled.num_rows, rows);
        assert_eq!(doubled.rows()[7][1], Value::Long(4));
    }

    /// Counting, summing, averaging and extreme states finalize into the number column their
    /// values make, NULLs and the defaults without null handling included; others are left to
    /// the values.
    #[test]
    fn simple_states_finalize_as_their_values() {
        use AggState as S;
        let cases = [
            (
                AggregateFunction::Count,
                DataType::Long,
                vec![S::Count(3), S::Count(0)],
            ),
            (
                AggregateFunction::Sum,
                DataType::Double,
                vec![S::Sum(Some(1.5)), S::Sum(None)],
            ),
            (
                AggregateFunction::Sum0,
                DataType::Double,
                vec![S::Sum(None), S::Sum(Some(-2.0))],
            ),
            (
                AggregateFunction::Min,
                DataType::Double,
                vec![S::Min(None), S::Min(Some(-0.0))],
            ),
            (
                AggregateFunction::Max,
                DataType::Double,
                vec![S::Max(Some(7.0)), S::Max(None)],
            ),
            (
                AggregateFunction::Avg,
                DataType::Double,
                vec![S::Avg { sum: 3.0, count: 2 }, S::Avg { sum: 0.0, count: 0 }],
            ),
            (
                AggregateFunction::MinMaxRange,
                DataType::Double,
                vec![S::MinMax(Some((1.0, 4.5))), S::MinMax(None)],
            ),
        ];
        for (function, data_type, states) in cases {
            let c = call(function.clone(), None);
            for null_handling in [true, false] {
                let values = states
                    .iter()
                    .map(|s| s.finalize(&function, null_handling))
                    .collect();
                let want = Column::from_values(data_type, values);
                let got = finalize_numbers(&c, &states, data_type, null_handling);
                assert_eq!(got, Some(want), "{function:?} nulls {null_handling}");
            }
        }
        // A count as a double, or a state of another kind: left to the values.
        let c = call(AggregateFunction::Count, None);
        assert_eq!(
            finalize_numbers(&c, &[S::Count(1)], DataType::Double, true),
            None
        );
        let c = call(AggregateFunction::Mode, None);
        let mode = S::Mode(Default::default());
        assert_eq!(finalize_numbers(&c, &[mode], DataType::Double, true), None);
    }
}
