//! The geometry model of the geospatial functions and its two binary forms: Pinot's own
//! serialization (what a BYTES geometry column holds, `GeometrySerializer`) and WKB (as JTS's
//! `WKBReader` / `WKBWriter` read and write it).
//!
//! Pinot's serialization, big-endian throughout: one type byte — the low 7 bits are the shape
//! (0 point, 1 multi-point, 2 line string, 3 multi-line string, 4 polygon, 5 multi-polygon,
//! 6 collection), the high bit marks a geography (SRID 4326) — then
//!
//! * point: `x y` as doubles (`NaN NaN` for the empty point);
//! * multi-point: point count (int), then the coordinates;
//! * (multi-)line string and (multi-)polygon: part count (int); when not zero, the total point
//!   count (int), each part's first point index (ints), then all coordinates. Polygon shells are
//!   written clockwise and holes counter-clockwise; reading starts a new polygon at every
//!   clockwise ring;
//! * collection: the members, each with its own type byte, up to the end of the bytes.

use std::fmt;

/// A coordinate (x = longitude, y = latitude for geographies).
pub(crate) type Coord = (f64, f64);

/// A geometry and whether it is a geography (Pinot marks geographies with SRID 4326; the
/// members of a collection keep their own mark, as JTS keeps their own SRID).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Geo {
    pub geography: bool,
    pub shape: Shape,
}

/// The shapes JTS models. Polygons are lists of rings (shell first); an empty list is the
/// empty polygon.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Shape {
    Point(Option<Coord>),
    MultiPoint(Vec<Option<Coord>>),
    LineString(Vec<Coord>),
    MultiLineString(Vec<Vec<Coord>>),
    Polygon(Vec<Vec<Coord>>),
    MultiPolygon(Vec<Vec<Vec<Coord>>>),
    Collection(Vec<Geo>),
}

/// Why a geometry could not be read, built or written (a message in JTS's words).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GeoError(pub String);

impl fmt::Display for GeoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

pub(crate) fn err<T>(message: impl Into<String>) -> Result<T, GeoError> {
    Err(GeoError(message.into()))
}

impl Shape {
    /// JTS's `getGeometryType()`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Shape::Point(_) => "Point",
            Shape::MultiPoint(_) => "MultiPoint",
            Shape::LineString(_) => "LineString",
            Shape::MultiLineString(_) => "MultiLineString",
            Shape::Polygon(_) => "Polygon",
            Shape::MultiPolygon(_) => "MultiPolygon",
            Shape::Collection(_) => "GeometryCollection",
        }
    }

    /// Every coordinate, in order.
    pub fn coords(&self) -> Vec<Coord> {
        let mut out = Vec::new();
        self.collect_coords(&mut out);
        out
    }

    fn collect_coords(&self, out: &mut Vec<Coord>) {
        match self {
            Shape::Point(p) => out.extend(p),
            Shape::MultiPoint(ps) => out.extend(ps.iter().flatten()),
            Shape::LineString(l) => out.extend(l),
            Shape::MultiLineString(ls) | Shape::Polygon(ls) => out.extend(ls.iter().flatten()),
            Shape::MultiPolygon(ps) => out.extend(ps.iter().flatten().flatten()),
            Shape::Collection(gs) => gs.iter().for_each(|g| g.shape.collect_coords(out)),
        }
    }

    /// JTS's `isEmpty()`: no coordinate at all.
    pub fn is_empty(&self) -> bool {
        match self {
            Shape::Point(p) => p.is_none(),
            Shape::MultiPoint(ps) => ps.iter().all(Option::is_none),
            Shape::LineString(l) => l.is_empty(),
            Shape::MultiLineString(ls) | Shape::Polygon(ls) => ls.iter().all(Vec::is_empty),
            Shape::MultiPolygon(ps) => ps.iter().flatten().all(Vec::is_empty),
            Shape::Collection(gs) => gs.iter().all(|g| g.shape.is_empty()),
        }
    }

    /// JTS's `getDimension()`: 0 points, 1 lines, 2 polygons, -1 an empty collection.
    pub fn dimension(&self) -> i32 {
        match self {
            Shape::Point(_) | Shape::MultiPoint(_) => 0,
            Shape::LineString(_) | Shape::MultiLineString(_) => 1,
            Shape::Polygon(_) | Shape::MultiPolygon(_) => 2,
            Shape::Collection(gs) => gs.iter().map(|g| g.shape.dimension()).max().unwrap_or(-1),
        }
    }
}

