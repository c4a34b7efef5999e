//! [`UltraLogLog`]: distinct-count estimation for `DISTINCTCOUNTULL`, `DISTINCTCOUNTRAWULL`,
//! `DISTINCTCOUNTSMARTULL` and `toULL`, register for register the sketch Pinot builds (hash4j's
//! `UltraLogLog`, Ertl 2024).
//!
//! `2^p` one-byte registers (Pinot's default `p` is 12: 4 KiB, a standard error of about
//! `sqrt(0.612 / 4096)` = 1.2%). A value's 64-bit hash — wyhash final4, seed 0, over the bytes
//! Pinot's funnel feeds it ([`hash_value`]) — picks a register with its top `p` bits; the
//! register keeps, packed in one byte, the highest "update value" seen (the leading zeros of the
//! rest, plus one) and whether the two values below it were seen too. The estimate is hash4j's
//! default, the optimal further-generalized-remaining-area (FGRA) estimator, ported line for
//! line so the rounded counts are Pinot's.
//!
//! Registers merge by OR-ing their unpacked bit patterns, so a merge is the sketch of the union
//! exactly; a sketch of higher precision folds down to the lower one first (hash4j's
//! `downsize`), also exactly. Pinot's forms: `[p] ++ registers` for `toULL`, intermediate
//! results and BYTES columns of sketches ([`UltraLogLog::to_pinot_bytes`]); the registers alone,
//! base64-encoded, for `DISTINCTCOUNTRAWULL` ([`UltraLogLog::state`]).

use super::error::SketchError;
use crate::types::Value;
use wyhash_final4::WyHash64;
use wyhash_final4::generics::WyHashVariant;

/// Pinot's default precision for the ULL functions (`DEFAULT_ULTRALOGLOG_P`).
pub const DEFAULT_ULL_P: u8 = 12;
/// hash4j's least precision.
pub const MIN_ULL_P: u8 = 3;
/// hash4j's greatest precision.
pub const MAX_ULL_P: u8 = 26;
const NAME: &str = "ultraloglog";

/// An UltraLogLog distinct-count sketch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UltraLogLog {
    registers: Vec<u8>,
}

/// The 64-bit hash Pinot adds to a ULL for `v` (`UltraLogLogUtils.hashObject`): wyhash final4
/// (seed 0) over INT and BOOLEAN as 4 bytes little-endian, LONG and TIMESTAMP as 8, FLOAT and
/// DOUBLE as their raw bits, text as its UTF-16 code units (little-endian) followed by their
/// count as 4 bytes, BIG_DECIMAL as its text, BYTES as they are. `None` for NULL and arrays
/// (the caller passes an array's elements).
pub fn hash_value(v: &Value) -> Option<u64> {
    let wy = |bytes: &[u8]| WyHash64::hash_with_seed(bytes, 0);
    Some(match v {
        Value::Null | Value::Array(_) => return None,
        Value::Int(x) => wy(&x.to_le_bytes()),
        Value::Boolean(b) => wy(&i32::from(*b).to_le_bytes()),
        Value::Long(x) | Value::Timestamp(x) => wy(&x.to_le_bytes()),
        Value::Float(x) => wy(&x.to_bits().to_le_bytes()),
        Value::Double(x) => wy(&x.to_bits().to_le_bytes()),
        Value::String(s) | Value::Json(s) | Value::BigDecimal(s) | Value::Map(s) => {
            let mut bytes = Vec::with_capacity(s.len() * 2 + 4);
            let mut units = 0u32;
            for u in s.encode_utf16() {
                bytes.extend_from_slice(&u.to_le_bytes());
                units += 1;
            }
            bytes.extend_from_slice(&units.to_le_bytes());
            wy(&bytes)
        }
        Value::Bytes(b) => wy(b),
    })
}

/// A register's bit pattern: the update values it holds (hash4j's `unpack`).
fn unpack(r: u8) -> u64 {
    if r == 0 {
        return 0;
    }
    (4 | u64::from(r & 3)) << ((u32::from(r >> 2)).wrapping_sub(2) & 63)
}

/// A bit pattern as a register: its highest update value and the two below it (hash4j's `pack`).
fn pack(prefix: u64) -> u8 {
    let nlz = prefix.leading_zeros() + 1;
    (((nlz as i32).wrapping_neg() << 2) as u8) | ((prefix << (nlz & 63)) >> 62) as u8
}

