//! SQL text to AST: the nom grammar for Pinot's SQL dialect ([`parse_statement`],
//! [`parse_expr`]), the syntax tree it builds ([`ast`]), parse errors with Calcite-style
//! positions ([`error`]), Pinot v1 result column naming ([`naming`]) and the one traversal of
//! the expression tree ([`tree`]).

pub mod ast;
pub mod error;
pub mod naming;
mod parser;
pub mod tree;

pub use ast::*;
pub use error::ParseError;
pub use parser::{parse_expr, parse_statement};