/// JTS's ring check (`LinearRing` construction): empty, or closed with at least 3 points.
pub(crate) fn check_ring(ring: &[Coord]) -> Result<(), GeoError> {
    if let (Some(first), Some(last)) = (ring.first(), ring.last())
        && first != last
    {
        return err("Points of LinearRing do not form a closed linestring");
    }
    if !ring.is_empty() && ring.len() < 3 {
        return err(format!(
            "Invalid number of points in LinearRing (found {} - must be 0 or >= 3)",
            ring.len()
        ));
    }
    Ok(())
}

/// JTS's line string check: empty or at least 2 points.
pub(crate) fn check_line(line: &[Coord]) -> Result<(), GeoError> {
    if line.len() == 1 {
        return err("Invalid number of points in LineString (found 1 - must be 0 or >= 2)");
    }
    Ok(())
}

/// JTS's polygon construction from rings (shell first): each ring must be valid, and an
/// empty shell cannot have non-empty holes. An empty shell alone is the empty polygon.
pub(crate) fn make_polygon(rings: Vec<Vec<Coord>>) -> Result<Vec<Vec<Coord>>, GeoError> {
    for ring in &rings {
        check_ring(ring)?;
    }
    match rings.split_first() {
        Some((shell, holes)) if shell.is_empty() => {
            if holes.iter().any(|h| !h.is_empty()) {
                return err("shell is empty but holes are not");
            }
            Ok(Vec::new())
        }
        _ => Ok(rings),
    }
}

// ---------------------------------------------------------------- Pinot's serialization

const POINT: u8 = 0;
const MULTI_POINT: u8 = 1;
const LINE_STRING: u8 = 2;
const MULTI_LINE_STRING: u8 = 3;
const POLYGON: u8 = 4;
const MULTI_POLYGON: u8 = 5;
const COLLECTION: u8 = 6;
const GEOGRAPHY_BIT: u8 = 0x80;

/// Pinot's `GeometrySerializer.serialize`.
pub(crate) fn serialize(geo: &Geo) -> Result<Vec<u8>, GeoError> {
    let mut out = Vec::new();
    write_pinot(geo, &mut out)?;
    Ok(out)
}

fn put_type(out: &mut Vec<u8>, id: u8, geography: bool) {
    out.push(if geography { id | GEOGRAPHY_BIT } else { id });
}

fn put_i32(out: &mut Vec<u8>, v: usize) -> Result<(), GeoError> {
    let v = i32::try_from(v).map_err(|_| GeoError("geometry too large".into()))?;
    out.extend_from_slice(&v.to_be_bytes());
    Ok(())
}

fn put_coord(out: &mut Vec<u8>, (x, y): Coord) {
    out.extend_from_slice(&x.to_be_bytes());
    out.extend_from_slice(&y.to_be_bytes());
}

fn write_pinot(geo: &Geo, out: &mut Vec<u8>) -> Result<(), GeoError> {
    let g = geo.geography;
    match &geo.shape {
        Shape::Point(p) => {
            put_type(out, POINT, g);
            put_coord(out, p.unwrap_or((f64::NAN, f64::NAN)));
        }
        Shape::MultiPoint(ps) => {
            // JTS counts and writes the coordinates of the non-empty points only.
            put_type(out, MULTI_POINT, g);
            put_i32(out, ps.iter().flatten().count())?;
            ps.iter().flatten().for_each(|c| put_coord(out, *c));
        }
        Shape::LineString(line) => {
            put_type(out, LINE_STRING, g);
            let parts: &[Vec<Coord>] = if line.is_empty() {
                &[]
            } else {
                std::slice::from_ref(line)
            };
            write_parts(out, parts)?;
        }
        Shape::MultiLineString(lines) => {
            put_type(out, MULTI_LINE_STRING, g);
            write_parts(out, lines)?;
        }
        Shape::Polygon(rings) => {
            put_type(out, POLYGON, g);
            write_polygons(out, std::slice::from_ref(rings))?;
        }
        Shape::MultiPolygon(polygons) => {
            put_type(out, MULTI_POLYGON, g);
            write_polygons(out, polygons)?;
        }
        Shape::Collection(members) => {
            put_type(out, COLLECTION, g);
            for member in members {
                write_pinot(member, out)?;
            }
        }
    }
    Ok(())
}

