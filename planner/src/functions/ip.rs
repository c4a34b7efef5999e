//! IP address functions, as Pinot's `IpAddressFunctions` (built on the `inet.ipaddr` library):
//!
//! * subnets: `isSubnetOf(prefix, ip)`, `ipPrefix(ip, bits)`, `ipSubnetMin`, `ipSubnetMax`,
//!   `ipv4CIDRToRange` (STRING array `[min, max]`), `ipMaskLen` (INT), `ipNetmask`,
//!   `ipHostmask`;
//! * conversions: `ipv4ToLong` (LONG), `longToIpv4`, `ipv4ToIpv6`, `ipv6ToBytes` (BYTES),
//!   `bytesToIpv6`;
//! * tests: `isIPv4String`, `isIPv6String` (false, never an error, for anything else),
//!   `isPrivateIp` (RFC 1918, loopback, link-local and IPv6 unique local ranges), `ipFamily`
//!   (INT 4 or 6).
//!
//! Addresses are written `a.b.c.d` (also the inet_aton forms the library accepts: `1.2.3`,
//! `0x7f.1`, `010.0.0.1` in octal) or in any IPv6 text form `std::net` reads (zones excluded),
//! optionally followed by `/prefix-length`. A prefix argument stands for its whole block
//! (`192.168.1.7/24` is `192.168.1.0/24`). Output is canonical: dotted decimal, and IPv6 in
//! lower-case hex with the longest run of two or more zero groups as `::` (IPv4-mapped
//! addresses in hex too: `::ffff:c0a8:101`). Invalid input is an error, as in Pinot.

use super::coerce::{bytes, int, int32, text};
use super::def::{Arity, FunctionDef, Param, Returns};
use super::error::FunctionError;
use segments::types::{DataType, Value};
use std::net::Ipv6Addr;

const S: Returns = Returns::Fixed(DataType::String);
const B: Returns = Returns::Fixed(DataType::Boolean);
const I: Returns = Returns::Fixed(DataType::Int);
const T: &[Param] = &[Param::Text];

/// The functions of this area.
pub(crate) const FUNCTIONS: &[FunctionDef] = &[
    FunctionDef::new(
        "isSubnetOf",
        Arity::Exact(2),
        &[Param::Text, Param::Text],
        B,
        is_subnet_of,
    ),
    FunctionDef::new(
        "ipPrefix",
        Arity::Exact(2),
        &[Param::Text, Param::Number],
        S,
        ip_prefix,
    ),
    FunctionDef::new("ipSubnetMin", Arity::Exact(1), T, S, ip_subnet_min),
    FunctionDef::new("ipSubnetMax", Arity::Exact(1), T, S, ip_subnet_max),
    FunctionDef::new(
        "ipv4CIDRToRange",
        Arity::Exact(1),
        T,
        Returns::FixedArray(DataType::String),
        ipv4_cidr_to_range,
    ),
    FunctionDef::new("ipMaskLen", Arity::Exact(1), T, I, ip_mask_len),
    FunctionDef::new("ipNetmask", Arity::Exact(1), T, S, ip_netmask),
    FunctionDef::new("ipHostmask", Arity::Exact(1), T, S, ip_hostmask),
    FunctionDef::new("isIPv4String", Arity::Exact(1), T, B, is_ipv4_string),
    FunctionDef::new("isIPv6String", Arity::Exact(1), T, B, is_ipv6_string),
    FunctionDef::new("isPrivateIp", Arity::Exact(1), T, B, is_private_ip),
    FunctionDef::new("ipFamily", Arity::Exact(1), T, I, ip_family),
    FunctionDef::new(
        "ipv4ToLong",
        Arity::Exact(1),
        T,
        Returns::Fixed(DataType::Long),
        ipv4_to_long,
    ),
    FunctionDef::new(
        "longToIpv4",
        Arity::Exact(1),
        &[Param::Number],
        S,
        long_to_ipv4,
    ),
    FunctionDef::new("ipv4ToIpv6", Arity::Exact(1), T, S, ipv4_to_ipv6),
    FunctionDef::new(
        "ipv6ToBytes",
        Arity::Exact(1),
        T,
        Returns::Fixed(DataType::Bytes),
        ipv6_to_bytes,
    ),
    FunctionDef::new(
        "bytesToIpv6",
        Arity::Exact(1),
        &[Param::Bytes],
        S,
        bytes_to_ipv6,
    ),
];

