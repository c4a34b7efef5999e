//! Catalog-wide properties: every function evaluates and types any arity-valid input without
//! panicking.

use super::{ArgType, all};
use proptest::prelude::*;
use segments::types::{DataType, Value};

/// Scalar values, biased toward the edge cases kernels must survive.
fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<i32>().prop_map(Value::Int),
        prop_oneof![any::<i64>(), Just(i64::MIN), Just(i64::MAX), Just(0i64), Just(-1i64)].prop_map(Value::Long),
        any::<f32>().prop_map(Value::Float),
        prop_oneof![any::<f64>(), Just(f64::NAN), Just(f64::INFINITY), Just(-0.0f64)].prop_map(Value::Double),
        "-?[0-9]{0,30}(\\.[0-9]{0,20})?(e-?[0-9]{1,3})?".prop_map(Value::BigDecimal),
        any::<bool>().prop_map(Value::Boolean),
        any::<i64>().prop_map(Value::Timestamp),
        prop_oneof![
            ".{0,12}",
            "[0-9:\\- TZ.+]{0,24}",
            "(yyyy|MM|dd|HH|mm|ss|SSS|'|a|Z|[-:T ]){0,8}",
            "(1|15):(MILLISECONDS|MINUTES|DAYS|HOURS):(EPOCH|TIMESTAMP|SIMPLE_DATE_FORMAT)(:yyyy-MM-dd)?",
            "\\$(\\.[a-z]{1,3}|\\[-?[0-9]\\]|\\[\\*\\]){0,3}",
            "(day|week|month|quarter|year|hour|UTC|INT|STRING|LONG|P1D|PT1H|\\{\"a\":1\\})",
            "[(\\[\\]|*+?.\\\\a-z$0-9]{0,10}",
        ]
        .prop_map(Value::String),
        "\\{\"[a-z]\":(1|\"x\"|\\[1,2\\]|null)\\}".prop_map(Value::Json),
        proptest::collection::vec(any::<u8>(), 0..20).prop_map(Value::Bytes),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        8 => scalar(),
        1 => proptest::collection::vec(scalar(), 0..5).prop_map(Value::Array),
    ]
}

fn data_type() -> impl Strategy<Value = Option<DataType>> {
    proptest::option::of(proptest::sample::select(DataType::ALL.to_vec()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn eval_never_panics(function in 0usize..1000, args in proptest::collection::vec(value(), 0..7)) {
        let defs: Vec<_> = all().collect();
        let def = defs[function % defs.len()];
        let _ = def.eval(&args);
        // Every accepted arity is exercised: trim the arguments to the nearest accepted count.
        for n in 0..=args.len() {
            if def.arity().accepts(n) {
                let _ = def.eval(&args[..n]);
            }
        }
    }

    #[test]
    fn typing_never_panics(function in 0usize..1000, types in proptest::collection::vec(data_type(), 0..7), literals in proptest::collection::vec(scalar(), 7)) {
        let defs: Vec<_> = all().collect();
        let def = defs[function % defs.len()];
        let args: Vec<ArgType> = types
            .iter()
            .zip(&literals)
            .enumerate()
            .map(|(i, (t, lit))| if i % 2 == 0 { ArgType { data_type: *t, single_value: i % 4 == 0, literal: None } } else { ArgType::literal(lit) })
            .collect();
        for n in 0..=args.len() {
            let _ = def.resolve(&args[..n]);
        }
    }
}

#[test]
fn every_function_types_and_evaluates_a_plain_call() {
    // A typed call with arguments of each accepted kind must either type or report a
    // validation error; a NULL argument to a NULL-propagating function gives NULL.
    for def in all() {
        let n = (0..8).find(|n| def.arity().accepts(*n)).unwrap_or(0);
        if def.propagates_nulls() && n > 0 {
            let args = vec![Value::Null; n];
            assert_eq!(def.eval(&args), Ok(Value::Null), "{}", def.name());
        }
        let types = vec![DataType::String; n];
        if let Err(e) = def.return_type(&types) {
            assert_eq!(
                e.code(),
                segments::types::ErrorCode::QueryValidation,
                "{}: {e}",
                def.name()
            );
        }
    }
}
