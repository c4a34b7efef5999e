//! The body of a query hint, `/*+ name(key = 'value', …) [, name(…)]… */`, as Calcite reads it:
//! hint names and keys are identifiers (or quoted), values strings, numbers or identifiers; a
//! hint may have no options (`name` or `name()`).

use super::lexical::{TokenKind, tokenize};
use super::tokens::{Ctx, PResult, Tokens, failure, identifier, punct, token_if};
use crate::sql::ast::Hint;
use nom::Parser;
use nom::combinator::opt;
use nom::multi::separated_list0;

/// The hints of one hint comment's body; a message naming the problem when it does not read.
pub fn parse_hints(body: &str) -> Result<Vec<Hint>, String> {
    let tokens = tokenize(body).map_err(|e| e.to_string())?;
    let ctx = Ctx::default();
    let i = Tokens::new(&tokens, &ctx);
    let (rest, hints) = separated_list0(opt(punct(",")), hint)
        .parse(i)
        .map_err(|_| format!("cannot read the hint '{body}'"))?;
    match rest.peek() {
        Some(t) if t.kind != TokenKind::Eof => {
            Err(format!("cannot read the hint '{body}' at '{}'", t.text))
        }
        _ => Ok(hints),
    }
}

/// hint := name ['(' [option (',' option)*] ')']
fn hint(i: Tokens<'_>) -> PResult<'_, Hint> {
    let (rest, name) = identifier(i)?;
    let Ok((rest, _)) = punct("(")(rest) else {
        return Ok((
            rest,
            Hint {
                name,
                options: Vec::new(),
            },
        ));
    };
    let (rest, options) = separated_list0(punct(","), option).parse(rest)?;
    let Ok((rest, _)) = punct(")")(rest) else {
        return failure(rest, "a hint's options end with ')'");
    };
    Ok((rest, Hint { name, options }))
}

/// option := key '=' value
fn option(i: Tokens<'_>) -> PResult<'_, (String, String)> {
    let (rest, key) = identifier(i)?;
    let (rest, _) = punct("=")(rest)?;
    let (rest, value) = token_if(rest, |t| {
        matches!(
            t.kind,
            TokenKind::String | TokenKind::Number | TokenKind::Word | TokenKind::QuotedIdent
        )
    })?;
    Ok((rest, (key, value.value.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_pinot_hints() {
        let h = parse_hints("joinOptions(join_strategy='lookup'), aggOptions(is_skip_leaf_stage_group_by='true', num_groups_limit=10)").unwrap();
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].name, "joinOptions");
        assert_eq!(
            h[0].options,
            vec![("join_strategy".into(), "lookup".into())]
        );
        assert_eq!(h[1].options[1], ("num_groups_limit".into(), "10".into()));
        assert_eq!(parse_hints("a b()").unwrap().len(), 2);
        assert!(parse_hints("joinOptions(join_strategy=)").is_err());
        assert!(parse_hints("joinOptions(x='y'").is_err());
    }
}