impl UltraLogLog {
    /// An empty sketch of `2^p` registers; `p` from 3 to 26.
    pub fn new(p: u8) -> Result<UltraLogLog, SketchError> {
        if !(MIN_ULL_P..=MAX_ULL_P).contains(&p) {
            return Err(SketchError::InvalidParameter {
                sketch: NAME,
                value: p.to_string(),
                reason: "p must be between 3 and 26",
            });
        }
        Ok(UltraLogLog {
            registers: vec![0; 1 << p],
        })
    }

    /// A sketch over `registers` (hash4j's `wrap`): their count must be a power of two from
    /// `2^3` to `2^26`.
    pub fn wrap(registers: Vec<u8>) -> Result<UltraLogLog, SketchError> {
        let n = registers.len();
        if !n.is_power_of_two() || !(1 << MIN_ULL_P..=1 << MAX_ULL_P).contains(&n) {
            return Err(SketchError::corrupt(
                NAME,
                format!("{n} registers is not a power of two from 8 to 2^26"),
            ));
        }
        Ok(UltraLogLog { registers })
    }

    /// The precision: `2^p` registers.
    pub fn p(&self) -> u8 {
        self.registers.len().trailing_zeros() as u8
    }

    /// The registers (hash4j's `getState`: what `DISTINCTCOUNTRAWULL` returns, base64-encoded).
    pub fn state(&self) -> &[u8] {
        &self.registers
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.registers.iter().all(|&r| r == 0)
    }

    /// Adds a value (NULL adds nothing).
    pub fn add_value(&mut self, v: &Value) {
        if let Some(h) = hash_value(v) {
            self.add_hash(h);
        }
    }

    /// Adds a 64-bit hash.
    pub fn add_hash(&mut self, h: u64) {
        let p = u32::from(self.p());
        let q = 64 - p;
        let idx = (h >> q) as usize;
        // The leading zeros of the hash's other bits, at most 64 - p.
        let nlz = ((h << p) | ((1u64 << p) - 1)).leading_zeros();
        let prefix = unpack(self.registers[idx]) | (1u64 << (nlz + p - 1));
        self.registers[idx] = pack(prefix);
    }

    /// Folds `other` in. The result has the smaller precision of the two (hash4j's `merge`):
    /// a sketch of greater precision is folded down, exactly.
    pub fn merge(&mut self, other: &UltraLogLog) {
        if other.registers.len() < self.registers.len() {
            let mut smaller = other.clone();
            smaller.add_larger_or_equal(self);
            *self = smaller;
        } else {
            self.add_larger_or_equal(other);
        }
    }

    /// hash4j's `add(UltraLogLog)`: `other` has at least this sketch's precision.
    fn add_larger_or_equal(&mut self, other: &UltraLogLog) {
        let theirs = &other.registers;
        if theirs.len() == self.registers.len() {
            for (r, &o) in self.registers.iter_mut().zip(theirs) {
                if o != 0 {
                    *r = pack(unpack(*r) | unpack(o));
                }
            }
            return;
        }
        let (p, other_p) = (u32::from(self.p()), u32::from(other.p()));
        let k_upper = 1u64 << (other_p - p);
        let mut j = 0;
        for r in self.registers.iter_mut() {
            let mut prefix = unpack(*r) | unpack(theirs[j]);
            j += 1;
            for k in 1..k_upper {
                if theirs[j] != 0 {
                    // Java shifts modulo 64 (the sum is at least 64 here).
                    prefix |= 1u64.wrapping_shl(k.leading_zeros() + other_p - 1);
                }
                j += 1;
            }
            if prefix != 0 {
                *r = pack(prefix);
            }
        }
    }

