//! [`FunctionDef`]: one catalog entry — names, arity, argument kinds, return-type rule and the
//! row-level kernel — and [`ArgType`], what the binder knows about an argument.

use super::error::FunctionError;
use segments::types::{ColumnType, DataType, Value};

/// What the binder knows about one argument when it resolves a call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArgType<'a> {
    /// The argument's type; `None` for an untyped NULL literal.
    pub data_type: Option<DataType>,
    /// False for a multi-value argument (an MV column, an array-valued call or literal).
    pub single_value: bool,
    /// The argument's value when it is a literal (constant), else `None`.
    pub literal: Option<&'a Value>,
}

impl<'a> ArgType<'a> {
    /// A non-literal argument of a known type.
    pub const fn of(data_type: DataType) -> ArgType<'static> {
        ArgType {
            data_type: Some(data_type),
            single_value: true,
            literal: None,
        }
    }

    /// A non-literal argument of a known single- or multi-value type.
    pub const fn of_column(column_type: ColumnType) -> ArgType<'static> {
        ArgType {
            data_type: Some(column_type.data_type),
            single_value: column_type.single_value,
            literal: None,
        }
    }

    /// A non-literal multi-value argument of this element type.
    pub const fn mv(data_type: DataType) -> ArgType<'static> {
        ArgType::of_column(ColumnType::mv(data_type))
    }

    /// An untyped NULL literal.
    pub const fn null() -> ArgType<'static> {
        ArgType {
            data_type: None,
            single_value: true,
            literal: None,
        }
    }

    /// A literal argument; its type is the value's (`None` for `Value::Null`).
    pub fn literal(value: &'a Value) -> ArgType<'a> {
        ArgType {
            data_type: value.data_type(),
            single_value: !matches!(value, Value::Array(_)),
            literal: Some(value),
        }
    }

    /// The literal's text when the argument is a non-NULL literal.
    pub(crate) fn literal_text(&self) -> Option<String> {
        match self.literal {
            Some(Value::Null) | None => None,
            Some(v) => Some(v.as_str().map_or_else(|| v.to_string(), str::to_string)),
        }
    }
}

/// How many arguments a function takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    Exact(usize),
    /// Inclusive bounds.
    Range(usize, usize),
    /// One of a few counts (`trim(s)` or `trim(end, chars, s)`).
    OneOf(&'static [usize]),
    /// At least this many (variadic).
    AtLeast(usize),
}

impl Arity {
    /// Whether `n` arguments are accepted.
    pub fn accepts(self, n: usize) -> bool {
        match self {
            Arity::Exact(k) => n == k,
            Arity::Range(lo, hi) => (lo..=hi).contains(&n),
            Arity::OneOf(ks) => ks.contains(&n),
            Arity::AtLeast(k) => n >= k,
        }
    }

    /// Human text for error messages: `2`, `2 to 4`, `1 or 3`, `at least 1`.
    pub fn describe(self) -> String {
        match self {
            Arity::Exact(k) => k.to_string(),
            Arity::Range(lo, hi) => format!("{lo} to {hi}"),
            Arity::OneOf(ks) => ks
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(" or "),
            Arity::AtLeast(k) => format!("at least {k}"),
        }
    }
}

/// The kind of value an argument position takes (checked at bind time; converted at run time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    /// A number: any numeric type, or text holding a number (parsed per row). Not BYTES.
    Number,
    /// Text: any value, converted with its string form (BYTES as hex).
    Text,
    /// BYTES, or text holding hex digits.
    Bytes,
    /// Any value, including multi-value arrays.
    Any,
    /// A multi-value argument (an MV column, an array-valued call, an array literal) of any
    /// element type; a single value is refused at bind time.
    Array,
    /// A multi-value argument of numbers.
    NumberArray,
}

impl Param {
    fn accepts(self, arg: &ArgType) -> bool {
        let Some(data_type) = arg.data_type else {
            return true;
        };
        match self {
            Param::Number => data_type != DataType::Bytes,
            Param::Bytes => matches!(data_type, DataType::Bytes | DataType::String),
            Param::Text | Param::Any => true,
            Param::Array => !arg.single_value,
            Param::NumberArray => !arg.single_value && data_type != DataType::Bytes,
        }
    }
}

/// How a function's result type is found.
#[derive(Clone, Copy, Debug)]
pub enum Returns {
    /// One value of this type.
    Fixed(DataType),
    /// An array (multi-value) of this element type.
    FixedArray(DataType),
    /// A single value of a type inferred from the arguments (arity and argument kinds
    /// already checked).
    Infer(fn(&[ArgType]) -> Result<DataType, FunctionError>),
    /// A single or multi-value type inferred from the arguments (`arrayReverse` of an
    /// `INT_ARRAY` is an `INT_ARRAY`).
    InferColumn(fn(&[ArgType]) -> Result<ColumnType, FunctionError>),
}

/// A row-level kernel. It runs only with an accepted number of arguments, and (unless the
/// function handles NULLs itself) with no NULL argument.
pub type Kernel = fn(&[Value]) -> Result<Value, FunctionError>;

