//! Delta-packed non-decreasing `u64` sequences: the compact on-disk form of sorted-column doc
//! starts and of integer-valued numeric dictionaries, decoded once when a segment opens.
//!
//! Layout: `u64` first value, then one block per 128 following values: a `u8` width `w`
//! (0..=64) and the block's deltas (`value[i] - value[i - 1]`, each `< 2^w`) packed `w` bits
//! each, least-significant bit first, padded to a whole byte. A run of consecutive integers
//! (deltas of a constant) costs almost nothing once the constant is subtracted by the caller,
//! e.g. strictly increasing keys are stored as `key[i] - i`.

use super::ByteReader;

/// Values per block (each block chooses its own delta width).
const BLOCK: usize = 128;

/// Appends the encoding of `values` to `out`. Panics (a caller bug) if they decrease.
pub fn encode(values: &[u64], out: &mut Vec<u8>) {
    let Some(&first) = values.first() else {
        return;
    };
    out.extend_from_slice(&first.to_le_bytes());
    let deltas: Vec<u64> = values
        .windows(2)
        .map(|p| {
            p[1].checked_sub(p[0])
                .expect("values must be non-decreasing")
        })
        .collect();
    for block in deltas.chunks(BLOCK) {
        let width = block
            .iter()
            .map(|&d| 64 - d.leading_zeros())
            .max()
            .unwrap_or(0);
        out.push(width as u8);
        let mut acc: u128 = 0;
        let mut filled = 0u32;
        for &d in block {
            acc |= (d as u128) << filled;
            filled += width;
            while filled >= 8 {
                out.push(acc as u8);
                acc >>= 8;
                filled -= 8;
            }
        }
        if filled > 0 {
            out.push(acc as u8);
        }
    }
}

/// Decodes `count` values written by [`encode`], rejecting a truncated stream, a width above 64
/// or values that overflow `u64`.
pub fn decode(r: &mut ByteReader<'_>, count: usize) -> Result<Vec<u64>, String> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let mut out = Vec::with_capacity(count);
    let mut value = r.u64()?;
    out.push(value);
    let mut left = count - 1;
    while left > 0 {
        let n = left.min(BLOCK);
        let width = r.u8()? as u32;
        if width > 64 {
            return Err(format!("delta width {width} exceeds 64 bits"));
        }
        let bytes = r.take((n * width as usize).div_ceil(8))?;
        let mask = if width == 64 {
            u64::MAX
        } else {
            (1u64 << width) - 1
        };
        let mut acc: u128 = 0;
        let mut filled = 0u32;
        let mut next = bytes.iter();
        for _ in 0..n {
            while filled < width {
                // `bytes` holds exactly enough bits for `n` deltas.
                acc |= (*next.next().ok_or("delta stream ends early")? as u128) << filled;
                filled += 8;
            }
            let d = acc as u64 & mask;
            acc >>= width;
            filled -= width;
            value = value
                .checked_add(d)
                .ok_or("delta-packed values overflow 64 bits")?;
            out.push(value);
        }
        left -= n;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip(values: &[u64]) -> Vec<u64> {
        let mut out = Vec::new();
        encode(values, &mut out);
        let mut r = ByteReader::new(&out);
        let back = decode(&mut r, values.len()).unwrap();
        assert_eq!(r.remaining(), 0, "every byte is consumed");
        back
    }

    proptest! {
        #[test]
        fn round_trips(mut v in proptest::collection::vec(any::<u64>(), 0..700), small in any::<bool>()) {
            if small {
                v.iter_mut().for_each(|x| *x %= 1000);
            }
            v.sort_unstable();
            prop_assert_eq!(round_trip(&v), v);
        }
    }

    #[test]
    fn extremes_and_runs() {
        assert_eq!(round_trip(&[0, u64::MAX]), vec![0, u64::MAX]);
        let same = vec![7u64; 1000];
        let mut out = Vec::new();
        encode(&same, &mut out);
        assert_eq!(
            out.len(),
            8 + 8,
            "eight blocks of width zero after the first value"
        );
        assert_eq!(round_trip(&same), same);
    }

    #[test]
    fn rejects_corrupt_streams() {
        let mut out = Vec::new();
        encode(&[1, 5, 9, 400], &mut out);
        for n in 0..out.len() {
            assert!(decode(&mut ByteReader::new(&out[..n]), 4).is_err(), "{n}");
        }
        let mut wide = out.clone();
        wide[8] = 65;
        assert!(decode(&mut ByteReader::new(&wide), 4).is_err());
        let mut over = Vec::new();
        encode(&[u64::MAX - 1, u64::MAX], &mut over);
        over[8] = 64;
        over.resize(over.len() + 8, 0xff);
        assert!(decode(&mut ByteReader::new(&over), 2).is_err());
    }
}