    /// `[p] ++ registers`: Pinot's serialized ULL (`toULL`, BYTES columns of sketches).
    pub fn to_pinot_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(1 + self.registers.len());
        out.push(self.p());
        out.extend_from_slice(&self.registers);
        out
    }

    /// Reads [`UltraLogLog::to_pinot_bytes`].
    pub fn from_pinot_bytes(bytes: &[u8]) -> Result<UltraLogLog, SketchError> {
        let (&p, registers) = bytes
            .split_first()
            .ok_or_else(|| SketchError::corrupt(NAME, "no bytes"))?;
        if !(MIN_ULL_P..=MAX_ULL_P).contains(&p) || registers.len() != 1 << p {
            return Err(SketchError::corrupt(
                NAME,
                format!("p {p} with {} register bytes", registers.len()),
            ));
        }
        Ok(UltraLogLog {
            registers: registers.to_vec(),
        })
    }

    /// The distinct-count estimate: hash4j's optimal FGRA estimator.
    pub fn estimate(&self) -> f64 {
        fgra::estimate(&self.registers, u32::from(self.p()))
    }
}

/// hash4j's `OptimalFGRAEstimator`, in its order of operations (its series stop when a term
/// no longer raises the sum, NaN included: hence `!(s > old_s)`).
#[allow(clippy::neg_cmp_op_on_partial_ord)]
mod fgra {
    const ETA_0: f64 = 4.663135422063788;
    const ETA_1: f64 = 2.1378502137958524;
    const ETA_2: f64 = 2.781144650979996;
    const ETA_3: f64 = 0.9824082545153715;
    /// `2^TAU`, `2^-TAU`, `4^-TAU` and `-1/TAU` for `TAU = 0.8194911375910897`, as Java
    /// computes them (bit for bit).
    const POW_2_TAU: f64 = f64::from_bits(0x3ffc_3c8d_889b_b720);
    const POW_2_MINUS_TAU: f64 = f64::from_bits(0x3fe2_21ed_ec8d_586f);
    const POW_4_MINUS_TAU: f64 = f64::from_bits(0x3fd4_8c9f_477f_cb8c);
    const MINUS_INV_TAU: f64 = f64::from_bits(0xbff3_8639_4256_0ba2);
    const ETA_X: f64 = ETA_0 - ETA_1 - ETA_2 + ETA_3;
    const ETA23X: f64 = (ETA_2 - ETA_3) / ETA_X;
    const ETA13X: f64 = (ETA_1 - ETA_3) / ETA_X;
    const ETA3012XX: f64 = (ETA_3 * ETA_0 - ETA_1 * ETA_2) / (ETA_X * ETA_X);
    const POW_4_MINUS_TAU_ETA_23: f64 = POW_4_MINUS_TAU * (ETA_2 - ETA_3);
    const POW_4_MINUS_TAU_ETA_01: f64 = POW_4_MINUS_TAU * (ETA_0 - ETA_1);
    const POW_4_MINUS_TAU_ETA_3: f64 = POW_4_MINUS_TAU * ETA_3;
    const POW_4_MINUS_TAU_ETA_1: f64 = POW_4_MINUS_TAU * ETA_1;
    const POW_2_MINUS_TAU_ETA_X: f64 = POW_2_MINUS_TAU * ETA_X;
    const PHI_1: f64 = ETA_0 / (POW_2_TAU * (2. * POW_2_TAU - 1.));
    const P_INITIAL: f64 = ETA_X * (POW_4_MINUS_TAU / (2. - POW_2_MINUS_TAU));
    const POW_2_MINUS_TAU_ETA_02: f64 = POW_2_MINUS_TAU * (ETA_0 - ETA_2);
    const POW_2_MINUS_TAU_ETA_13: f64 = POW_2_MINUS_TAU * (ETA_1 - ETA_3);
    const POW_2_MINUS_TAU_ETA_2: f64 = POW_2_MINUS_TAU * ETA_2;
    const POW_2_MINUS_TAU_ETA_3: f64 = POW_2_MINUS_TAU * ETA_3;

    fn small_range_estimate(c0: i64, c4: i64, c8: i64, c10: i64, m: i64) -> f64 {
        let alpha = m + 3 * (c0 + c4 + c8 + c10);
        let beta = m - c0 - c4;
        let gamma = 4 * c0 + 2 * c4 + 3 * c8 + c10;
        let quad_root_z =
            (((beta * beta + 4 * alpha * gamma) as f64).sqrt() - beta as f64) / (2 * alpha) as f64;
        let root_z = quad_root_z * quad_root_z;
        root_z * root_z
    }