/// An IPv4 or IPv6 address value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ip {
    V4(u32),
    V6(u128),
}

impl Ip {
    fn bits(self) -> u32 {
        match self {
            Ip::V4(_) => 32,
            Ip::V6(_) => 128,
        }
    }

    fn value(self) -> u128 {
        match self {
            Ip::V4(v) => u128::from(v),
            Ip::V6(v) => v,
        }
    }

    /// The same family with another value (truncated to the family's width).
    fn with(self, value: u128) -> Ip {
        match self {
            Ip::V4(_) => Ip::V4(value as u32),
            Ip::V6(_) => Ip::V6(value),
        }
    }

    /// The network mask of a prefix length (at most the family's width).
    fn mask(self, prefix: u32) -> u128 {
        let all = u128::MAX >> (128 - self.bits());
        match prefix {
            0 => 0,
            p => all & !all.checked_shr(p).unwrap_or(0),
        }
    }
}

impl std::fmt::Display for Ip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Ip::V4(v) => {
                let [a, b, c, d] = v.to_be_bytes();
                write!(f, "{a}.{b}.{c}.{d}")
            }
            Ip::V6(v) => {
                let groups: Vec<u16> = (0..8).map(|i| (v >> (112 - 16 * i)) as u16).collect();
                // The longest run of zero groups (the first of equals), if two or more long.
                let (mut best, mut run) = ((0, 0), (0, 0));
                for (i, g) in groups.iter().enumerate() {
                    if *g == 0 {
                        run = if run.1 == 0 {
                            (i, 1)
                        } else {
                            (run.0, run.1 + 1)
                        };
                        if run.1 > best.1 {
                            best = run;
                        }
                    } else {
                        run = (0, 0);
                    }
                }
                let hex = |gs: &[u16]| {
                    gs.iter()
                        .map(|g| format!("{g:x}"))
                        .collect::<Vec<_>>()
                        .join(":")
                };
                if best.1 >= 2 {
                    let (start, end) = (best.0, best.0 + best.1);
                    write!(f, "{}::{}", hex(&groups[..start]), hex(&groups[end..]))
                } else {
                    f.write_str(&hex(&groups))
                }
            }
        }
    }
}

/// An address as written, with its prefix length when it has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Address {
    ip: Ip,
    prefix: Option<u32>,
}

impl Address {
    fn parse(s: &str) -> Option<Address> {
        let (addr, prefix) = match s.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (s, None),
        };
        let ip = match parse_ipv4(addr) {
            Some(v) => Ip::V4(v),
            None => Ip::V6(u128::from(addr.parse::<Ipv6Addr>().ok()?)),
        };
        let prefix = match prefix {
            None => None,
            Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                Some(p.parse::<u32>().ok().filter(|p| *p <= ip.bits())?)
            }
            Some(_) => return None,
        };
        Some(Address { ip, prefix })
    }

    /// The lowest address of the block.
    fn lower(self, prefix: u32) -> Ip {
        self.ip.with(self.ip.value() & self.ip.mask(prefix))
    }

    /// The highest address of the block.
    fn upper(self, prefix: u32) -> Ip {
        let all = u128::MAX >> (128 - self.ip.bits());
        self.ip
            .with(self.ip.value() | (all & !self.ip.mask(prefix)))
    }

    /// Whether the block of `prefix` holds `ip` (never across families).
    fn contains(self, prefix: u32, ip: Ip) -> bool {
        std::mem::discriminant(&self.ip) == std::mem::discriminant(&ip)
            && ip.value() & self.ip.mask(prefix) == self.lower(prefix).value()
    }
}