/// One scalar function of the catalog.
#[derive(Clone, Copy, Debug)]
pub struct FunctionDef {
    name: &'static str,
    aliases: &'static [&'static str],
    arity: Arity,
    params: &'static [Param],
    returns: Returns,
    kernel: Kernel,
    propagates_nulls: bool,
    deterministic: bool,
    text_view: Option<TextView>,
}

/// A text function whose result is a slice of its first argument (`substring`), computed on a
/// borrowed text without building a value: the text, then the other arguments (non-NULL).
pub type TextView = for<'a> fn(&'a str, &[Value]) -> Result<&'a str, FunctionError>;

impl FunctionDef {
    /// A deterministic, NULL-propagating function. `params` gives the kind of each position;
    /// positions past its end take its last kind (variadic tails).
    pub(crate) const fn new(
        name: &'static str,
        arity: Arity,
        params: &'static [Param],
        returns: Returns,
        kernel: Kernel,
    ) -> FunctionDef {
        FunctionDef {
            name,
            aliases: &[],
            arity,
            params,
            returns,
            kernel,
            propagates_nulls: true,
            deterministic: true,
            text_view: None,
        }
    }

    /// Other names Pinot registers for the function.
    pub(crate) const fn with_aliases(mut self, aliases: &'static [&'static str]) -> FunctionDef {
        self.aliases = aliases;
        self
    }

    /// The kernel sees NULL arguments and decides itself (`coalesce`, `or`, …).
    pub(crate) const fn handles_nulls(mut self) -> FunctionDef {
        self.propagates_nulls = false;
        self
    }

    /// The result is a slice of the first argument, also computed by `view` on borrowed text.
    pub(crate) const fn with_text_view(mut self, view: TextView) -> FunctionDef {
        self.text_view = Some(view);
        self
    }

    /// The result may differ between calls with the same arguments (`now`, `ago`).
    pub(crate) const fn nondeterministic(mut self) -> FunctionDef {
        self.deterministic = false;
        self
    }

    /// Pinot's name for the function (`dateTrunc`), used in messages and EXPLAIN.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The other names the function answers to (before canonicalisation).
    pub fn aliases(&self) -> &'static [&'static str] {
        self.aliases
    }

    pub fn arity(&self) -> Arity {
        self.arity
    }

    /// The argument kind expected at a 0-based position (the last kind repeats).
    pub fn param(&self, position: usize) -> Param {
        self.params
            .get(position)
            .or(self.params.last())
            .copied()
            .unwrap_or(Param::Any)
    }

    /// False for functions that see NULL arguments themselves instead of returning NULL.
    pub fn propagates_nulls(&self) -> bool {
        self.propagates_nulls
    }

    /// False for functions whose result changes between calls (`now`, `ago`); the binder only
    /// folds calls of deterministic functions on constants.
    pub fn is_deterministic(&self) -> bool {
        self.deterministic
    }

    /// The borrowed form of a function whose result is a slice of its first argument.
    pub fn text_view(&self) -> Option<TextView> {
        self.text_view
    }

    /// The result type for arguments of these (non-literal, non-NULL) types.
    pub fn return_type(&self, args: &[DataType]) -> Result<DataType, FunctionError> {
        let args: Vec<ArgType> = args.iter().map(|t| ArgType::of(*t)).collect();
        Ok(self.resolve_column(&args)?.data_type)
    }

    /// Checks arity and argument kinds and infers the result type. Functions whose result type
    /// comes from a literal (`jsonExtractScalar(json, path, 'INT')`) need that argument as
    /// [`ArgType::literal`].
    pub fn resolve(&self, args: &[ArgType]) -> Result<DataType, FunctionError> {
        Ok(self.resolve_column(args)?.data_type)
    }

    /// [`FunctionDef::resolve`] with whether the result is one value or an array.
    pub fn resolve_column(&self, args: &[ArgType]) -> Result<ColumnType, FunctionError> {
        self.check_arity(args.len())?;
        for (position, arg) in args.iter().enumerate() {
            if !self.param(position).accepts(arg) {
                return Err(FunctionError::ArgumentType {
                    function: self.name,
                    position: position + 1,
                    column_type: ColumnType {
                        data_type: arg.data_type.unwrap_or(DataType::String),
                        single_value: arg.single_value,
                        map_value: None,
                    },
                });
            }
        }
        match self.returns {
            Returns::Fixed(t) => Ok(ColumnType::sv(t)),
            Returns::FixedArray(t) => Ok(ColumnType::mv(t)),
            Returns::Infer(infer) => infer(args).map(ColumnType::sv),
            Returns::InferColumn(infer) => infer(args),
        }
    }

    /// Evaluates the function on one row's argument values.
    pub fn eval(&self, args: &[Value]) -> Result<Value, FunctionError> {
        self.check_arity(args.len())?;
        if self.propagates_nulls && args.iter().any(Value::is_null) {
            return Ok(Value::Null);
        }
        (self.kernel)(args)
    }

    fn check_arity(&self, n: usize) -> Result<(), FunctionError> {
        if self.arity.accepts(n) {
            Ok(())
        } else {
            Err(FunctionError::Arity {
                function: self.name,
                expected: self.arity.describe(),
                actual: n,
            })
        }
    }
}
