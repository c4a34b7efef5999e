//! Hash functions, bit for bit as Pinot's `HashFunctions` computes them:
//!
//! * digests as lower-case hex text: `sha` (SHA-1), `sha224` (SHA3-224, as Pinot's
//!   `DigestUtils.sha3_224Hex`), `sha256`, `sha512`, `md2` (`md5` lives in `bytes`);
//! * MurmurHash2: `murmurHash2` (Kafka's 32-bit variant, seed `0x9747b28c`), `murmurHash2UTF8`,
//!   `murmurHash2Bit64` (MurmurHash64A, default seed `0xe17a1465`, or a given seed);
//! * MurmurHash3 as Guava computes it: `murmurHash3Bit32` (x86 32-bit), `murmurHash3Bit64` (the
//!   first 8 bytes, little-endian, of x64 128-bit), `murmurHash3Bit128` (x64 128-bit, both
//!   halves little-endian); the seed is sign-extended to 64 bits as Guava does;
//! * MurmurHash3 as Pinot's own (Infinispan-derived) x64 variant computes it:
//!   `murmurHash3X64Bit32` (the high 32 bits of h1), `murmurHash3X64Bit64` (Pinot returns the
//!   32-bit value widened to a LONG, kept here), `murmurHash3X64Bit128` (h1, h2 big-endian);
//!   its tail bytes are sign-extended, as in Pinot;
//! * CityHash v1.1: `cityHash32` (a LONG holding the signed 32-bit hash), `cityHash64` (with no,
//!   one or two seeds), `cityHash128` (both halves big-endian);
//! * FNV: `fnv1Hash32`, `fnv1aHash32`, `fnv1Hash64`, `fnv1aHash64` over BYTES and their `…UTF8`
//!   variants over text;
//! * checksums as Guava's `HashCode.asInt`: `adler32`, `crc32`, `crc32c`.
//!
//! BYTES arguments also take hex text (Pinot converts STRING to BYTES that way); the `…UTF8`
//! variants hash the text's UTF-8 bytes.

use super::coerce::{bytes, int, int32, text};
use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::sketch::{murmur2_64, murmur3_finish, murmur3_x64_128};
use segments::types::value::encode_hex;
use segments::types::{DataType, Value};
use sha2::Digest;

const S: Returns = Returns::Fixed(DataType::String);
const I: Returns = Returns::Fixed(DataType::Int);
const L: Returns = Returns::Fixed(DataType::Long);
const BY: Returns = Returns::Fixed(DataType::Bytes);
const ONE: Arity = Arity::Exact(1);
const TWO: Arity = Arity::Exact(2);
const B: &[Param] = &[Param::Bytes];
const T: &[Param] = &[Param::Text];
const BN: &[Param] = &[Param::Bytes, Param::Number];

/// The hash functions.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new("sha", ONE, B, S, sha),
    FunctionDef::new("sha224", ONE, B, S, sha224),
    FunctionDef::new("sha256", ONE, B, S, sha256),
    FunctionDef::new("sha512", ONE, B, S, sha512),
    FunctionDef::new("md2", ONE, B, S, md2),
    FunctionDef::new("murmurHash2", ONE, B, I, murmur_hash2),
    FunctionDef::new("murmurHash2UTF8", ONE, T, I, murmur_hash2_utf8),
    FunctionDef::new(
        "murmurHash2Bit64",
        Arity::Range(1, 2),
        BN,
        L,
        murmur_hash2_bit64,
    ),
    FunctionDef::new("murmurHash3Bit32", TWO, BN, I, murmur_hash3_bit32),
    FunctionDef::new("murmurHash3Bit64", TWO, BN, L, murmur_hash3_bit64),
    FunctionDef::new("murmurHash3Bit128", TWO, BN, BY, murmur_hash3_bit128),
    FunctionDef::new("murmurHash3X64Bit32", TWO, BN, I, murmur_hash3_x64_bit32),
    FunctionDef::new("murmurHash3X64Bit64", TWO, BN, L, murmur_hash3_x64_bit64),
    FunctionDef::new("murmurHash3X64Bit128", TWO, BN, BY, murmur_hash3_x64_bit128),
    FunctionDef::new("fnv1Hash32", ONE, B, I, fnv1_hash32),
    FunctionDef::new("fnv1Hash32UTF8", ONE, T, I, fnv1_hash32_utf8),
    FunctionDef::new("fnv1aHash32", ONE, B, I, fnv1a_hash32),
    FunctionDef::new("fnv1aHash32UTF8", ONE, T, I, fnv1a_hash32_utf8),
    FunctionDef::new("fnv1Hash64", ONE, B, L, fnv1_hash64),
    FunctionDef::new("fnv1Hash64UTF8", ONE, T, L, fnv1_hash64_utf8),
    FunctionDef::new("fnv1aHash64", ONE, B, L, fnv1a_hash64),
    FunctionDef::new("fnv1aHash64UTF8", ONE, T, L, fnv1a_hash64_utf8),
    FunctionDef::new("adler32", ONE, B, I, adler32),
    FunctionDef::new("crc32", ONE, B, I, crc32),
    FunctionDef::new("crc32c", ONE, B, I, crc32c),
    FunctionDef::new("cityHash32", ONE, B, L, city_hash32),
    FunctionDef::new(
        "cityHash64",
        Arity::Range(1, 3),
        &[Param::Bytes, Param::Number],
        L,
        city_hash64,
    ),
    FunctionDef::new("cityHash128", ONE, B, BY, city_hash128),
];

// ---- digests ----

fn hex_digest<D: Digest>(function: &'static str, args: &[Value]) -> Result<Value, FunctionError> {
    let input = bytes(function, &args[0])?;
    Ok(Value::String(encode_hex(&D::digest(&input))))
}

fn sha(args: &[Value]) -> Result<Value, FunctionError> {
    hex_digest::<sha1::Sha1>("sha", args)
}

fn sha224(args: &[Value]) -> Result<Value, FunctionError> {
    hex_digest::<sha3::Sha3_224>("sha224", args)
}

fn sha256(args: &[Value]) -> Result<Value, FunctionError> {
    hex_digest::<sha2::Sha256>("sha256", args)
}