/// One inet_aton part: hexadecimal after `0x`, octal after a leading `0`, else decimal.
fn aton_part(part: &str) -> Option<u64> {
    let (digits, radix) =
        if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            (hex, 16)
        } else if part.len() > 1 && part.starts_with('0') {
            (&part[1..], 8)
        } else {
            (part, 10)
        };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// An IPv4 address in dotted or inet_aton form (`1.2.3.4`, `1.2.3`, `1.2`, `1`, parts in
/// decimal, octal or hex; the last part fills the remaining bytes).
fn parse_ipv4(s: &str) -> Option<u32> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() > 4 {
        return None;
    }
    let (last, leading) = parts.split_last()?;
    let mut value: u64 = 0;
    for part in leading {
        let v = aton_part(part).filter(|v| *v <= 255)?;
        value = value << 8 | v;
    }
    let rest_bits = 8 * (4 - leading.len() as u32);
    let v = aton_part(last).filter(|v| *v < 1u64 << rest_bits)?;
    u32::try_from(value << rest_bits | v).ok()
}

/// Pinot's `getAddress`: any valid address, prefixed or not.
fn address(function: &'static str, v: &Value) -> Result<Address, FunctionError> {
    let s = text(v);
    Address::parse(&s)
        .ok_or_else(|| FunctionError::invalid(function, &s, "invalid IP address format"))
}

/// Pinot's `getPrefix`: an address with a prefix length, and that length.
fn prefixed(function: &'static str, v: &Value) -> Result<(Address, u32), FunctionError> {
    let a = address(function, v)?;
    match a.prefix {
        Some(p) => Ok((a, p)),
        None => Err(FunctionError::invalid(
            function,
            v,
            "the IP address should be prefixed",
        )),
    }
}

/// An address without a prefix length.
fn unprefixed(function: &'static str, v: &Value) -> Result<Ip, FunctionError> {
    let a = address(function, v)?;
    match a.prefix {
        None => Ok(a.ip),
        Some(_) => Err(FunctionError::invalid(
            function,
            v,
            "the IP address should not be prefixed",
        )),
    }
}

fn is_subnet_of(args: &[Value]) -> Result<Value, FunctionError> {
    let (block, prefix) = prefixed("isSubnetOf", &args[0])?;
    let ip = unprefixed("isSubnetOf", &args[1])?;
    Ok(Value::Boolean(block.contains(prefix, ip)))
}

fn ip_prefix(args: &[Value]) -> Result<Value, FunctionError> {
    let ip = unprefixed("ipPrefix", &args[0])?;
    let bits = int32("ipPrefix", &args[1])?;
    let prefix = u32::try_from(bits)
        .ok()
        .filter(|b| *b <= ip.bits())
        .ok_or_else(|| {
            FunctionError::invalid(
                "ipPrefix",
                bits,
                format!("the prefix length must be between 0 and {}", ip.bits()),
            )
        })?;
    let lower = Address { ip, prefix: None }.lower(prefix);
    Ok(Value::String(format!("{lower}/{prefix}")))
}

fn ip_subnet_min(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, prefix) = prefixed("ipSubnetMin", &args[0])?;
    Ok(Value::String(a.lower(prefix).to_string()))
}

fn ip_subnet_max(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, prefix) = prefixed("ipSubnetMax", &args[0])?;
    Ok(Value::String(a.upper(prefix).to_string()))
}

fn ipv4_cidr_to_range(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, prefix) = prefixed("ipv4CIDRToRange", &args[0])?;
    if !matches!(a.ip, Ip::V4(_)) {
        return Err(FunctionError::invalid(
            "ipv4CIDRToRange",
            &args[0],
            "not an IPv4 CIDR",
        ));
    }
    Ok(Value::Array(vec![
        Value::String(a.lower(prefix).to_string()),
        Value::String(a.upper(prefix).to_string()),
    ]))
}

