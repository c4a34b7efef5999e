//! The null vector: a serialized roaring bitmap of the docs whose input value was null (they
//! hold the column's default null value in the dictionary and forward index).

use roaring::RoaringBitmap;

/// Serializes the null docs.
pub fn encode(nulls: &RoaringBitmap) -> Vec<u8> {
    let mut b = nulls.clone();
    b.optimize();
    let mut out = Vec::with_capacity(b.serialized_size());
    // Writing into a Vec cannot fail.
    let _ = b.serialize_into(&mut out);
    out
}

/// Parses a null vector, checking every doc is below `total_docs`.
pub fn decode(bytes: &[u8], total_docs: u32) -> Result<RoaringBitmap, String> {
    let b =
        RoaringBitmap::deserialize_from(bytes).map_err(|e| format!("invalid null bitmap: {e}"))?;
    if b.max().is_some_and(|m| m >= total_docs) {
        return Err(format!(
            "null bitmap has doc {:?} beyond {total_docs} docs",
            b.max()
        ));
    }
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_checks_bounds() {
        let b = RoaringBitmap::from_iter([0u32, 7, 100_000]);
        let e = encode(&b);
        assert_eq!(decode(&e, 100_001).unwrap(), b);
        assert!(decode(&e, 100_000).is_err());
        assert!(decode(&e[..e.len() - 1], 100_001).is_err());
    }
}