    fn large_range_estimate(c4w0: i64, c4w1: i64, c4w2: i64, c4w3: i64, m: i64) -> f64 {
        let alpha = m + 3 * (c4w0 + c4w1 + c4w2 + c4w3);
        let beta = c4w0 + c4w1 + 2 * (c4w2 + c4w3);
        let gamma = m + 2 * c4w0 + c4w2 - c4w3;
        ((((beta * beta + 4 * alpha * gamma) as f64).sqrt() - beta as f64) / (2 * alpha) as f64)
            .sqrt()
    }

    fn psi_prime(z: f64, z_square: f64) -> f64 {
        (z + ETA23X) * (z_square + ETA13X) + ETA3012XX
    }

    fn sigma(z: f64) -> f64 {
        if z <= 0. {
            return ETA_3;
        }
        if z >= 1. {
            return f64::INFINITY;
        }
        let mut pow_z = z;
        let mut next_pow_z = pow_z * pow_z;
        let mut s = 0.;
        let mut pow_tau = ETA_X;
        loop {
            let old_s = s;
            let next_next_pow_z = next_pow_z * next_pow_z;
            s += pow_tau * (pow_z - next_pow_z) * psi_prime(next_pow_z, next_next_pow_z);
            if !(s > old_s) {
                return s / z;
            }
            pow_z = next_pow_z;
            next_pow_z = next_next_pow_z;
            pow_tau *= POW_2_TAU;
        }
    }

    fn phi(z: f64, z_square: f64) -> f64 {
        if z <= 0. {
            return 0.;
        }
        if z >= 1. {
            return PHI_1;
        }
        let mut previous_pow_z;
        let mut pow_z = z;
        let mut next_pow_z = pow_z.sqrt();
        let mut p = P_INITIAL / (1. + next_pow_z);
        let mut ps = psi_prime(pow_z, z_square);
        let mut s = next_pow_z * (ps + ps) * p;
        loop {
            previous_pow_z = pow_z;
            pow_z = next_pow_z;
            let old_s = s;
            next_pow_z = pow_z.sqrt();
            let next_ps = psi_prime(pow_z, previous_pow_z);
            p *= POW_2_MINUS_TAU / (1. + next_pow_z);
            s += next_pow_z * ((next_ps + next_ps) - (pow_z + next_pow_z) * ps) * p;
            if !(s > old_s) {
                return s;
            }
            ps = next_ps;
        }
    }

    fn large_range_contribution(c4w: [i64; 4], m: i64, w: i32) -> f64 {
        let [c4w0, c4w1, c4w2, c4w3] = c4w;
        let z = large_range_estimate(c4w0, c4w1, c4w2, c4w3, m);
        let root_z = z.sqrt();
        let mut s = phi(root_z, z) * (c4w0 + c4w1 + c4w2 + c4w3) as f64;
        s += z
            * (1. + root_z)
            * (c4w0 as f64 * ETA_0
                + c4w1 as f64 * ETA_1
                + c4w2 as f64 * ETA_2
                + c4w3 as f64 * ETA_3);
        s += root_z
            * ((c4w0 + c4w1) as f64 * (z * POW_2_MINUS_TAU_ETA_02 + POW_2_MINUS_TAU_ETA_2)
                + (c4w2 + c4w3) as f64 * (z * POW_2_MINUS_TAU_ETA_13 + POW_2_MINUS_TAU_ETA_3));
        s * POW_2_MINUS_TAU.powf(f64::from(w)) / ((1. + root_z) * (1. + z))
    }