/// Part count, point count, part start indexes, coordinates (always the two counts, even
/// for zero parts, as Pinot writes line strings).
fn write_parts(out: &mut Vec<u8>, parts: &[Vec<Coord>]) -> Result<(), GeoError> {
    put_i32(out, parts.len())?;
    put_i32(out, parts.iter().map(Vec::len).sum())?;
    let mut start = 0;
    for part in parts {
        put_i32(out, start)?;
        start += part.len();
    }
    parts.iter().flatten().for_each(|c| put_coord(out, *c));
    Ok(())
}

fn write_polygons(out: &mut Vec<u8>, polygons: &[Vec<Vec<Coord>>]) -> Result<(), GeoError> {
    if polygons.iter().any(Vec::is_empty) && polygons.iter().any(|p| !p.is_empty()) {
        // Pinot's part table has no room for an empty member (it fails the same way).
        return err("cannot serialize a multi-polygon with an empty member");
    }
    let rings: Vec<(bool, Vec<Coord>)> = polygons
        .iter()
        .flat_map(|rings| {
            rings.iter().enumerate().map(|(i, ring)| {
                let shell = i == 0;
                let mut ring = ring.clone();
                if shell != is_clockwise(&ring) {
                    ring.reverse();
                }
                (shell, ring)
            })
        })
        .collect();
    put_i32(out, rings.len())?;
    put_i32(out, rings.iter().map(|(_, r)| r.len()).sum())?;
    if rings.is_empty() {
        return Ok(());
    }
    let mut start = 0;
    for (_, ring) in &rings {
        put_i32(out, start)?;
        start += ring.len();
    }
    rings
        .iter()
        .flat_map(|(_, r)| r)
        .for_each(|c| put_coord(out, *c));
    Ok(())
}

/// Pinot's orientation test: the sum over the edges of `(x2 − x1)(y2 + y1)` is positive.
fn is_clockwise(ring: &[Coord]) -> bool {
    let (Some(first), Some(last)) = (ring.first(), ring.last()) else {
        return false;
    };
    let mut area: f64 = ring
        .windows(2)
        .map(|w| (w[1].0 - w[0].0) * (w[1].1 + w[0].1))
        .sum();
    area += (first.0 - last.0) * (first.1 + last.1);
    area > 0.0
}

/// A big-endian reader over bytes (Java's `ByteBuffer`), failing instead of running past the end.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    little_endian: bool,
}

impl<'a> Cursor<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Cursor {
            bytes,
            pos: 0,
            little_endian: false,
        }
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N], GeoError> {
        let end = self.pos.checked_add(N).filter(|e| *e <= self.bytes.len());
        let Some(end) = end else {
            return err("unexpected end of geometry bytes");
        };
        let mut buf = [0; N];
        buf.copy_from_slice(&self.bytes[self.pos..end]);
        self.pos = end;
        Ok(buf)
    }

    fn byte(&mut self) -> Result<u8, GeoError> {
        Ok(self.take::<1>()?[0])
    }

    fn i32(&mut self) -> Result<i32, GeoError> {
        let b = self.take()?;
        Ok(if self.little_endian {
            i32::from_le_bytes(b)
        } else {
            i32::from_be_bytes(b)
        })
    }

    fn f64(&mut self) -> Result<f64, GeoError> {
        let b = self.take()?;
        Ok(if self.little_endian {
            f64::from_le_bytes(b)
        } else {
            f64::from_be_bytes(b)
        })
    }

    fn coord(&mut self) -> Result<Coord, GeoError> {
        Ok((self.f64()?, self.f64()?))
    }

    fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }
}

/// Pinot's `GeometrySerializer.deserialize`.
pub(crate) fn deserialize(bytes: &[u8]) -> Result<Geo, GeoError> {
    let mut cursor = Cursor::new(bytes);
    read_pinot(&mut cursor)
}