fn ip_mask_len(args: &[Value]) -> Result<Value, FunctionError> {
    let (_, prefix) = prefixed("ipMaskLen", &args[0])?;
    Ok(Value::Int(prefix as i32))
}

fn ip_netmask(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, prefix) = prefixed("ipNetmask", &args[0])?;
    Ok(Value::String(a.ip.with(a.ip.mask(prefix)).to_string()))
}

fn ip_hostmask(args: &[Value]) -> Result<Value, FunctionError> {
    let (a, prefix) = prefixed("ipHostmask", &args[0])?;
    let all = u128::MAX >> (128 - a.ip.bits());
    Ok(Value::String(
        a.ip.with(all & !a.ip.mask(prefix)).to_string(),
    ))
}

/// Whether the text is a valid address of the family, without a prefix length.
fn is_family(args: &[Value], v4: bool) -> Result<Value, FunctionError> {
    let a = Address::parse(&text(&args[0]));
    Ok(Value::Boolean(a.is_some_and(|a| {
        a.prefix.is_none() && matches!(a.ip, Ip::V4(_)) == v4
    })))
}

fn is_ipv4_string(args: &[Value]) -> Result<Value, FunctionError> {
    is_family(args, true)
}

fn is_ipv6_string(args: &[Value]) -> Result<Value, FunctionError> {
    is_family(args, false)
}

fn is_private_ip(args: &[Value]) -> Result<Value, FunctionError> {
    let ip = unprefixed("isPrivateIp", &args[0])?;
    let block =
        |text: &str, prefix: u32| Address::parse(text).is_some_and(|b| b.contains(prefix, ip));
    let private = match ip {
        Ip::V4(_) => [
            ("127.0.0.0", 8),
            ("169.254.0.0", 16),
            ("10.0.0.0", 8),
            ("172.16.0.0", 12),
            ("192.168.0.0", 16),
        ]
        .iter()
        .any(|(net, len)| block(net, *len)),
        Ip::V6(v) => v == 1 || block("fe80::", 10) || block("fc00::", 7),
    };
    Ok(Value::Boolean(private))
}

fn ip_family(args: &[Value]) -> Result<Value, FunctionError> {
    let a = address("ipFamily", &args[0])?;
    Ok(Value::Int(if matches!(a.ip, Ip::V4(_)) { 4 } else { 6 }))
}

fn ipv4_to_long(args: &[Value]) -> Result<Value, FunctionError> {
    match address("ipv4ToLong", &args[0])?.ip {
        Ip::V4(v) => Ok(Value::Long(i64::from(v))),
        Ip::V6(_) => Err(FunctionError::invalid(
            "ipv4ToLong",
            &args[0],
            "not an IPv4 address",
        )),
    }
}

fn long_to_ipv4(args: &[Value]) -> Result<Value, FunctionError> {
    let v = int("longToIpv4", &args[0])?;
    let v = u32::try_from(v)
        .map_err(|_| FunctionError::invalid("longToIpv4", v, "value out of IPv4 range"))?;
    Ok(Value::String(Ip::V4(v).to_string()))
}

fn ipv4_to_ipv6(args: &[Value]) -> Result<Value, FunctionError> {
    let a = address("ipv4ToIpv6", &args[0])?;
    let Ip::V4(v) = a.ip else {
        return Err(FunctionError::invalid(
            "ipv4ToIpv6",
            &args[0],
            "not an IPv4 address",
        ));
    };
    let mapped = Ip::V6(0xffff_u128 << 32 | u128::from(v));
    Ok(Value::String(match a.prefix {
        Some(p) => format!("{mapped}/{}", p + 96),
        None => mapped.to_string(),
    }))
}

fn ipv6_to_bytes(args: &[Value]) -> Result<Value, FunctionError> {
    match address("ipv6ToBytes", &args[0])?.ip {
        Ip::V6(v) => Ok(Value::Bytes(v.to_be_bytes().to_vec())),
        Ip::V4(_) => Err(FunctionError::invalid(
            "ipv6ToBytes",
            &args[0],
            "not an IPv6 address",
        )),
    }
}