    /// The estimate of a sketch of `2^p` registers.
    pub(super) fn estimate(registers: &[u8], p: u32) -> f64 {
        let m = registers.len() as i64;
        let (mut c0, mut c4, mut c8, mut c10) = (0i64, 0i64, 0i64, 0i64);
        let mut c4w = [0i64; 4];
        let mut sum = 0.;
        let off = (p as i32) * 4 + 4;
        for &reg in registers {
            let r = i32::from(reg);
            let r2 = r - off;
            if r2 < 0 {
                match r2 {
                    -8 => c4 += 1,
                    -4 => c8 += 1,
                    -2 => c10 += 1,
                    x if x < -8 => c0 += 1,
                    _ => {}
                }
            } else if r < 252 {
                sum += REGISTER_CONTRIBUTIONS[r2 as usize];
            } else {
                c4w[(r - 252) as usize] += 1;
            }
        }
        if c0 > 0 || c4 > 0 || c8 > 0 || c10 > 0 {
            let z = small_range_estimate(c0, c4, c8, c10, m);
            if c0 > 0 {
                sum += c0 as f64 * sigma(z);
            }
            if c4 > 0 {
                sum += c4 as f64 * POW_2_MINUS_TAU_ETA_X * psi_prime(z, z * z);
            }
            if c8 > 0 {
                sum += c8 as f64 * (z * POW_4_MINUS_TAU_ETA_01 + POW_4_MINUS_TAU_ETA_1);
            }
            if c10 > 0 {
                sum += c10 as f64 * (z * POW_4_MINUS_TAU_ETA_23 + POW_4_MINUS_TAU_ETA_3);
            }
        }
        if c4w.iter().any(|&c| c > 0) {
            sum += large_range_contribution(c4w, m, 65 - p as i32);
        }
        ESTIMATION_FACTORS[p as usize - 3] * sum.powf(MINUS_INV_TAU)
    }

    /// The optimal FGRA estimator's factor per precision `p` (3 to 26).
    const ESTIMATION_FACTORS: [f64; 24] = [
        94.59941722950778,
        455.6358404615186,
        2159.476860400962,
        10149.51036338182,
        47499.52712820488,
        221818.76564766388,
        1034754.6840013304,
        4824374.384717942,
        2.2486750611989766e7,
        1.0479810199493326e8,
        4.8837185623048025e8,
        2.275794725435168e9,
        1.0604938814719946e10,
        4.9417362104242645e10,
        2.30276227770117e11,
        1.0730444972228585e12,
        5.0001829613164e12,
        2.329988778511272e13,
        1.0857295240912981e14,
        5.059288069986326e14,
        2.3575295235667005e15,
        1.0985627213141412e16,
        5.119087674515589e16,
        2.3853948339571715e17,
    ];