fn read_pinot(c: &mut Cursor) -> Result<Geo, GeoError> {
    let type_byte = c.byte()?;
    let geography = type_byte & GEOGRAPHY_BIT != 0;
    let shape = match type_byte & !GEOGRAPHY_BIT {
        POINT => Shape::Point(read_point(c)?),
        MULTI_POINT => {
            let count = c.i32()?;
            let count = usize::try_from(count).map_err(|_| GeoError("negative count".into()))?;
            if count > c.remaining() / 16 {
                return err("unexpected end of geometry bytes");
            }
            Shape::MultiPoint(
                (0..count)
                    .map(|_| read_point(c))
                    .collect::<Result<_, _>>()?,
            )
        }
        LINE_STRING => {
            let mut parts = read_parts(c)?;
            match parts.len() {
                0 => Shape::LineString(Vec::new()),
                1 => Shape::LineString(parts.pop().unwrap_or_default()),
                _ => return err("The remaining line string must have only one node"),
            }
        }
        MULTI_LINE_STRING => Shape::MultiLineString(read_parts(c)?),
        POLYGON => {
            let mut polygons = read_polygons(c)?;
            match polygons.len() {
                0 => Shape::Polygon(Vec::new()),
                1 => Shape::Polygon(polygons.pop().unwrap_or_default()),
                n => return err(format!("expected one element but was: {n} polygons")),
            }
        }
        MULTI_POLYGON => Shape::MultiPolygon(read_polygons(c)?),
        COLLECTION => {
            let mut members = Vec::new();
            while c.remaining() > 0 {
                members.push(read_pinot(c)?);
            }
            Shape::Collection(members)
        }
        other => return err(format!("Invalid type id: {other}")),
    };
    Ok(Geo { geography, shape })
}

fn read_point(c: &mut Cursor) -> Result<Option<Coord>, GeoError> {
    let (x, y) = c.coord()?;
    Ok((!x.is_nan() && !y.is_nan()).then_some((x, y)))
}

/// The parts of a (multi-)line string or (multi-)polygon, as Pinot lays them out.
fn read_parts(c: &mut Cursor) -> Result<Vec<Vec<Coord>>, GeoError> {
    let part_count = c.i32()?;
    if part_count == 0 {
        return Ok(Vec::new());
    }
    let point_count = c.i32()?;
    let part_count = usize::try_from(part_count).map_err(|_| GeoError("negative count".into()))?;
    if part_count > c.remaining() / 4 {
        return err("unexpected end of geometry bytes");
    }
    let starts: Vec<i32> = (0..part_count).map(|_| c.i32()).collect::<Result<_, _>>()?;
    let mut parts = Vec::with_capacity(part_count);
    for (i, start) in starts.iter().enumerate() {
        // As Pinot: with several parts, the first one's length is the second one's start.
        let begin = if i == 0 && part_count > 1 { 0 } else { *start };
        let end = starts.get(i + 1).copied().unwrap_or(point_count);
        let len = i64::from(end) - i64::from(begin);
        if len <= 0 {
            return err("Count shall be positive");
        }
        let len = usize::try_from(len).map_err(|_| GeoError("bad count".into()))?;
        if len > c.remaining() / 16 {
            return err("unexpected end of geometry bytes");
        }
        parts.push((0..len).map(|_| c.coord()).collect::<Result<Vec<_>, _>>()?);
    }
    Ok(parts)
}

fn read_polygons(c: &mut Cursor) -> Result<Vec<Vec<Vec<Coord>>>, GeoError> {
    let wrap = |e: GeoError| GeoError(format!("Error constructing Polygon: {e}"));
    let mut polygons: Vec<Vec<Vec<Coord>>> = Vec::new();
    let mut shell: Option<Vec<Coord>> = None;
    // As Pinot: holes met before the first shell join that shell.
    let mut holes: Vec<Vec<Coord>> = Vec::new();
    for ring in read_parts(c)? {
        check_ring(&ring).map_err(wrap)?;
        if is_clockwise(&ring) {
            if let Some(previous) = shell.replace(ring) {
                polygons.push(std::iter::once(previous).chain(holes.drain(..)).collect());
            }
        } else {
            holes.push(ring);
        }
    }
    match shell {
        Some(shell) => polygons.push(std::iter::once(shell).chain(holes).collect()),
        None if !holes.is_empty() => {
            return Err(wrap(GeoError("shell is empty but holes are not".into())));
        }
        None => {}
    }
    Ok(polygons)
}