fn sha512(args: &[Value]) -> Result<Value, FunctionError> {
    hex_digest::<sha2::Sha512>("sha512", args)
}

fn md2(args: &[Value]) -> Result<Value, FunctionError> {
    hex_digest::<md2::Md2>("md2", args)
}

// ---- argument helpers ----

/// A hash over the BYTES argument.
fn over_bytes(
    function: &'static str,
    args: &[Value],
    hash: impl Fn(&[u8]) -> Value,
) -> Result<Value, FunctionError> {
    Ok(hash(&bytes(function, &args[0])?))
}

/// A hash over the UTF-8 bytes of the text argument.
fn over_text(args: &[Value], hash: impl Fn(&[u8]) -> Value) -> Result<Value, FunctionError> {
    Ok(hash(text(&args[0]).as_bytes()))
}

/// A hash over the BYTES argument with an INT seed.
fn seeded(
    function: &'static str,
    args: &[Value],
    hash: impl Fn(&[u8], i32) -> Value,
) -> Result<Value, FunctionError> {
    let seed = int32(function, &args[1])?;
    Ok(hash(&bytes(function, &args[0])?, seed))
}

// ---- MurmurHash2 ----

fn murmur_hash2(args: &[Value]) -> Result<Value, FunctionError> {
    over_bytes("murmurHash2", args, |b| Value::Int(murmur2_32(b)))
}

fn murmur_hash2_utf8(args: &[Value]) -> Result<Value, FunctionError> {
    over_text(args, |b| Value::Int(murmur2_32(b)))
}

fn murmur_hash2_bit64(args: &[Value]) -> Result<Value, FunctionError> {
    const NAME: &str = "murmurHash2Bit64";
    let seed = match args.get(1) {
        Some(seed) => int32(NAME, seed)? as u32,
        None => 0xe17a_1465,
    };
    over_bytes(NAME, args, |b| Value::Long(murmur2_64(b, seed) as i64))
}

