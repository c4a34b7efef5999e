//! Pinot's data sizes (`DataSizeUtils`): `"10G"`, `"200MB"`, `"512"` — a decimal number, an
//! optional binary unit `K M G T P` (powers of 1024) and an optional `B`, case-insensitive; used by
//! storage quotas and stream flush thresholds.

const UNITS: [(char, u64); 5] = [
    ('K', 1 << 10),
    ('M', 1 << 20),
    ('G', 1 << 30),
    ('T', 1 << 40),
    ('P', 1 << 50),
];

/// Pinot's `DataSizeUtils.toBytes`: a decimal number, an optional binary unit `K M G T P`
/// (powers of 1024) and an optional `B`, case-insensitive (`"10G"`, `"1.5gb"`, `"512"`).
pub fn data_size_bytes(text: &str) -> Option<u64> {
    let t = text.trim().to_ascii_uppercase();
    let t = t.strip_suffix('B').unwrap_or(&t);
    let (number, unit) = match t.chars().last() {
        Some(c) if c.is_ascii_alphabetic() => {
            let (_, u) = UNITS.into_iter().find(|(u, _)| *u == c)?;
            (&t[..t.len() - 1], u)
        }
        _ => (t, 1),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let valid = match number.split_once('.') {
        Some((int, frac)) => digits(int) && digits(frac),
        None => digits(number),
    };
    if !valid {
        return None;
    }
    let value: f64 = number.parse().ok()?;
    let bytes = value * unit as f64;
    (bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// Pinot's `DataSizeUtils.fromBytes`: below 1 KiB `"<n>B"`, else the largest unit with at most
/// two decimals (`"1.5G"`, `"10G"`).
pub fn format_data_size(bytes: u64) -> String {
    if bytes < 1024 {
        return format!("{bytes}B");
    }
    let (unit, size) = UNITS
        .into_iter()
        .rev()
        .find(|(_, size)| bytes >= *size)
        .unwrap_or(UNITS[0]);
    let value = bytes as f64 / size as f64;
    let text = format!("{value:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}{unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_and_write_as_pinot() {
        assert_eq!(data_size_bytes("10G"), Some(10 << 30));
        assert_eq!(data_size_bytes("10gb"), Some(10 << 30));
        assert_eq!(data_size_bytes("1.5K"), Some(1536));
        assert_eq!(data_size_bytes("512"), Some(512));
        assert_eq!(data_size_bytes("512B"), Some(512));
        assert_eq!(data_size_bytes("200MB"), Some(200 << 20));
        for bad in ["", "G", "1.G", "-1G", "10X", "ten"] {
            assert_eq!(data_size_bytes(bad), None, "{bad}");
        }
        assert_eq!(format_data_size(512), "512B");
        assert_eq!(format_data_size(1024 << 20), "1G");
        assert_eq!(format_data_size(1536 << 20), "1.5G");
        assert_eq!(format_data_size(10 << 30), "10G");
    }
}