    /// The optimal FGRA estimator's contribution of a register `r` (at `r - (4p + 4)`).
    const REGISTER_CONTRIBUTIONS: [f64; 236] = [
        0.8484061093359406,
        0.38895829052007685,
        0.5059986252327467,
        0.17873835725405993,
        0.48074234060273024,
        0.22040001471443574,
        0.2867199572932749,
        0.10128061935935387,
        0.2724086914332655,
        0.12488785473931466,
        0.16246750447680292,
        0.057389829555353204,
        0.15435814343988866,
        0.0707666752272979,
        0.09206087452057209,
        0.03251947467566813,
        0.08746577181824695,
        0.0400993542020493,
        0.05216553700867983,
        0.018426892732996067,
        0.04956175987398336,
        0.022721969094305374,
        0.029559172293066274,
        0.01044144713836362,
        0.02808376340530896,
        0.012875216815740723,
        0.01674946174724118,
        0.005916560101748389,
        0.015913433441643893,
        0.0072956356627506685,
        0.009490944673308844,
        0.0033525700962450116,
        0.009017216113341773,
        0.004134011914931561,
        0.0053779657012946284,
        0.0018997062578498703,
        0.005109531310944485,
        0.002342503834183061,
        0.00304738001114257,
        0.001076452918957914,
        0.0028952738727082267,
        0.0013273605219527246,
        0.0017267728074345586,
        6.09963188753462e-4,
        0.0016405831157217021,
        7.521379173550258e-4,
        9.78461602292084e-4,
        3.4563062172237723e-4,
        9.2962292270938e-4,
        4.2619276177576713e-4,
        5.544372155028133e-4,
        1.958487477192352e-4,
        5.267631795945699e-4,
        2.4149862146135835e-4,
        3.141672858847145e-4,
        1.1097608132071735e-4,
        2.9848602115777116e-4,
        1.3684320663902123e-4,
        1.7802030736817869e-4,
        6.288368329501905e-5,
        1.6913464774658265e-4,
        7.754107700464113e-5,
        1.0087374230011362e-4,
        3.563252169014952e-5,
        9.583875639268212e-5,
        4.393801322487549e-5,
        5.715927601779108e-5,
        2.0190875207520577e-5,
        5.430624268457414e-5,
        2.4897113642537945e-5,
        3.2388833410757184e-5,
        1.144099329232623e-5,
        3.0772185549154786e-5,
        1.4107744575453657e-5,
        1.8352865935237916e-5,
        6.482944704957522e-6,
        1.7436805727319977e-5,
        7.99403737572986e-6,
        1.0399500462555932e-5,
        3.67350727106242e-6,
        9.880422483694849e-6,
        4.529755498675165e-6,
        5.892791363067244e-6,
        2.081562667074589e-6,
        5.5986600976661345e-6,
        2.5667486794686803e-6,
        3.339101736056405e-6,
        1.1795003568090263e-6,
        3.1724346748254955e-6,
        1.4544270182973653e-6,
        1.8920745223756656e-6,
        6.683541714686068e-7,
        1.7976340035771381e-6,
        8.241391019206623e-7,
        1.072128458850476e-6,
        3.7871739159788393e-7,
        1.0186145159929963e-6,
        4.6699164053601817e-7,
        6.075127690181302e-7,
        2.1459709360913574e-7,
        5.77189533646426e-7,
        2.6461697039041317e-7,
        3.442421115430427e-7,
        1.2159967724530947e-7,
        3.27059699739513e-7,
        1.4994302882644454e-7,
        1.9506195985170504e-7,
        6.890345650764188e-8,
        1.853256875916027e-7,
        8.49639834530526e-8,
        1.1053025444979778e-7,
        3.904357664636507e-8,
        1.0501327589016596e-7,
        4.814414208323267e-8,
        6.263105916717392e-8,
        2.2123721430020238e-8,
        5.9504908663745294e-8,
        2.7280481949286693e-8,
        3.548937430686624e-8,
        1.2536224699555158e-8,
        3.371796684815404e-8,
        1.545826061452554e-8,
        2.0109761920695445e-8,
        7.103548569567803e-9,
        1.910600846054063e-8,
        8.759296176321385e-9,
        1.139503111580109e-8,
        4.0251673442004705e-9,
        1.082626247715867e-8,
        4.963383100969499e-9,
        6.456900615837058e-9,
        2.28082795382416e-9,
        6.134612546958812e-9,
        2.812460192131048e-9,
        3.65874960227048e-9,
        1.292412391857717e-9,
        3.476127720042246e-9,
        1.5936574250689536e-9,
        2.0732003554895977e-9,
        7.323348470132607e-10,
        1.9697191686598677e-9,
        9.030328662369446e-10,
        1.1747619217600795e-9,
        4.1497151491950363e-10,
        1.1161251587553774e-9,
        5.116961428952198e-10,
        6.656691762391315e-10,
        2.351401942661752e-10,
        6.324431369849931e-10,
        2.899484087937328e-10,
        3.771959611450379e-10,
        1.3324025619025952e-10,
        3.5836869940773545e-10,
        1.6429687995368037e-10,
        2.1373498756237659e-10,
        7.549949478033437e-11,
        2.0306667462222755e-10,
        9.309747508122088e-11,
        1.2111117194789844e-10,
        4.2781167456975155e-11,
        1.1506606020637118e-10,
        5.275291818652914e-11,
        6.86266490006118e-11,
        2.424159650745726e-11,
        6.520123617549523e-11,
        2.9892007004129765e-11,
        3.888672595026375e-11,
        1.3736301184893309e-11,
        3.6945743959497274e-11,
        1.693805979747882e-11,
        2.2034843273746723e-11,
        7.783562034953282e-12,
        2.093500180037604e-11,
        9.597812206565218e-12,
        1.248586262365167e-11,
        4.4104913787558985e-12,
        1.186264650299681e-11,
        5.4385213096368525e-12,
        7.075011313669894e-12,
        2.499168647301308e-12,
        6.721871027139603e-12,
        3.081693348317683e-12,
        4.008996942969544e-12,
        1.4161333491633975e-12,
        3.808892905481426e-12,
        1.7462161775917615e-12,
        2.271665129027518e-12,
        8.024403094117999e-13,
        2.1582778227746425e-12,
        9.89479027998621e-13,
        1.2872203525845489e-12,
        4.54696198313039e-13,
        1.2229703685228866e-12,
        5.606801491206791e-13,
        7.293928206826874e-13,
        2.5764985922987735e-13,
        6.92986095905959e-13,
        3.1770479284824887e-13,
        4.1330443990824427e-13,
        1.4599517261737423e-13,
        3.926748688923721e-13,
        1.8002480658009348e-13,
        2.3419555992885186e-13,
        8.272696321778206e-14,
        2.225059832666067e-13,
        1.0200957528418621e-13,
        1.327049869160979e-13,
        4.687655297461429e-14,
        1.2608118449008524e-13,
        5.780288643182276e-14,
        7.519618885068399e-14,
        2.656221301145837e-14,
        7.144286571105751e-14,
        3.2753529955811655e-14,
        4.2609301647742677e-14,
        1.5051259431302017e-14,
        4.0482511975524363e-14,
        1.8559518231526075e-14,
        2.4144210160882415e-14,
        8.528672304925501e-15,
        2.293908229376684e-14,
        1.0516598285774437e-14,
        1.3681118012966618e-14,
        4.832701981970378e-15,
        1.2998242223663023e-14,
        5.959143881034847e-15,
        7.752292944665042e-15,
        2.7384108113817744e-15,
        7.365346997814574e-15,
        3.376699844369893e-15,
        4.392773006047039e-15,
        1.5516979527951759e-15,
        4.173513269314059e-15,
        1.9133791810691354e-15,
        2.4891286772044455e-15,
        8.792568765435867e-16,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_pinots() {
        // hash4j 0.30.0's wyhashFinal4 over Pinot's funnel, computed on the JVM.
        let cases = [
            (Value::Int(0), 0x14b8_3016_dc46_0955u64),
            (Value::Int(1), 0xd145_1a1b_34d5_fb64),
            (Value::Int(-1), 0x53ac_8fa6_824b_cad0),
            (Value::Int(42), 0x9311_303e_982c_380a),
            (Value::Long(0), 0xe6b7_875d_0487_a132),
            (Value::Long(42), 0xca6b_1af4_5159_2f24),
            (Value::Long(-1), 0x0e21_4692_0409_c1fc),
            (Value::Long(i64::MIN), 0x89c8_021d_a5a6_0532),
            (Value::Int(i32::MIN), 0xed0c_fb22_3192_7fb1),
            (Value::Float(1.5), 0x62c7_08bc_7e04_e7b1),
            (Value::Float(1.0), 0x5dfc_defb_d011_8c5d),
            (Value::Float(0.1), 0x5428_469d_5be0_93d4),
            (Value::Double(1.5), 0x616b_cba8_06e3_1f19),
            (Value::Double(0.1), 0xa821_6fd7_b86a_bef9),
            (Value::Double(1.0e7), 0x2efd_172e_e31b_dd43),
            (Value::Double(-0.0), 0x89c8_021d_a5a6_0532),
            (Value::Double(f64::NAN), 0x8af0_b106_ad1b_72a3),
            (Value::String(String::new()), 0x14b8_3016_dc46_0955),
            (Value::String("a".into()), 0x9011_4108_7434_3fd8),
            (Value::String("hello".into()), 0x17aa_525b_188c_c5cc),
            (Value::String("hello world".into()), 0xc371_1ba3_872d_e501),
            (Value::String("€uro".into()), 0xb4b3_7dec_a416_d6b1),
            (Value::String("null".into()), 0x0309_ec80_8437_0972),
            (
                Value::String("abcdefghijklmnopqrstuvwxyz0123".into()),
                0xb180_e819_f01d_b7b0,
            ),
            (Value::Bytes(vec![]), 0x0409_638e_e2bd_e459),
            (Value::Bytes(vec![1, 2, 3]), 0xc3e9_27b4_07f2_b4b3),
            (Value::Bytes((0..64).collect()), 0xae9a_c4f9_962d_6746),
        ];
        for (v, h) in cases {
            assert_eq!(hash_value(&v), Some(h), "{v:?}");
        }
        assert_eq!(hash_value(&Value::Null), None);
    }

    fn of_ints(p: u8, n: i32) -> UltraLogLog {
        let mut s = UltraLogLog::new(p).unwrap();
        for i in 0..n {
            s.add_value(&Value::Int(i));
        }
        s
    }

    #[test]
    fn registers_and_estimates_are_pinots() {
        // p=12 {42}: register 2353 holds 0x38.
        let one = of_ints(12, 0);
        assert!(one.is_empty());
        let mut s = UltraLogLog::new(12).unwrap();
        s.add_value(&Value::Int(42));
        assert_eq!(s.state()[2353], 0x38);
        assert_eq!(s.state().iter().filter(|&&r| r != 0).count(), 1);
        assert_eq!(s.estimate(), 1.000082366836078);
        // p=4 {42}, and its toULL form.
        let mut s = UltraLogLog::new(4).unwrap();
        s.add_value(&Value::Int(42));
        let state: Vec<u8> = (0..16).map(|i| if i == 9 { 0x14 } else { 0 }).collect();
        assert_eq!(s.state(), &state[..]);
        let mut pinot = vec![4];
        pinot.extend_from_slice(&state);
        assert_eq!(s.to_pinot_bytes(), pinot);
        // p=4 {"hello", 1.5, 7L}.
        let mut s = UltraLogLog::new(4).unwrap();
        for v in [
            Value::String("hello".into()),
            Value::Double(1.5),
            Value::Long(7),
        ] {
            s.add_value(&v);
        }
        let mut state = [0u8; 16];
        state[1] = 0x10;
        state[6] = 0x19;
        assert_eq!(s.state(), &state[..]);
        assert_eq!(s.estimate(), 2.1078307288411424);
        // Estimates of the integers 0..n (hash4j on the JVM; rounded as Pinot rounds them).
        for (p, n, exact, rounded) in [
            (12, 0, Some(0.0), 0),
            (12, 1, Some(0.9999291004333205), 1),
            (12, 10, Some(10.010269692313656), 10),
            (12, 100, Some(99.90434509062594), 100),
            (12, 1000, Some(1004.4411122567338), 1004),
            (12, 100_000, Some(100909.94050100828), 100_910),
            (4, 10, Some(11.811891115582403), 12),
            (4, 100, Some(78.20223310685317), 78),
            (4, 1000, Some(1101.7586524502058), 1102),
        ] {
            let e = of_ints(p, n).estimate();
            if let Some(x) = exact {
                assert!((e - x).abs() <= x.abs() * 1e-12, "p {p} n {n}: {e} vs {x}");
            }
            assert_eq!(e.round() as i64, rounded, "p {p} n {n}");
        }
        let mut strings = UltraLogLog::new(12).unwrap();
        for i in 0..100_000 {
            strings.add_value(&Value::String(format!("v{i}")));
        }
        assert_eq!(strings.estimate().round() as i64, 99_070);
    }

    #[test]
    fn merges_are_the_union_and_fold_down() {
        let (a, b) = (of_ints(10, 3000), {
            let mut s = UltraLogLog::new(10).unwrap();
            for i in 2000..6000 {
                s.add_value(&Value::Int(i));
            }
            s
        });
        let mut merged = a.clone();
        merged.merge(&b);
        assert_eq!(merged, of_ints(10, 6000));
        // A sketch of greater precision folds down to the smaller one, exactly as if built there.
        let fine = of_ints(14, 6000);
        let mut coarse = UltraLogLog::new(10).unwrap();
        coarse.merge(&fine);
        assert_eq!(coarse, of_ints(10, 6000));
        let mut fine2 = of_ints(14, 10);
        fine2.merge(&of_ints(10, 6000));
        assert_eq!(fine2, of_ints(10, 6000));
    }

    #[test]
    fn serialized_forms_round_trip_and_bad_bytes_are_errors() {
        let s = of_ints(8, 500);
        assert_eq!(
            UltraLogLog::from_pinot_bytes(&s.to_pinot_bytes()).unwrap(),
            s
        );
        assert_eq!(UltraLogLog::wrap(s.state().to_vec()).unwrap(), s);
        for bad in [&[][..], &[8, 0, 0], &[2, 0, 0, 0, 0], &[40]] {
            assert!(UltraLogLog::from_pinot_bytes(bad).is_err(), "{bad:?}");
        }
        assert!(UltraLogLog::wrap(vec![0; 12]).is_err());
        assert!(UltraLogLog::new(2).is_err() && UltraLogLog::new(27).is_err());
        // Any register bytes estimate without panicking.
        for fill in [1u8, 100, 200, 251, 252, 255] {
            let e = UltraLogLog::wrap(vec![fill; 16]).unwrap().estimate();
            assert!(!e.is_nan(), "{fill}");
        }
    }
}