/// MurmurHash2, 32 bits, as Kafka's `Utils.murmur2` (Pinot's `MurmurHashFunctions.murmurHash2`).
fn murmur2_32(data: &[u8]) -> i32 {
    const M: u32 = 0x5bd1_e995;
    let mut h = 0x9747_b28c_u32 ^ data.len() as u32;
    let mut blocks = data.chunks_exact(4);
    for block in &mut blocks {
        let mut k = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> 24;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M) ^ k;
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        for (i, b) in tail.iter().enumerate() {
            h ^= (*b as u32) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

// ---- MurmurHash3 (Guava) ----

fn murmur_hash3_bit32(args: &[Value]) -> Result<Value, FunctionError> {
    seeded("murmurHash3Bit32", args, |b, seed| {
        Value::Int(murmur3_x86_32(b, seed as u32) as i32)
    })
}

fn murmur_hash3_bit64(args: &[Value]) -> Result<Value, FunctionError> {
    seeded("murmurHash3Bit64", args, |b, seed| {
        Value::Long(murmur3_x64_128(b, seed).0 as i64)
    })
}

fn murmur_hash3_bit128(args: &[Value]) -> Result<Value, FunctionError> {
    seeded("murmurHash3Bit128", args, |b, seed| {
        let (h1, h2) = murmur3_x64_128(b, seed);
        let mut out = h1.to_le_bytes().to_vec();
        out.extend_from_slice(&h2.to_le_bytes());
        Value::Bytes(out)
    })
}

fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// MurmurHash3_x86_32 (Guava's `murmur3_32_fixed`).
fn murmur3_x86_32(data: &[u8], seed: u32) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mix = |k: u32| k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    let mut h = seed;
    let mut blocks = data.chunks_exact(4);
    for block in &mut blocks {
        let k = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        h ^= mix(k);
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let k = tail
            .iter()
            .enumerate()
            .fold(0u32, |k, (i, b)| k | (*b as u32) << (8 * i));
        h ^= mix(k);
    }
    fmix32(h ^ data.len() as u32)
}

// ---- MurmurHash3, Pinot's x64 variant ----

fn murmur_hash3_x64_bit32(args: &[Value]) -> Result<Value, FunctionError> {
    seeded("murmurHash3X64Bit32", args, |b, seed| {
        Value::Int((murmur3_x64_pinot(b, seed).0 >> 32) as i32)
    })
}

/// Pinot's `murmurHash3X64Bit64` returns the 32-bit variant widened to a LONG.
fn murmur_hash3_x64_bit64(args: &[Value]) -> Result<Value, FunctionError> {
    seeded("murmurHash3X64Bit64", args, |b, seed| {
        Value::Long((murmur3_x64_pinot(b, seed).0 >> 32) as i32 as i64)
    })
}

fn murmur_hash3_x64_bit128(args: &[Value]) -> Result<Value, FunctionError> {
    seeded("murmurHash3X64Bit128", args, |b, seed| {
        let (h1, h2) = murmur3_x64_pinot(b, seed);
        let mut out = h1.to_be_bytes().to_vec();
        out.extend_from_slice(&h2.to_be_bytes());
        Value::Bytes(out)
    })
}

/// The evolving state of Pinot's (Infinispan's) x64 MurmurHash3.
struct Murmur3X64 {
    h1: u64,
    h2: u64,
    c1: u64,
    c2: u64,
}

impl Murmur3X64 {
    fn mix(&mut self, k1: u64, k2: u64) {
        let k1 = k1
            .wrapping_mul(self.c1)
            .rotate_left(23)
            .wrapping_mul(self.c2);
        self.h1 = (self.h1 ^ k1).wrapping_add(self.h2);
        self.h2 = self.h2.rotate_left(41);
        let k2 = k2
            .wrapping_mul(self.c2)
            .rotate_left(23)
            .wrapping_mul(self.c1);
        self.h2 = (self.h2 ^ k2).wrapping_add(self.h1);
        self.h1 = self.h1.wrapping_mul(3).wrapping_add(0x52dc_e729);
        self.h2 = self.h2.wrapping_mul(3).wrapping_add(0x3849_5ab5);
        self.c1 = self.c1.wrapping_mul(5).wrapping_add(0x7b7d_159c);
        self.c2 = self.c2.wrapping_mul(5).wrapping_add(0x6bce_6396);
    }
}

/// Pinot's `MurmurHashFunctions.murmurHash3X64` (h1, h2): the seed is sign-extended and the tail
/// bytes are read as signed bytes (sign-extended before they are shifted into place).
fn murmur3_x64_pinot(key: &[u8], seed: i32) -> (u64, u64) {
    let seed = seed as i64 as u64;
    let mut state = Murmur3X64 {
        h1: 0x9368_e53c_2f6a_f274 ^ seed,
        h2: 0x586d_cd20_8f7c_d3fd ^ seed,
        c1: 0x87c3_7b91_1142_53d5,
        c2: 0x4cf5_ad43_2745_937f,
    };
    let mut blocks = key.chunks_exact(16);
    for block in &mut blocks {
        let (lo, hi) = block.split_at(8);
        state.mix(
            u64::from_le_bytes(lo.try_into().unwrap_or([0; 8])),
            u64::from_le_bytes(hi.try_into().unwrap_or([0; 8])),
        );
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let signed = |i: usize| tail[i] as i8 as i64 as u64;
        let (mut k1, mut k2) = (0u64, 0u64);
        for i in 0..tail.len() {
            if i < 8 {
                k1 ^= signed(i) << (8 * i);
            } else {
                k2 ^= signed(i) << (8 * (i - 8));
            }
        }
        state.mix(k1, k2);
    }
    murmur3_finish(state.h1, state.h2 ^ key.len() as u64)
}

// ---- FNV ----

const FNV32_OFFSET: u32 = 0x811c_9dc5;
const FNV32_PRIME: u32 = 0x0100_0193;
const FNV64_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV64_PRIME: u64 = 0x0100_0000_01b3;

fn fnv1_32(data: &[u8]) -> Value {
    let h = data
        .iter()
        .fold(FNV32_OFFSET, |h, b| h.wrapping_mul(FNV32_PRIME) ^ *b as u32);
    Value::Int(h as i32)
}

fn fnv1a_32(data: &[u8]) -> Value {
    let h = data.iter().fold(FNV32_OFFSET, |h, b| {
        (h ^ *b as u32).wrapping_mul(FNV32_PRIME)
    });
    Value::Int(h as i32)
}

fn fnv1_64(data: &[u8]) -> Value {
    let h = data
        .iter()
        .fold(FNV64_OFFSET, |h, b| h.wrapping_mul(FNV64_PRIME) ^ *b as u64);
    Value::Long(h as i64)
}

fn fnv1a_64(data: &[u8]) -> Value {
    let h = data.iter().fold(FNV64_OFFSET, |h, b| {
        (h ^ *b as u64).wrapping_mul(FNV64_PRIME)
    });
    Value::Long(h as i64)
}

fn fnv1_hash32(args: &[Value]) -> Result<Value, FunctionError> {
    over_bytes("fnv1Hash32", args, fnv1_32)
}

fn fnv1_hash32_utf8(args: &[Value]) -> Result<Value, FunctionError> {
    over_text(args, fnv1_32)
}

fn fnv1a_hash32(args: &[Value]) -> Result<Value, FunctionError> {
    over_bytes("fnv1aHash32", args, fnv1a_32)
}

fn fnv1a_hash32_utf8(args: &[Value]) -> Result<Value, FunctionError> {
    over_text(args, fnv1a_32)
}

fn fnv1_hash64(args: &[Value]) -> Result<Value, FunctionError> {
    over_bytes("fnv1Hash64", args, fnv1_64)
}

fn fnv1_hash64_utf8(args: &[Value]) -> Result<Value, FunctionError> {
    over_text(args, fnv1_64)
}

fn fnv1a_hash64(args: &[Value]) -> Result<Value, FunctionError> {
    over_bytes("fnv1aHash64", args, fnv1a_64)
}

fn fnv1a_hash64_utf8(args: &[Value]) -> Result<Value, FunctionError> {
    over_text(args, fnv1a_64)
}

// ---- checksums ----

fn adler32(args: &[Value]) -> Result<Value, FunctionError> {
    const MOD: u32 = 65_521;
    over_bytes("adler32", args, |data| {
        let (mut a, mut b) = (1u32, 0u32);
        // 5552 bytes is the most that can be summed before the 32-bit sums may overflow.
        for chunk in data.chunks(5552) {
            for byte in chunk {
                a += *byte as u32;
                b += a;
            }
            a %= MOD;
            b %= MOD;
        }
        Value::Int((b << 16 | a) as i32)
    })
}

fn crc32(args: &[Value]) -> Result<Value, FunctionError> {
    over_bytes("crc32", args, |b| Value::Int(crc32fast::hash(b) as i32))
}

fn crc32c(args: &[Value]) -> Result<Value, FunctionError> {
    over_bytes("crc32c", args, |b| Value::Int(crc32c::crc32c(b) as i32))
}

// ---- CityHash v1.1 ----

fn city_hash32(args: &[Value]) -> Result<Value, FunctionError> {
    over_bytes("cityHash32", args, |b| {
        Value::Long(city::hash32(b) as i32 as i64)
    })
}

fn city_hash64(args: &[Value]) -> Result<Value, FunctionError> {
    const NAME: &str = "cityHash64";
    let input = bytes(NAME, &args[0])?;
    let hash = match args {
        [_] => city::hash64(&input),
        [_, seed] => city::hash64_with_seeds(&input, city::K2, int(NAME, seed)? as u64),
        [_, seed0, seed1, ..] => {
            city::hash64_with_seeds(&input, int(NAME, seed0)? as u64, int(NAME, seed1)? as u64)
        }
        [] => return Err(FunctionError::invalid(NAME, "", "missing argument")),
    };
    Ok(Value::Long(hash as i64))
}

fn city_hash128(args: &[Value]) -> Result<Value, FunctionError> {
    over_bytes("cityHash128", args, |b| {
        let (lo, hi) = city::hash128(b);
        let mut out = lo.to_be_bytes().to_vec();
        out.extend_from_slice(&hi.to_be_bytes());
        Value::Bytes(out)
    })
}

/// Google's CityHash v1.1 (the version Pinot's `CityHashFunctions` follows). Offsets index the
/// whole input; every read stays inside it (the algorithm only reads behind its cursor).
mod city {
    const K0: u64 = 0xc3a5_c85c_97cb_3127;
    const K1: u64 = 0xb492_b66f_be98_f273;
    pub(super) const K2: u64 = 0x9ae1_6a3b_2f90_404f;
    const K_MUL: u64 = 0x9ddf_ea08_eb38_2d69;
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;

    fn fetch64(s: &[u8], at: usize) -> u64 {
        let mut b = [0u8; 8];
        b.copy_from_slice(&s[at..at + 8]);
        u64::from_le_bytes(b)
    }

    fn fetch32(s: &[u8], at: usize) -> u32 {
        let mut b = [0u8; 4];
        b.copy_from_slice(&s[at..at + 4]);
        u32::from_le_bytes(b)
    }

    fn shift_mix(v: u64) -> u64 {
        v ^ (v >> 47)
    }

    fn hash_len16_mul(u: u64, v: u64, mul: u64) -> u64 {
        let mut a = (u ^ v).wrapping_mul(mul);
        a ^= a >> 47;
        let mut b = (v ^ a).wrapping_mul(mul);
        b ^= b >> 47;
        b.wrapping_mul(mul)
    }

    fn hash_len16(u: u64, v: u64) -> u64 {
        hash_len16_mul(u, v, K_MUL)
    }

    fn fmix(h: u32) -> u32 {
        super::fmix32(h)
    }

    fn mur(a: u32, h: u32) -> u32 {
        let a = a.wrapping_mul(C1).rotate_right(17).wrapping_mul(C2);
        (h ^ a)
            .rotate_right(19)
            .wrapping_mul(5)
            .wrapping_add(0xe654_6b64)
    }

    fn hash32_len0to4(s: &[u8]) -> u32 {
        let (mut b, mut c) = (0u32, 9u32);
        for byte in s {
            // Bytes are signed chars here, as in the reference implementation.
            b = b.wrapping_mul(C1).wrapping_add(*byte as i8 as i32 as u32);
            c ^= b;
        }
        fmix(mur(b, mur(s.len() as u32, c)))
    }

    fn hash32_len5to12(s: &[u8]) -> u32 {
        let len = s.len();
        let mut a = len as u32;
        let mut b = a.wrapping_mul(5);
        let mut c = 9u32;
        let d = b;
        a = a.wrapping_add(fetch32(s, 0));
        b = b.wrapping_add(fetch32(s, len - 4));
        c = c.wrapping_add(fetch32(s, (len >> 1) & 4));
        fmix(mur(c, mur(b, mur(a, d))))
    }

    fn hash32_len13to24(s: &[u8]) -> u32 {
        let len = s.len();
        let a = fetch32(s, (len >> 1) - 4);
        let b = fetch32(s, 4);
        let c = fetch32(s, len - 8);
        let d = fetch32(s, len >> 1);
        let e = fetch32(s, 0);
        let f = fetch32(s, len - 4);
        let h = len as u32;
        fmix(mur(f, mur(e, mur(d, mur(c, mur(b, mur(a, h)))))))
    }

    pub(super) fn hash32(s: &[u8]) -> u32 {
        let len = s.len();
        if len <= 4 {
            return hash32_len0to4(s);
        } else if len <= 12 {
            return hash32_len5to12(s);
        } else if len <= 24 {
            return hash32_len13to24(s);
        }
        let step = |x: u32| x.rotate_right(19).wrapping_mul(5).wrapping_add(0xe654_6b64);
        let scramble = |x: u32| x.wrapping_mul(C1).rotate_right(17).wrapping_mul(C2);
        let mut h = len as u32;
        let mut g = C1.wrapping_mul(h);
        let mut f = g;
        let a0 = scramble(fetch32(s, len - 4));
        let a1 = scramble(fetch32(s, len - 8));
        let a2 = scramble(fetch32(s, len - 16));
        let a3 = scramble(fetch32(s, len - 12));
        let a4 = scramble(fetch32(s, len - 20));
        h = step(h ^ a0);
        h = step(h ^ a2);
        g = step(g ^ a1);
        g = step(g ^ a3);
        f = step(f.wrapping_add(a4));
        let mut pos = 0;
        for _ in 0..(len - 1) / 20 {
            let a0 = scramble(fetch32(s, pos));
            let a1 = fetch32(s, pos + 4);
            let a2 = scramble(fetch32(s, pos + 8));
            let a3 = scramble(fetch32(s, pos + 12));
            let a4 = fetch32(s, pos + 16);
            h ^= a0;
            h = h.rotate_right(18).wrapping_mul(5).wrapping_add(0xe654_6b64);
            f = f.wrapping_add(a1).rotate_right(19).wrapping_mul(C1);
            g = g.wrapping_add(a2);
            g = g.rotate_right(18).wrapping_mul(5).wrapping_add(0xe654_6b64);
            h = step(h ^ a3.wrapping_add(a1));
            g = (g ^ a4).swap_bytes().wrapping_mul(5);
            h = h.wrapping_add(a4.wrapping_mul(5)).swap_bytes();
            f = f.wrapping_add(a0);
            // PERMUTE3(f, h, g): f takes g, h takes f, g takes h.
            (f, h, g) = (g, f, h);
            pos += 20;
        }
        g = g.rotate_right(11).wrapping_mul(C1);
        g = g.rotate_right(17).wrapping_mul(C1);
        f = f.rotate_right(11).wrapping_mul(C1);
        f = f.rotate_right(17).wrapping_mul(C1);
        h = step(h.wrapping_add(g));
        h = h.rotate_right(17).wrapping_mul(C1);
        h = step(h.wrapping_add(f));
        h.rotate_right(17).wrapping_mul(C1)
    }

    fn hash_len0to16(s: &[u8], pos: usize, len: usize) -> u64 {
        if len >= 8 {
            let mul = K2.wrapping_add(len as u64 * 2);
            let a = fetch64(s, pos).wrapping_add(K2);
            let b = fetch64(s, pos + len - 8);
            let c = b.rotate_right(37).wrapping_mul(mul).wrapping_add(a);
            let d = a.rotate_right(25).wrapping_add(b).wrapping_mul(mul);
            return hash_len16_mul(c, d, mul);
        }
        if len >= 4 {
            let mul = K2.wrapping_add(len as u64 * 2);
            let a = fetch32(s, pos) as u64;
            return hash_len16_mul((a << 3) + len as u64, fetch32(s, pos + len - 4) as u64, mul);
        }
        if len > 0 {
            let a = s[pos] as u64;
            let b = s[pos + (len >> 1)] as u64;
            let c = s[pos + len - 1] as u64;
            let y = a + (b << 8);
            let z = len as u64 + (c << 2);
            return shift_mix(y.wrapping_mul(K2) ^ z.wrapping_mul(K0)).wrapping_mul(K2);
        }
        K2
    }

    fn hash_len17to32(s: &[u8]) -> u64 {
        let len = s.len();
        let mul = K2.wrapping_add(len as u64 * 2);
        let a = fetch64(s, 0).wrapping_mul(K1);
        let b = fetch64(s, 8);
        let c = fetch64(s, len - 8).wrapping_mul(mul);
        let d = fetch64(s, len - 16).wrapping_mul(K2);
        hash_len16_mul(
            a.wrapping_add(b)
                .rotate_right(43)
                .wrapping_add(c.rotate_right(30))
                .wrapping_add(d),
            a.wrapping_add(b.wrapping_add(K2).rotate_right(18))
                .wrapping_add(c),
            mul,
        )
    }

    fn hash_len33to64(s: &[u8]) -> u64 {
        let len = s.len();
        let mul = K2.wrapping_add(len as u64 * 2);
        let a = fetch64(s, 0).wrapping_mul(K2);
        let b = fetch64(s, 8);
        let c = fetch64(s, len - 24);
        let d = fetch64(s, len - 32);
        let e = fetch64(s, 16).wrapping_mul(K2);
        let f = fetch64(s, 24).wrapping_mul(9);
        let g = fetch64(s, len - 8);
        let h = fetch64(s, len - 16).wrapping_mul(mul);
        let u = a
            .wrapping_add(g)
            .rotate_right(43)
            .wrapping_add(b.rotate_right(30).wrapping_add(c).wrapping_mul(9));
        let v = (a.wrapping_add(g) ^ d).wrapping_add(f).wrapping_add(1);
        let w = u
            .wrapping_add(v)
            .wrapping_mul(mul)
            .swap_bytes()
            .wrapping_add(h);
        let x = e.wrapping_add(f).rotate_right(42).wrapping_add(c);
        let y = v
            .wrapping_add(w)
            .wrapping_mul(mul)
            .swap_bytes()
            .wrapping_add(g)
            .wrapping_mul(mul);
        let z = e.wrapping_add(f).wrapping_add(c);
        let a = x
            .wrapping_add(z)
            .wrapping_mul(mul)
            .wrapping_add(y)
            .swap_bytes()
            .wrapping_add(b);
        let b = shift_mix(
            z.wrapping_add(a)
                .wrapping_mul(mul)
                .wrapping_add(d)
                .wrapping_add(h),
        )
        .wrapping_mul(mul);
        b.wrapping_add(x)
    }

    fn weak_hash_len32_with_seeds(s: &[u8], pos: usize, a: u64, b: u64) -> (u64, u64) {
        let w = fetch64(s, pos);
        let x = fetch64(s, pos + 8);
        let y = fetch64(s, pos + 16);
        let z = fetch64(s, pos + 24);
        let mut a = a.wrapping_add(w);
        let mut b = b.wrapping_add(a).wrapping_add(z).rotate_right(21);
        let c = a;
        a = a.wrapping_add(x).wrapping_add(y);
        b = b.wrapping_add(a.rotate_right(44));
        (a.wrapping_add(z), b.wrapping_add(c))
    }

    /// The 64-byte round shared by the 64- and 128-bit hashes over long inputs.
    struct Round {
        x: u64,
        y: u64,
        z: u64,
        v: (u64, u64),
        w: (u64, u64),
    }

    impl Round {
        fn step(&mut self, s: &[u8], pos: usize) {
            let Round { x, y, z, v, w } = self;
            *x = x
                .wrapping_add(*y)
                .wrapping_add(v.0)
                .wrapping_add(fetch64(s, pos + 8))
                .rotate_right(37)
                .wrapping_mul(K1);
            *y = y
                .wrapping_add(v.1)
                .wrapping_add(fetch64(s, pos + 48))
                .rotate_right(42)
                .wrapping_mul(K1);
            *x ^= w.1;
            *y = y.wrapping_add(v.0).wrapping_add(fetch64(s, pos + 40));
            *z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(K1);
            *v = weak_hash_len32_with_seeds(s, pos, v.1.wrapping_mul(K1), x.wrapping_add(w.0));
            *w = weak_hash_len32_with_seeds(
                s,
                pos + 32,
                z.wrapping_add(w.1),
                y.wrapping_add(fetch64(s, pos + 16)),
            );
            std::mem::swap(z, x);
        }
    }

    pub(super) fn hash64(s: &[u8]) -> u64 {
        let len = s.len();
        if len <= 16 {
            return hash_len0to16(s, 0, len);
        } else if len <= 32 {
            return hash_len17to32(s);
        } else if len <= 64 {
            return hash_len33to64(s);
        }
        let x = fetch64(s, len - 40);
        let y = fetch64(s, len - 16).wrapping_add(fetch64(s, len - 56));
        let z = hash_len16(
            fetch64(s, len - 48).wrapping_add(len as u64),
            fetch64(s, len - 24),
        );
        let v = weak_hash_len32_with_seeds(s, len - 64, len as u64, z);
        let w = weak_hash_len32_with_seeds(s, len - 32, y.wrapping_add(K1), x);
        let x = x.wrapping_mul(K1).wrapping_add(fetch64(s, 0));
        let mut round = Round { x, y, z, v, w };
        for pos in (0..((len - 1) & !63)).step_by(64) {
            round.step(s, pos);
        }
        let Round { x, y, z, v, w } = round;
        hash_len16(
            hash_len16(v.0, w.0)
                .wrapping_add(shift_mix(y).wrapping_mul(K1))
                .wrapping_add(z),
            hash_len16(v.1, w.1).wrapping_add(x),
        )
    }

    pub(super) fn hash64_with_seeds(s: &[u8], seed0: u64, seed1: u64) -> u64 {
        hash_len16(hash64(s).wrapping_sub(seed0), seed1)
    }

    fn city_murmur(s: &[u8], mut pos: usize, mut len: usize, seed0: u64, seed1: u64) -> (u64, u64) {
        let mut a = seed0;
        let mut b = seed1;
        let mut c;
        let mut d;
        if len <= 16 {
            a = shift_mix(a.wrapping_mul(K1)).wrapping_mul(K1);
            c = b.wrapping_mul(K1).wrapping_add(hash_len0to16(s, pos, len));
            d = shift_mix(a.wrapping_add(if len >= 8 { fetch64(s, pos) } else { c }));
        } else {
            c = hash_len16(fetch64(s, pos + len - 8).wrapping_add(K1), a);
            d = hash_len16(
                b.wrapping_add(len as u64),
                c.wrapping_add(fetch64(s, pos + len - 16)),
            );
            a = a.wrapping_add(d);
            loop {
                a ^= shift_mix(fetch64(s, pos).wrapping_mul(K1)).wrapping_mul(K1);
                a = a.wrapping_mul(K1);
                b ^= a;
                c ^= shift_mix(fetch64(s, pos + 8).wrapping_mul(K1)).wrapping_mul(K1);
                c = c.wrapping_mul(K1);
                d ^= c;
                pos += 16;
                len -= 16;
                if len <= 16 {
                    break;
                }
            }
        }
        let a = hash_len16(a, c);
        let b = hash_len16(d, b);
        (a ^ b, hash_len16(b, a))
    }

    fn hash128_with_seed(
        s: &[u8],
        mut pos: usize,
        mut len: usize,
        seed0: u64,
        seed1: u64,
    ) -> (u64, u64) {
        if len < 128 {
            return city_murmur(s, pos, len, seed0, seed1);
        }
        let y = seed1;
        let z = K1.wrapping_mul(len as u64);
        let v0 = (y ^ K1)
            .rotate_right(49)
            .wrapping_mul(K1)
            .wrapping_add(fetch64(s, pos));
        let v1 = v0
            .rotate_right(42)
            .wrapping_mul(K1)
            .wrapping_add(fetch64(s, pos + 8));
        let w0 = y
            .wrapping_add(z)
            .rotate_right(35)
            .wrapping_mul(K1)
            .wrapping_add(seed0);
        let w1 = seed0
            .wrapping_add(fetch64(s, pos + 88))
            .rotate_right(53)
            .wrapping_mul(K1);
        let mut r = Round {
            x: seed0,
            y,
            z,
            v: (v0, v1),
            w: (w0, w1),
        };
        while len >= 128 {
            r.step(s, pos);
            r.step(s, pos + 64);
            pos += 128;
            len -= 128;
        }
        let Round {
            mut x,
            mut y,
            mut z,
            mut v,
            mut w,
        } = r;
        x = x.wrapping_add(v.0.wrapping_add(z).rotate_right(49).wrapping_mul(K0));
        y = y.wrapping_mul(K0).wrapping_add(w.1.rotate_right(37));
        z = z.wrapping_mul(K0).wrapping_add(w.0.rotate_right(27));
        w.0 = w.0.wrapping_mul(9);
        v.0 = v.0.wrapping_mul(K0);
        let mut tail_done = 0;
        while tail_done < len {
            tail_done += 32;
            // Reads behind `pos` are inside the input: at least 128 bytes were consumed.
            let at = pos + len - tail_done;
            y = x
                .wrapping_add(y)
                .rotate_right(42)
                .wrapping_mul(K0)
                .wrapping_add(v.1);
            w.0 = w.0.wrapping_add(fetch64(s, at + 16));
            x = x.wrapping_mul(K0).wrapping_add(w.0);
            z = z.wrapping_add(w.1).wrapping_add(fetch64(s, at));
            w.1 = w.1.wrapping_add(v.0);
            v = weak_hash_len32_with_seeds(s, at, v.0.wrapping_add(z), v.1);
            v.0 = v.0.wrapping_mul(K0);
        }
        let x = hash_len16(x, v.0);
        let y = hash_len16(y.wrapping_add(z), w.0);
        (
            hash_len16(x.wrapping_add(v.1), w.1).wrapping_add(y),
            hash_len16(x.wrapping_add(w.1), y.wrapping_add(v.1)),
        )
    }

    pub(super) fn hash128(s: &[u8]) -> (u64, u64) {
        let len = s.len();
        if len >= 16 {
            hash128_with_seed(
                s,
                16,
                len - 16,
                fetch64(s, 0),
                fetch64(s, 8).wrapping_add(K0),
            )
        } else {
            hash128_with_seed(s, 0, len, K0, K1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    fn call(name: &str, args: &[Value]) -> Result<Value, FunctionError> {
        lookup(name).unwrap().eval(args)
    }

    fn b(text: &str) -> Value {
        Value::Bytes(text.as_bytes().to_vec())
    }

    fn s(text: &str) -> Value {
        Value::String(text.into())
    }

    /// Java's signed bytes as Rust bytes.
    fn java_bytes(signed: &[i8]) -> Value {
        Value::Bytes(signed.iter().map(|b| *b as u8).collect())
    }

    const INPUT_LEN_3: &str = "abc";
    const INPUT_LEN_7: &str = "abcdefg";
    const INPUT_LEN_13: &str = "abcefghijklmn";
    const INPUT_LEN_19: &str = "abcdefghijklmnopqrs";
    const INPUT_LEN_26: &str = "abcdefghijklmnopqrstuvwxyz";
    const INPUT_LEN_39: &str = "abcdefghijklmnopqrstuvwxyzabcefghijklmn";

    fn alphabet(times: usize) -> String {
        "abcdefghijklmnopqrstuvwxyz".repeat(times)
    }

    #[test]
    fn digests_match_pinot() {
        let input = b("testString");
        for (name, hex) in [
            ("sha", "956265657d0b637ef65b9b59f9f858eecf55ed6a"),
            (
                "sha224",
                "bb54d1095764bff72b570dcdc3172ed6d1b26695494528a0059c95ae",
            ),
            (
                "sha256",
                "4acf0b39d9c4766709a3689f553ac01ab550545ffa4544dfc0b2cea82fba02a3",
            ),
            (
                "sha512",
                "c48af5a7f6d4a851fc8a434eed638ab1a6ef68e19dbcae894ac67c9fbc5bcb01\
                 82b8e7123b3df3c9e4dcb7690c23103f03dc17f54352071ceb2a4eb204b26b91",
            ),
            ("md2", "466c453913ba0d8325f96b2d47984fb5"),
            ("md5", "536788f4dbdffeecfbb8f350a941eea3"),
        ] {
            assert_eq!(
                call(name, std::slice::from_ref(&input)).unwrap(),
                s(hex),
                "{name}"
            );
        }
        // Text arguments are hex-encoded bytes, as Pinot converts STRING to BYTES.
        assert_eq!(
            call("SHA256", &[s("")]).unwrap(),
            s("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        );
        assert_eq!(call("sha", &[Value::Null]).unwrap(), Value::Null);
        assert!(call("sha512", &[s("xyz")]).is_err());
    }

    #[test]
    fn murmur2_matches_pinot() {
        assert_eq!(
            call("murmurHash2", &[b("testString")]).unwrap(),
            Value::Int(-534_425_817)
        );
        assert_eq!(
            call("murmur_hash2_utf8", &[s("testString")]).unwrap(),
            Value::Int(-534_425_817)
        );
        assert_eq!(
            call("murmurHash2Bit64", &[b("testString")]).unwrap(),
            Value::Long(3_907_736_674_355_139_845)
        );
        assert_eq!(
            call("murmurHash2Bit64", &[b("testString"), Value::Int(12345)]).unwrap(),
            Value::Long(-2_138_976_126_980_760_436)
        );
        // Kafka's murmur2 reference values (its partitioner tests).
        assert_eq!(murmur2_32(b"21"), -973_932_308);
        assert_eq!(murmur2_32(b"foobar"), -790_332_482);
        assert_eq!(murmur2_32(b"abc"), 479_470_107);
        assert!(call("murmurHash2Bit64", &[b("x"), s("seed")]).is_err());
        assert_eq!(
            call("murmurHash2Bit64", &[b("x"), Value::Null]).unwrap(),
            Value::Null
        );
    }

    #[test]
    fn murmur3_matches_guava_and_pinot() {
        let input = b("testString");
        let zero = Value::Int(0);
        let args = [input, zero];
        assert_eq!(
            call("murmurHash3Bit32", &args).unwrap(),
            Value::Int(-1_435_605_585)
        );
        assert_eq!(
            call("murmurHash3Bit64", &args).unwrap(),
            Value::Long(-3_652_179_990_542_706_350)
        );
        assert_eq!(
            call("murmurHash3Bit128", &args).unwrap(),
            java_bytes(&[
                82, -103, -23, 15, -90, -39, 80, -51, 15, 73, -81, -28, 111, -21, -78, 108
            ])
        );
        assert_eq!(
            call("murmurHash3X64Bit32", &args).unwrap(),
            Value::Int(-1_096_986_291)
        );
        assert_eq!(
            call("murmurHash3X64Bit64", &args).unwrap(),
            Value::Long(-1_096_986_291)
        );
        assert_eq!(
            call("murmurHash3X64Bit128", &args).unwrap(),
            java_bytes(&[
                -66, -99, 81, 77, -7, 29, 124, 76, 42, 38, -34, -42, -92, -83, 83, 13
            ])
        );
        // Reference MurmurHash3_x86_32 vectors (SMHasher's verification set).
        assert_eq!(murmur3_x86_32(b"", 0), 0);
        assert_eq!(murmur3_x86_32(b"", 1), 0x514e_28b7);
        assert_eq!(murmur3_x86_32(b"", 0xffff_ffff), 0x81f1_6f39);
        assert_eq!(murmur3_x86_32(&[0x21, 0x43, 0x65, 0x87], 0), 0xf55b_516b);
        assert_eq!(murmur3_x86_32(&[0x21, 0x43, 0x65], 0), 0x7e4a_8634);
        assert_eq!(murmur3_x86_32(b"Hello, world!", 1234), 0xfaf6_cdb3);
        assert!(call("murmurHash3Bit32", &[b("a"), Value::Long(1 << 40)]).is_err());
    }

    #[test]
    fn fnv_matches_pinot() {
        for (text, f1_32, f1a_32, f1_64, f1a_64) in [
            (
                "",
                0x811c_9dc5_u32,
                0x811c_9dc5_u32,
                0xcbf2_9ce4_8422_2325_u64,
                0xcbf2_9ce4_8422_2325_u64,
            ),
            (
                "a",
                0x050c_5d7e,
                0xe40c_292c,
                0xaf63_bd4c_8601_b7be,
                0xaf63_dc4c_8601_ec8c,
            ),
            (
                "ab",
                0x7077_2d38,
                0x4d25_05ca,
                0x0832_6707_b4eb_37b8,
                0x089c_4407_b545_986a,
            ),
            (
                "abc",
                0x439c_2f4b,
                0x1a47_e90b,
                0xd8dc_ca18_6baf_adcb,
                0xe71f_a219_0541_574b,
            ),
        ] {
            assert_eq!(
                call("fnv1Hash32", &[b(text)]).unwrap(),
                Value::Int(f1_32 as i32)
            );
            assert_eq!(
                call("fnv1aHash32", &[b(text)]).unwrap(),
                Value::Int(f1a_32 as i32)
            );
            assert_eq!(
                call("fnv1Hash64", &[b(text)]).unwrap(),
                Value::Long(f1_64 as i64)
            );
            assert_eq!(
                call("fnv1aHash64", &[b(text)]).unwrap(),
                Value::Long(f1a_64 as i64)
            );
            assert_eq!(
                call("fnv1Hash32UTF8", &[s(text)]).unwrap(),
                Value::Int(f1_32 as i32)
            );
            assert_eq!(
                call("fnv1aHash32UTF8", &[s(text)]).unwrap(),
                Value::Int(f1a_32 as i32)
            );
            assert_eq!(
                call("fnv1Hash64UTF8", &[s(text)]).unwrap(),
                Value::Long(f1_64 as i64)
            );
            assert_eq!(
                call("fnv1aHash64UTF8", &[s(text)]).unwrap(),
                Value::Long(f1a_64 as i64)
            );
        }
        // The UTF8 variants hash the UTF-8 bytes of text; the BYTES ones read text as hex.
        let utf8 = "Piñot-哈希";
        assert_eq!(
            call("fnv1aHash64UTF8", &[s(utf8)]).unwrap(),
            call("fnv1aHash64", &[b(utf8)]).unwrap()
        );
        assert_eq!(
            call("fnv1Hash32", &[s("616263")]).unwrap(),
            Value::Int(0x439c_2f4b)
        );
        assert!(call("fnv1Hash32", &[s("abc")]).is_err());
    }

    #[test]
    fn checksums_match_pinot() {
        let input = b("testString");
        assert_eq!(
            call("adler32", std::slice::from_ref(&input)).unwrap(),
            Value::Int(392_102_968)
        );
        assert_eq!(
            call("crc32", std::slice::from_ref(&input)).unwrap(),
            Value::Int(418_708_744)
        );
        assert_eq!(
            call("crc32c", &[input]).unwrap(),
            Value::Int(-1_608_760_557)
        );
        // Adler-32 of a long input (sums reduced in chunks): Wikipedia's "Wikipedia" and zeros.
        assert_eq!(
            call("adler32", &[b("Wikipedia")]).unwrap(),
            Value::Int(0x11e6_0398)
        );
        assert_eq!(
            call("adler32", &[Value::Bytes(vec![0xff; 100_000])]).unwrap(),
            Value::Int(adler_naive(&[0xff; 100_000]) as i32)
        );
        assert!(call("crc32", &[s("zz")]).is_err());
    }

    fn adler_naive(data: &[u8]) -> u32 {
        let (mut a, mut b) = (1u64, 0u64);
        for byte in data {
            a = (a + *byte as u64) % 65_521;
            b = (b + a) % 65_521;
        }
        (b << 16 | a) as u32
    }

    #[test]
    fn city_hash_matches_pinot() {
        for (input, expected) in [
            (INPUT_LEN_3, 795_041_479),
            (INPUT_LEN_7, 568_243_927),
            (INPUT_LEN_13, -1_658_103_047),
            (INPUT_LEN_26, -1_442_658_879),
        ] {
            assert_eq!(
                call("cityHash32", &[b(input)]).unwrap(),
                Value::Long(expected),
                "{input}"
            );
        }
        let len_78 = alphabet(3);
        for (input, expected) in [
            (INPUT_LEN_3, 2_640_714_258_260_161_385),
            (INPUT_LEN_7, 4_341_691_227_789_030_229),
            (INPUT_LEN_13, 2_219_442_073_233_419_101),
            (INPUT_LEN_19, -7_582_989_256_905_268_791),
            (INPUT_LEN_39, 2_649_092_397_580_160_289),
            (&len_78, 4_095_282_343_956_748_170),
        ] {
            assert_eq!(
                call("cityHash64", &[b(input)]).unwrap(),
                Value::Long(expected),
                "{input}"
            );
        }
        for (input, expected) in [
            (INPUT_LEN_3, -5_393_534_126_371_324_712),
            (INPUT_LEN_19, 6_644_130_553_114_817_940),
            (INPUT_LEN_39, 4_996_239_180_729_703_879),
            (&len_78, 7_728_698_838_656_230_245),
        ] {
            assert_eq!(
                call("cityHash64", &[b(input), Value::Int(10)]).unwrap(),
                Value::Long(expected),
                "{input}"
            );
        }
        for (input, expected) in [
            (INPUT_LEN_3, 1_535_010_434_850_606_895),
            (INPUT_LEN_19, 3_720_925_692_744_621_932),
            (INPUT_LEN_39, 2_833_639_334_569_022_972),
            (&len_78, 8_613_575_199_633_737_553),
        ] {
            let seeds = [Value::Int(10_438_437), Value::Long(399_389_834)];
            assert_eq!(
                call(
                    "cityHash64",
                    &[b(input), seeds[0].clone(), seeds[1].clone()]
                )
                .unwrap(),
                Value::Long(expected),
                "{input}"
            );
        }
        let len_156 = alphabet(6);
        for (input, expected) in [
            (
                INPUT_LEN_3,
                [
                    57, -128, -78, -81, -46, 18, 108, 4, -96, -123, -16, -112, 19, 2, -98, 69,
                ],
            ),
            (
                INPUT_LEN_39,
                [
                    0, -44, 40, 93, -71, 96, 80, -45, -82, 111, -109, -116, 25, 32, 98, -7,
                ],
            ),
            (
                &len_156,
                [
                    114, 8, 23, 53, -124, 83, -28, 35, 27, -117, -59, 121, -108, -20, 59, 115,
                ],
            ),
        ] {
            assert_eq!(
                call("cityHash128", &[b(input)]).unwrap(),
                java_bytes(&expected),
                "{input}"
            );
        }
        assert!(call("cityHash64", &[b("a"), s("x")]).is_err());
    }

    #[test]
    fn every_length_hashes_without_panicking() {
        let data: Vec<u8> = (0..400u32).map(|i| (i * 37 % 256) as u8).collect();
        for len in 0..data.len() {
            let input = [Value::Bytes(data[..len].to_vec()), Value::Int(-7)];
            for f in FUNCTIONS {
                let n = if f.arity().accepts(2) { 2 } else { 1 };
                let out = f.eval(&input[..n]).unwrap();
                assert!(!matches!(out, Value::Null), "{} at {len}", f.name());
            }
        }
    }
}
