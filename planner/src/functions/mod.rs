//! Tessera's scalar function catalog: every row-level function a query can call by name, as
//! Pinot spells it (`@ScalarFunction` and the transform functions of `TransformFunctionType`).
//!
//! The catalog is a table of [`FunctionDef`] entries, one file per area:
//!
//! | file | functions |
//! | --- | --- |
//! | `arithmetic` | `plus/add`, `minus/sub`, `times/mult`, `divide/div`, `mod`, `abs`, `ceil`, `floor`, `exp`, `ln/log`, `log2`, `log10`, `sqrt`, `power/pow`, `sign`, `round`, `roundDecimal`, `truncate`, `least`, `greatest`, trigonometry, … |
//! | `comparison` | `equals`, `notEquals`, `greaterThan`, …, `and`, `or`, `not` |
//! | `conditional` | `coalesce`, `nullIf`, `isNull`, `isNotNull`, `isDistinctFrom`, `isNotDistinctFrom` |
//! | `strings` | `upper`, `lower`, `concat`, `concat_ws`, `substr`, `substring`, `trim`, `length`, `replace`, `lpad`, `splitPart`, `strpos`, … |
//! | `regexp` | `regexpExtract`, `regexpReplace`, `regexpLike`, `like` |
//! | `datetime` | `toEpochSeconds…`, `fromEpochDays…`, `dateTrunc`, `year` … `millisecond`, `timestampAdd`, `timestampDiff`, `now`, `ago`, `toDateTime`, `fromDateTime`, … |
//! | `datetime_convert` | `dateTimeConvert` with Pinot's DateTimeFieldSpec format syntax |
//! | `json` | `jsonExtractScalar` over a JSONPath subset (`$.a.b[0]['c']`) |
//! | `arrays` | `arrayLength/cardinality`, `arrayMin`, `arrayMax`, `arraySum`, `arrayAverage` |
//! | `bytes` | `md5`, `toUtf8`, `fromUtf8`, `toBase64`, `fromBase64` |
//! | `sketch` | `toThetaSketch`, `getThetaSketchEstimate`, `thetaSketchUnion/Intersect/Diff`, `thetaSketchToString`, `toCpcSketch`, `getCpcSketchEstimate`, `cpcSketchUnion`, `cpcSketchToString` |
//!
//! Names are looked up by their canonical form ([`canonical_name`]: lower case, `_` removed,
//! as Pinot's `FunctionRegistry.canonicalize`), so `DATE_TRUNC`, `dateTrunc` and `datetrunc`
//! are one function, and every alias Pinot registers resolves to the same entry.
//!
//! Each function has three parts:
//!
//! * an arity ([`Arity`]) and per-position argument kinds, checked by
//!   [`FunctionDef::resolve`] / [`FunctionDef::return_type`] (validation errors, code 700);
//! * return-type inference from the argument types. The binder passes an [`ArgType`] per
//!   argument: its [`DataType`] (`None` for an untyped NULL literal) and, for literals, the
//!   value itself — a few functions (`dateTimeConvert`, `jsonExtractScalar`) take their result
//!   type from a literal argument;
//! * row-level evaluation ([`FunctionDef::eval`]) on [`Value`]s. Unless a function says
//!   otherwise ([`FunctionDef::propagates_nulls`] is false: `coalesce`, `and`, `or`,
//!   `nullIf`, `isNull`, …) a NULL argument makes the result NULL without running the function.
//!   Arguments are converted the way Pinot converts them (numbers from numeric text, text from
//!   any value, BYTES from hex text), and runtime failures are errors (code 200), never panics.
//!
//! Evaluation derives its result's type from the argument *values* with the same rules the
//! inference applies to the argument *types*, so a call whose arguments carry their declared
//! types yields a value of the declared result type. (An argument typed wider than its value —
//! an `Int` value for a LONG argument — can yield a narrower numeric value: callers that need
//! the exact type apply [`Value::cast`].)
//!
//! ```
//! use tessera_planner::functions::{lookup, ArgType};
//! use segments::types::{DataType, Value};
//!
//! let f = lookup("DATE_TRUNC").unwrap();
//! assert_eq!(f.name(), "dateTrunc");
//! assert_eq!(f.return_type(&[DataType::String, DataType::Timestamp]).unwrap(), DataType::Long);
//! let day = f.eval(&[Value::String("DAY".into()), Value::Long(1_639_480_981_746)]).unwrap();
//! assert_eq!(day, Value::Long(1_639_440_000_000));
//! assert_eq!(f.eval(&[Value::String("DAY".into()), Value::Null]).unwrap(), Value::Null);
//!
//! let json = lookup("json_extract_scalar").unwrap();
//! let result_type = Value::String("INT".into());
//! let args = [ArgType::of(DataType::Json), ArgType::of(DataType::String), ArgType::literal(&result_type)];
//! assert_eq!(json.resolve(&args).unwrap(), DataType::Int);
//! ```

mod arithmetic;
mod arrays;
mod bitwise;
mod bytes;
mod coerce;
mod comparison;
mod conditional;
mod datetime;
mod datetime_convert;
mod datetime_format;
mod datetime_mv;
mod def;
mod error;
mod geo;
mod geohash;
mod hash;
mod ip;
mod json;
mod json_path;
mod regexp;
mod registry;
mod sketch;
mod strings;
mod typing;
mod url;
mod uuid;
mod vector;
mod zone;

pub use def::{ArgType, Arity, FunctionDef, Param};
pub use error::FunctionError;
pub use registry::{all, canonical_name, is_deterministic, lookup};
pub use typing::common_type;

#[cfg(test)]
mod tests;
