//! `CSVMessageDecoder`: a message is one CSV record. Its column names come from the `header`
//! property (split on the delimiter); without one, a message is two lines, the header and the
//! record. As Pinot's CSV extractor reads cells: an empty cell, or one equal to
//! `nullStringValue`, is null; with `multiValueDelimiter`, a cell holding the delimiter is a
//! multi-value cell.

use super::{Props, Record, char_prop};
use crate::stream::StreamError;
use serde_json::Value as Json;

/// A CSV message decoder.
pub struct CsvDecoder {
    header: Option<Vec<String>>,
    delimiter: u8,
    quote: u8,
    escape: Option<u8>,
    comment: Option<u8>,
    multi_value: Option<char>,
    null_text: Option<String>,
}

impl CsvDecoder {
    /// The decoder its properties describe.
    pub fn new(props: &Props<'_>) -> Result<CsvDecoder, StreamError> {
        let delimiter = char_prop(props, "delimiter")?.unwrap_or(b',');
        let header = props.get("header").map(|h| {
            h.split(char::from(delimiter))
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty())
                .collect::<Vec<_>>()
        });
        if header.as_ref().is_some_and(Vec::is_empty) {
            return Err(StreamError::Config(
                "CSVMessageDecoder's 'header' names no column".into(),
            ));
        }
        Ok(CsvDecoder {
            header,
            delimiter,
            quote: char_prop(props, "quoteCharacter")?.unwrap_or(b'"'),
            escape: char_prop(props, "escapeCharacter")?,
            comment: char_prop(props, "commentMarker")?,
            multi_value: char_prop(props, "multiValueDelimiter")?.map(char::from),
            null_text: props.get("nullStringValue").map(|s| s.to_string()),
        })
    }

    /// The record of one message.
    pub fn decode(&self, payload: &[u8]) -> Result<Record, String> {
        let mut reader = ::csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(self.delimiter)
            .quote(self.quote)
            .escape(self.escape)
            .double_quote(self.escape.is_none())
            .comment(self.comment)
            .from_reader(payload);
        let mut records = reader.records();
        let mut next = || match records.next() {
            Some(Ok(r)) => Ok(r),
            Some(Err(e)) => Err(format!("message is not CSV: {e}")),
            None => Err("message holds no CSV record".to_string()),
        };
        let message_header;
        let header: &[String] = match &self.header {
            Some(h) => h,
            None => {
                message_header = next()?.iter().map(str::to_string).collect::<Vec<_>>();
                &message_header
            }
        };
        let cells = next()?;
        Ok(header
            .iter()
            .enumerate()
            .map(|(i, name)| (name.clone(), self.cell(cells.get(i))))
            .collect())
    }

    fn cell(&self, text: Option<&str>) -> Json {
        let Some(text) = text.filter(|t| !t.is_empty()) else {
            return Json::Null;
        };
        if self.null_text.as_deref() == Some(text) {
            return Json::Null;
        }
        if let Some(d) = self.multi_value {
            let items: Vec<&str> = text.split(d).filter(|s| !s.is_empty()).collect();
            if items.len() > 1 {
                return Json::Array(items.into_iter().map(|s| Json::String(s.into())).collect());
            }
        }
        Json::String(text.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoder(props: &[(&str, &str)]) -> CsvDecoder {
        CsvDecoder::new(&props.iter().copied().collect()).unwrap()
    }

    #[test]
    fn reads_one_record_by_the_header() {
        let d = decoder(&[("header", "id,name,tags"), ("multiValueDelimiter", ";")]);
        let r = d.decode(b"7,\"a, b\",x;y").unwrap();
        assert_eq!(r["id"], "7");
        assert_eq!(r["name"], "a, b");
        assert_eq!(r["tags"], serde_json::json!(["x", "y"]));
        let r = d.decode(b"8,,z").unwrap();
        assert_eq!(r["name"], Json::Null);
        assert_eq!(r["tags"], "z");
        // Fewer cells than columns: the rest are null.
        assert_eq!(d.decode(b"9").unwrap()["tags"], Json::Null);
    }

    #[test]
    fn delimiter_null_text_and_a_header_line() {
        let d = decoder(&[("delimiter", "|"), ("nullStringValue", "NA")]);
        let r = d.decode(b"a|b\n1|NA\n").unwrap();
        assert_eq!(r["a"], "1");
        assert_eq!(r["b"], Json::Null);
        assert!(d.decode(b"a|b\n").unwrap_err().contains("no CSV record"));
        assert!(CsvDecoder::new(&[("delimiter", "")].into_iter().collect()).is_err());
        assert!(CsvDecoder::new(&[("header", ",")].into_iter().collect()).is_err());
    }
}