// ---------------------------------------------------------------- WKB

const WKB_POINT: u32 = 1;
const WKB_LINE_STRING: u32 = 2;
const WKB_POLYGON: u32 = 3;
const WKB_MULTI_POINT: u32 = 4;
const WKB_MULTI_LINE_STRING: u32 = 5;
const WKB_MULTI_POLYGON: u32 = 6;
const WKB_COLLECTION: u32 = 7;
const GEOGRAPHY_SRID: i32 = 4326;

/// JTS's default `WKBWriter`: big-endian, two dimensions, no SRID.
pub(crate) fn to_wkb(shape: &Shape) -> Result<Vec<u8>, GeoError> {
    let mut out = Vec::new();
    write_wkb(shape, &mut out)?;
    Ok(out)
}

fn wkb_header(out: &mut Vec<u8>, kind: u32) {
    out.push(0); // XDR: big-endian
    out.extend_from_slice(&kind.to_be_bytes());
}

fn write_wkb(shape: &Shape, out: &mut Vec<u8>) -> Result<(), GeoError> {
    let sequence = |out: &mut Vec<u8>, coords: &[Coord]| -> Result<(), GeoError> {
        put_i32(out, coords.len())?;
        coords.iter().for_each(|c| put_coord(out, *c));
        Ok(())
    };
    match shape {
        Shape::Point(p) => {
            wkb_header(out, WKB_POINT);
            put_coord(out, p.unwrap_or((f64::NAN, f64::NAN)));
        }
        Shape::LineString(line) => {
            wkb_header(out, WKB_LINE_STRING);
            sequence(out, line)?;
        }
        Shape::Polygon(rings) => {
            wkb_header(out, WKB_POLYGON);
            put_i32(out, rings.len())?;
            for ring in rings {
                sequence(out, ring)?;
            }
        }
        Shape::MultiPoint(points) => {
            wkb_header(out, WKB_MULTI_POINT);
            put_i32(out, points.len())?;
            for p in points {
                write_wkb(&Shape::Point(*p), out)?;
            }
        }
        Shape::MultiLineString(lines) => {
            wkb_header(out, WKB_MULTI_LINE_STRING);
            put_i32(out, lines.len())?;
            for line in lines {
                wkb_header(out, WKB_LINE_STRING);
                sequence(out, line)?;
            }
        }
        Shape::MultiPolygon(polygons) => {
            wkb_header(out, WKB_MULTI_POLYGON);
            put_i32(out, polygons.len())?;
            for rings in polygons {
                write_wkb(&Shape::Polygon(rings.clone()), out)?;
            }
        }
        Shape::Collection(members) => {
            wkb_header(out, WKB_COLLECTION);
            put_i32(out, members.len())?;
            for member in members {
                write_wkb(&member.shape, out)?;
            }
        }
    }
    Ok(())
}

/// JTS's lenient `WKBReader`: either byte order, ISO and EWKB Z/M flags (extra ordinates are
/// dropped), an EWKB SRID (4326 makes a geography, any other non-zero SRID a geometry), rings
/// closed and line strings of one point doubled.
pub(crate) fn from_wkb(bytes: &[u8], geography: bool) -> Result<Geo, GeoError> {
    let mut reader = WkbReader {
        cursor: Cursor::new(bytes),
        max_count: bytes.len() / 8,
    };
    reader.geometry(if geography { GEOGRAPHY_SRID } else { 0 })
}

struct WkbReader<'a> {
    cursor: Cursor<'a>,
    max_count: usize,
}

