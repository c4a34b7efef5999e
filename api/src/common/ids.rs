//! Random ids: Pinot names lineage entries and tasks with UUIDs.

/// A random (version 4) UUID, `8-4-4-4-12` hex digits; from the clock when no random source
/// answers.
pub fn uuid_v4() -> String {
    let mut b = [0u8; 16];
    if getrandom::getrandom(&mut b).is_err() {
        b[..8].copy_from_slice(&super::clock::now_ms().to_le_bytes());
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    segments::input::uuid_text(&b)
}

#[cfg(test)]
mod tests {
    #[test]
    fn uuids_are_version_4_and_differ() {
        let a = super::uuid_v4();
        assert_eq!(a.len(), 36);
        assert_eq!(a.as_bytes()[14], b'4');
        assert_ne!(a, super::uuid_v4());
    }
}