fn bytes_to_ipv6(args: &[Value]) -> Result<Value, FunctionError> {
    let input = bytes("bytesToIpv6", &args[0])?;
    let octets: [u8; 16] = input.as_ref().try_into().map_err(|_| {
        FunctionError::invalid(
            "bytesToIpv6",
            &args[0],
            format!(
                "an IPv6 address needs exactly 16 bytes, got {}",
                input.len()
            ),
        )
    })?;
    Ok(Value::String(
        Ip::V6(u128::from_be_bytes(octets)).to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::lookup;
    use super::*;

    fn call(name: &str, args: &[Value]) -> Result<Value, FunctionError> {
        lookup(name).unwrap().eval(args)
    }

    fn s(v: &str) -> Value {
        Value::String(v.into())
    }

    fn one(name: &str, input: &str) -> Result<Value, FunctionError> {
        call(name, &[s(input)])
    }

    #[test]
    fn parsing_and_formatting() {
        assert_eq!(parse_ipv4("192.168.1.1"), Some(0xc0a8_0101));
        assert_eq!(parse_ipv4("1.2.3"), Some(0x0102_0003));
        assert_eq!(parse_ipv4("0x7f.1"), Some(0x7f00_0001));
        assert_eq!(parse_ipv4("010.0.0.1"), Some(0x0800_0001));
        assert_eq!(parse_ipv4("4294967295"), Some(u32::MAX));
        for bad in [
            "999.999.999.999",
            "1.2.3.4.5",
            "1..2",
            "",
            "08.1.1.1",
            "0x",
            "1.256.1",
            "a.b.c.d",
        ] {
            assert_eq!(parse_ipv4(bad), None, "{bad}");
        }
        for (text, canonical) in [
            ("2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"),
            ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
            ("1:0:0:2:0:0:0:3", "1:0:0:2::3"),
            ("1:0:0:2:0:0:3:4", "1::2:0:0:3:4"),
            ("::", "::"),
            ("::ffff:192.168.1.1", "::ffff:c0a8:101"),
            ("FE80::ABCD", "fe80::abcd"),
        ] {
            assert_eq!(
                Address::parse(text).unwrap().ip.to_string(),
                canonical,
                "{text}"
            );
        }
        for bad in [
            "1.2.3.4/33",
            "::1/129",
            "1.2.3.4/",
            "1.2.3.4/a",
            "fe80::1%eth0",
            " 1.2.3.4",
            "invalid-ip/24",
        ] {
            assert_eq!(Address::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn subnets() {
        for (prefix, ip, inside) in [
            ("192.168.1.0/24", "192.168.1.100", true),
            ("192.168.1.0/24", "192.168.1.255", true),
            ("192.168.1.0/24", "192.168.2.1", false),
            ("172.16.0.0/12", "172.32.0.1", false),
            (
                "2001:db8::/32",
                "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
                true,
            ),
            ("2001:db8::/32", "2001:db9::1", false),
            (
                "2001:db8:85a3::8a2e:370:7334/62",
                "2001:0db8:85a3:0003:ffff:ffff:ffff:ffff",
                true,
            ),
            ("1.2.3.128/0", "192.168.5.1", true),
            ("192.168.1.1/32", "192.168.1.2", false),
            ("0.0.0.0/0", "::1", false),
        ] {
            assert_eq!(
                call("isSubnetOf", &[s(prefix), s(ip)]).unwrap(),
                Value::Boolean(inside),
                "{prefix} {ip}"
            );
        }
        for (prefix, ip) in [
            ("192.168.1.0/24", "192.168.1.1/32"),
            ("192.168.1.0", "192.168.1.1"),
            ("192.168.1.0/24", "invalid-ip"),
            ("invalid-prefix/24", "192.168.1.1"),
            ("170.189.0.175/33", "170.189.0.175"),
        ] {
            assert!(
                call("isSubnetOf", &[s(prefix), s(ip)]).is_err(),
                "{prefix} {ip}"
            );
        }
        for (ip, bits, out) in [
            ("192.168.1.100", 24, "192.168.1.0/24"),
            ("172.16.5.10", 8, "172.0.0.0/8"),
            ("203.0.113.50", 32, "203.0.113.50/32"),
            ("255.255.255.255", 0, "0.0.0.0/0"),
            ("10.0.0.128", 25, "10.0.0.128/25"),
            ("2001:db8:abcd:ef01::1", 48, "2001:db8:abcd::/48"),
            ("2001:db8::1", 128, "2001:db8::1/128"),
            ("fe80::1", 10, "fe80::/10"),
        ] {
            assert_eq!(
                call("ipPrefix", &[s(ip), Value::Int(bits)]).unwrap(),
                s(out),
                "{ip}/{bits}"
            );
        }
        for (ip, bits) in [
            ("192.168.1.0/24", 16),
            ("192.168.1.1", -1),
            ("192.168.1.1", 33),
            ("2001:db8::1", 129),
            ("999.999.999.999", 24),
        ] {
            assert!(
                call("ipPrefix", &[s(ip), Value::Int(bits)]).is_err(),
                "{ip} {bits}"
            );
        }
        for (cidr, min, max) in [
            ("192.168.1.0/24", "192.168.1.0", "192.168.1.255"),
            ("172.16.0.0/12", "172.16.0.0", "172.31.255.255"),
            ("0.0.0.0/0", "0.0.0.0", "255.255.255.255"),
            ("0.0.0.0/1", "0.0.0.0", "127.255.255.255"),
            ("10.0.0.0/31", "10.0.0.0", "10.0.0.1"),
            ("172.20.5.10/12", "172.16.0.0", "172.31.255.255"),
            (
                "2001:db8::/32",
                "2001:db8::",
                "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff",
            ),
            ("2001:db8::1/128", "2001:db8::1", "2001:db8::1"),
        ] {
            assert_eq!(one("ipSubnetMin", cidr).unwrap(), s(min), "{cidr}");
            assert_eq!(one("ipSubnetMax", cidr).unwrap(), s(max), "{cidr}");
        }
        assert_eq!(
            one("ipv4CIDRToRange", "10.0.0.0/8").unwrap(),
            Value::Array(vec![s("10.0.0.0"), s("10.255.255.255")])
        );
        for name in [
            "ipSubnetMin",
            "ipSubnetMax",
            "ipv4CIDRToRange",
            "ipMaskLen",
            "ipNetmask",
            "ipHostmask",
        ] {
            assert!(one(name, "192.168.1.0").is_err(), "{name}");
            assert!(one(name, "999.999.999.999/24").is_err(), "{name}");
        }
        assert!(one("ipv4CIDRToRange", "2001:db8::/32").is_err());
        for (cidr, len, net, host) in [
            ("192.168.1.0/24", 24, "255.255.255.0", "0.0.0.255"),
            ("192.168.1.0/25", 25, "255.255.255.128", "0.0.0.127"),
            ("192.168.1.1/32", 32, "255.255.255.255", "0.0.0.0"),
            ("0.0.0.0/0", 0, "0.0.0.0", "255.255.255.255"),
            (
                "2001:db8::/64",
                64,
                "ffff:ffff:ffff:ffff::",
                "::ffff:ffff:ffff:ffff",
            ),
            (
                "::1/128",
                128,
                "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
                "::",
            ),
            ("::/0", 0, "::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
        ] {
            assert_eq!(one("ipMaskLen", cidr).unwrap(), Value::Int(len), "{cidr}");
            assert_eq!(one("ipNetmask", cidr).unwrap(), s(net), "{cidr}");
            assert_eq!(one("ipHostmask", cidr).unwrap(), s(host), "{cidr}");
        }
    }

    #[test]
    fn families_and_private_ranges() {
        for (ip, v4, v6) in [
            ("192.168.1.1", true, false),
            ("255.255.255.255", true, false),
            ("2001:db8::1", false, true),
            ("::", false, true),
            ("not-an-ip", false, false),
            ("", false, false),
            ("999.999.999.999", false, false),
            ("192.168.1.1/24", false, false),
            ("2001:db8::1/64", false, false),
        ] {
            assert_eq!(one("isIPv4String", ip).unwrap(), Value::Boolean(v4), "{ip}");
            assert_eq!(one("isIPv6String", ip).unwrap(), Value::Boolean(v6), "{ip}");
        }
        assert_eq!(one("ipFamily", "10.0.0.1").unwrap(), Value::Int(4));
        assert_eq!(one("ipFamily", "fe80::1").unwrap(), Value::Int(6));
        assert!(one("ipFamily", "not-an-ip").is_err());
        for (ip, private) in [
            ("10.255.255.255", true),
            ("172.16.0.1", true),
            ("172.31.255.255", true),
            ("172.32.0.1", false),
            ("192.168.100.200", true),
            ("127.0.0.1", true),
            ("169.254.255.255", true),
            ("::1", true),
            ("fe80::abcd:1234", true),
            ("fd00::1", true),
            ("fc00::1", true),
            ("8.8.8.8", false),
            ("198.18.0.1", false),
            ("2001:db8::1", false),
            ("2606:4700::1", false),
        ] {
            assert_eq!(
                one("isPrivateIp", ip).unwrap(),
                Value::Boolean(private),
                "{ip}"
            );
        }
        for bad in ["10.0.0.0/8", "fc00::/7", "not-an-ip", "999.999.999.999"] {
            assert!(one("isPrivateIp", bad).is_err(), "{bad}");
        }
        assert_eq!(one("isPrivateIp", "").ok(), None);
        assert_eq!(call("isIPv4String", &[Value::Null]).unwrap(), Value::Null);
    }

    #[test]
    fn conversions() {
        for (ip, v) in [
            ("0.0.0.0", 0i64),
            ("0.0.1.0", 256),
            ("192.168.1.1", 3_232_235_777),
            ("255.255.255.255", 4_294_967_295),
        ] {
            assert_eq!(one("ipv4ToLong", ip).unwrap(), Value::Long(v), "{ip}");
            assert_eq!(call("longToIpv4", &[Value::Long(v)]).unwrap(), s(ip), "{v}");
        }
        assert!(one("ipv4ToLong", "2001:db8::1").is_err());
        assert!(one("ipv4ToLong", "not-an-ip").is_err());
        assert!(call("longToIpv4", &[Value::Long(-1)]).is_err());
        assert!(call("longToIpv4", &[Value::Long(4_294_967_296)]).is_err());
        assert_eq!(
            one("ipv4ToIpv6", "192.168.1.1").unwrap(),
            s("::ffff:c0a8:101")
        );
        assert_eq!(
            one("ipv4ToIpv6", "1.2.3.0/24").unwrap(),
            s("::ffff:102:300/120")
        );
        assert!(one("ipv4ToIpv6", "2001:db8::1").is_err());
        let mut loopback = vec![0u8; 16];
        loopback[15] = 1;
        assert_eq!(
            one("ipv6ToBytes", "::1").unwrap(),
            Value::Bytes(loopback.clone())
        );
        assert_eq!(
            call("bytesToIpv6", &[Value::Bytes(loopback)]).unwrap(),
            s("::1")
        );
        assert!(one("ipv6ToBytes", "192.168.1.1").is_err());
        assert!(call("bytesToIpv6", &[Value::Bytes(vec![0; 15])]).is_err());
        assert!(call("bytesToIpv6", &[Value::Bytes(vec![0; 4])]).is_err());
        for ip in ["::1", "2001:db8::1", "fe80::1", "::"] {
            let bytes = one("ipv6ToBytes", ip).unwrap();
            assert_eq!(call("bytesToIpv6", &[bytes]).unwrap(), s(ip), "{ip}");
        }
    }
}