impl WkbReader<'_> {
    fn count(&mut self, field: &str) -> Result<usize, GeoError> {
        let n = self.cursor.i32()?;
        match usize::try_from(n) {
            Ok(n) if n <= self.max_count => Ok(n),
            _ => err(format!("{field} value is too large")),
        }
    }

    fn geometry(&mut self, srid: i32) -> Result<Geo, GeoError> {
        match self.cursor.byte()? {
            1 => self.cursor.little_endian = true,
            0 => self.cursor.little_endian = false,
            _ => {}
        }
        let type_int = self.cursor.i32()? as u32;
        let base = type_int & 0xffff;
        let kind = base % 1000;
        let has_z = type_int & 0x8000_0000 != 0 || base / 1000 == 1 || base / 1000 == 3;
        let has_m = type_int & 0x4000_0000 != 0 || base / 1000 == 2 || base / 1000 == 3;
        let extra = usize::from(has_z) + usize::from(has_m);
        let mut srid = srid;
        if type_int & 0x2000_0000 != 0 {
            let own = self.cursor.i32()?;
            if own != 0 {
                srid = own;
            }
        }
        let shape = match kind {
            WKB_POINT => Shape::Point(self.point(extra)?),
            WKB_LINE_STRING => Shape::LineString(self.line(extra)?),
            WKB_POLYGON => Shape::Polygon(self.polygon(extra)?),
            WKB_MULTI_POINT => {
                let n = self.count("numElems")?;
                let mut points = Vec::with_capacity(n);
                for _ in 0..n {
                    match self.geometry(srid)?.shape {
                        Shape::Point(p) => points.push(p),
                        _ => return err("Invalid geometry type encountered in MultiPoint"),
                    }
                }
                Shape::MultiPoint(points)
            }
            WKB_MULTI_LINE_STRING => {
                let n = self.count("numElems")?;
                let mut lines = Vec::with_capacity(n);
                for _ in 0..n {
                    match self.geometry(srid)?.shape {
                        Shape::LineString(l) => lines.push(l),
                        _ => return err("Invalid geometry type encountered in MultiLineString"),
                    }
                }
                Shape::MultiLineString(lines)
            }
            WKB_MULTI_POLYGON => {
                let n = self.count("numElems")?;
                let mut polygons = Vec::with_capacity(n);
                for _ in 0..n {
                    match self.geometry(srid)?.shape {
                        Shape::Polygon(p) => polygons.push(p),
                        _ => return err("Invalid geometry type encountered in MultiPolygon"),
                    }
                }
                Shape::MultiPolygon(polygons)
            }
            WKB_COLLECTION => {
                let n = self.count("numElems")?;
                let members = (0..n)
                    .map(|_| self.geometry(srid))
                    .collect::<Result<_, _>>()?;
                Shape::Collection(members)
            }
            other => return err(format!("Unknown WKB type {other}")),
        };
        Ok(Geo {
            geography: srid == GEOGRAPHY_SRID,
            shape,
        })
    }

    fn coords(&mut self, n: usize, extra: usize) -> Result<Vec<Coord>, GeoError> {
        let mut coords = Vec::with_capacity(n);
        for _ in 0..n {
            coords.push(self.cursor.coord()?);
            for _ in 0..extra {
                self.cursor.f64()?;
            }
        }
        Ok(coords)
    }

    fn point(&mut self, extra: usize) -> Result<Option<Coord>, GeoError> {
        let c = self.coords(1, extra)?;
        Ok(c.first()
            .copied()
            .filter(|(x, y)| !x.is_nan() && !y.is_nan()))
    }

    fn line(&mut self, extra: usize) -> Result<Vec<Coord>, GeoError> {
        let n = self.count("numCoords")?;
        let mut line = self.coords(n, extra)?;
        if let [only] = line[..] {
            line.push(only);
        }
        Ok(line)
    }

    fn polygon(&mut self, extra: usize) -> Result<Vec<Vec<Coord>>, GeoError> {
        let n = self.count("numRings")?;
        let mut rings = Vec::with_capacity(n);
        for _ in 0..n {
            let size = self.count("numCoords")?;
            rings.push(close_ring(self.coords(size, extra)?));
        }
        make_polygon(rings)
    }
}

/// JTS's `CoordinateSequences.ensureValidRing`: pad short rings with the first point to 4
/// points, and close open ones.
fn close_ring(mut ring: Vec<Coord>) -> Vec<Coord> {
    let Some(&first) = ring.first() else {
        return ring;
    };
    if ring.len() <= 3 {
        ring.resize(4, first);
    } else if ring.last() != Some(&first) {
        ring.push(first);
    }
    ring
}
