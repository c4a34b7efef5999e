//! The text forms of geometries, as JTS reads and writes them: WKT (`WKTReader`,
//! `WKTWriter`) and GeoJSON (`GeoJsonReader`, `GeoJsonWriter`).

use super::geo_shape::{Coord, Geo, GeoError, Shape, check_line, check_ring, err, make_polygon};
use segments::types::java_text::java_double_text;
use serde_json::Value as Json;
use std::fmt::Write;

// ---------------------------------------------------------------- numbers

/// JTS's WKT ordinate format (`OrdinateFormat` with 16 fraction digits): plain decimal, no
/// exponent, at most 16 digits after the point, `NaN`, `Inf`, `-Inf`.
pub(crate) fn wkt_number(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Inf" } else { "-Inf" }.into();
    }
    let shortest = format!("{x}");
    let fraction = shortest.split_once('.').map_or(0, |(_, f)| f.len());
    if fraction <= 16 {
        return shortest;
    }
    let rounded = format!("{x:.16}");
    rounded
        .trim_end_matches('0')
        .trim_end_matches('.')
        .to_string()
}

/// JTS's GeoJSON ordinate format: rounded to 8 decimals and written as a whole number when
/// whole, for values from 1e-3 (in magnitude) up to 1e7; Java's `Double.toString` otherwise.
fn geojson_number(x: f64) -> String {
    if x.abs() >= 1e-3 && x < 1e7 {
        let scale = 1e8;
        let rounded = (x * scale + 0.5).floor() / scale;
        let whole = rounded as i64; // saturating, as Java's (long) cast
        if whole as f64 == rounded {
            whole.to_string()
        } else {
            java_double_text(rounded)
        }
    } else {
        java_double_text(x)
    }
}

// ---------------------------------------------------------------- WKT writing

/// JTS's `WKTWriter.write` (two dimensions, unformatted).
pub(crate) fn to_wkt(shape: &Shape) -> String {
    let mut out = String::new();
    write_tagged(shape, &mut out);
    out
}

fn write_tagged(shape: &Shape, out: &mut String) {
    let tag = match shape {
        Shape::Point(_) => "POINT",
        Shape::MultiPoint(_) => "MULTIPOINT",
        Shape::LineString(_) => "LINESTRING",
        Shape::MultiLineString(_) => "MULTILINESTRING",
        Shape::Polygon(_) => "POLYGON",
        Shape::MultiPolygon(_) => "MULTIPOLYGON",
        Shape::Collection(_) => "GEOMETRYCOLLECTION",
    };
    out.push_str(tag);
    out.push(' ');
    match shape {
        Shape::Point(p) => write_sequence(p.as_slice(), out),
        Shape::LineString(line) => write_sequence(line, out),
        Shape::Polygon(rings) => write_polygon(rings, out),
        Shape::MultiPoint(points) => {
            write_list(points, out, |p, out| write_sequence(p.as_slice(), out))
        }
        Shape::MultiLineString(lines) => write_list(lines, out, |l, out| write_sequence(l, out)),
        Shape::MultiPolygon(polygons) => write_list(polygons, out, |p, out| write_polygon(p, out)),
        Shape::Collection(members) => {
            write_list(members, out, |g, out| write_tagged(&g.shape, out))
        }
    }
}

fn write_list<T>(items: &[T], out: &mut String, mut item: impl FnMut(&T, &mut String)) {
    if items.is_empty() {
        out.push_str("EMPTY");
        return;
    }
    out.push('(');
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        item(x, out);
    }
    out.push(')');
}

fn write_sequence(coords: &[Coord], out: &mut String) {
    write_list(coords, out, |(x, y), out| {
        let _ = write!(out, "{} {}", wkt_number(*x), wkt_number(*y));
    });
}

fn write_polygon(rings: &[Vec<Coord>], out: &mut String) {
    if rings.iter().all(Vec::is_empty) {
        out.push_str("EMPTY");
        return;
    }
    write_list(rings, out, |r, out| write_sequence(r, out));
}

// ---------------------------------------------------------------- WKT reading

/// A token of Java's `StreamTokenizer` as JTS configures it.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Word(String),
    Char(char),
    End,
}

impl Token {
    fn describe(&self) -> String {
        match self {
            Token::Word(w) => format!("'{w}'"),
            Token::Char(c) => format!("'{c}'"),
            Token::End => "End-of-Stream".into(),
        }
    }
}

struct Tokens {
    tokens: Vec<Token>,
    pos: usize,
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.') || ('\u{a0}'..='\u{ff}').contains(&c)
}

impl Tokens {
    fn new(text: &str) -> Self {
        let mut tokens = Vec::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c <= ' ' {
                continue;
            }
            if c == '#' {
                // A comment runs to the end of the line.
                while chars.next_if(|c| *c != '\n' && *c != '\r').is_some() {}
                continue;
            }
            if is_word_char(c) {
                let mut word = c.to_string();
                while let Some(c) = chars.next_if(|c| is_word_char(*c)) {
                    word.push(c);
                }
                tokens.push(Token::Word(word));
            } else {
                tokens.push(Token::Char(c));
            }
        }
        Tokens { tokens, pos: 0 }
    }

    fn next(&mut self) -> Token {
        let t = self.tokens.get(self.pos).cloned().unwrap_or(Token::End);
        self.pos += 1;
        t
    }

    fn peek(&self) -> Token {
        self.tokens.get(self.pos).cloned().unwrap_or(Token::End)
    }

    fn expected<T>(&self, what: &str, found: &Token) -> Result<T, GeoError> {
        err(format!(
            "Expected {what} but found {} (line 1)",
            found.describe()
        ))
    }

    /// JTS's `getNextWord`: a word (`EMPTY` in any case folds to `EMPTY`), `(`, `)` or `,`.
    fn word(&mut self) -> Result<String, GeoError> {
        match self.next() {
            Token::Word(w) if w.eq_ignore_ascii_case("EMPTY") => Ok("EMPTY".into()),
            Token::Word(w) => Ok(w),
            Token::Char(c @ ('(' | ')' | ',')) => Ok(c.to_string()),
            other => self.expected("word", &other),
        }
    }

    fn number(&mut self) -> Result<f64, GeoError> {
        match self.next() {
            Token::Word(w) => parse_java_double(&w)
                .ok_or_else(|| GeoError(format!("Invalid number: {w} (line 1)"))),
            other => self.expected("number", &other),
        }
    }

    /// `EMPTY` or `(`, after an optional `Z`, `M` or `ZM`.
    fn empty_or_opener(&mut self) -> Result<bool, GeoError> {
        let mut word = self.word()?;
        if ["Z", "M", "ZM"]
            .iter()
            .any(|m| word.eq_ignore_ascii_case(m))
        {
            word = self.word()?;
        }
        match word.as_str() {
            "EMPTY" => Ok(true),
            "(" => Ok(false),
            _ => self.expected("EMPTY or (", &Token::Word(word)),
        }
    }

    /// `,` (true) or `)` (false).
    fn comma_or_closer(&mut self) -> Result<bool, GeoError> {
        let word = self.word()?;
        match word.as_str() {
            "," => Ok(true),
            ")" => Ok(false),
            _ => self.expected(", or )", &Token::Word(word)),
        }
    }
}

/// Java's `Double.parseDouble` on a WKT word (plus JTS's `NaN`, `Inf`, `-Inf`).
fn parse_java_double(word: &str) -> Option<f64> {
    match word.to_ascii_lowercase().as_str() {
        "nan" => return Some(f64::NAN),
        "inf" => return Some(f64::INFINITY),
        "-inf" => return Some(f64::NEG_INFINITY),
        _ => {}
    }
    let body = word
        .strip_suffix(['d', 'D', 'f', 'F'])
        .filter(|b| b.ends_with(|c: char| c.is_ascii_digit() || c == '.'))
        .unwrap_or(word);
    match body {
        "Infinity" | "+Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        "NaN" | "+NaN" | "-NaN" => Some(f64::NAN),
        _ if body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')) =>
        {
            body.parse().ok()
        }
        _ => None,
    }
}

/// Ordinates a coordinate carries besides x and y.
#[derive(Clone, Copy)]
struct Ordinates {
    z: bool,
    m: bool,
}

/// JTS's `WKTReader.read` (text after the geometry is ignored, as JTS ignores it).
pub(crate) fn from_wkt(text: &str, geography: bool) -> Result<Geo, GeoError> {
    let mut tokens = Tokens::new(text);
    let shape = read_tagged(&mut tokens, geography)?;
    Ok(Geo { geography, shape })
}

fn read_tagged(t: &mut Tokens, geography: bool) -> Result<Shape, GeoError> {
    let tag = t.word()?.to_ascii_uppercase();
    let mut ordinates = Ordinates {
        z: tag.ends_with("ZM") || tag.ends_with('Z'),
        m: tag.ends_with('M'),
    };
    if !ordinates.z
        && !ordinates.m
        && let Token::Word(w) = t.peek()
    {
        match w.to_ascii_uppercase().as_str() {
            "Z" => ordinates.z = true,
            "M" => ordinates.m = true,
            "ZM" => (ordinates.z, ordinates.m) = (true, true),
            _ => {}
        }
        if ordinates.z || ordinates.m {
            t.next();
        }
    }
    const NAMES: [&str; 8] = [
        "POINT",
        "LINESTRING",
        "LINEARRING",
        "POLYGON",
        "MULTIPOINT",
        "MULTILINESTRING",
        "MULTIPOLYGON",
        "GEOMETRYCOLLECTION",
    ];
    let Some(name) = NAMES.iter().find(|n| tag.starts_with(**n)) else {
        return err(format!("Unknown geometry type: {tag} (line 1)"));
    };
    if !matches!(&tag[name.len()..], "" | "Z" | "M" | "ZM") {
        return err(format!("Invalid dimension modifiers: {tag} (line 1)"));
    }
    let o = ordinates;
    Ok(match *name {
        "POINT" => Shape::Point(read_point(t, o)?),
        "LINESTRING" => Shape::LineString(read_line(t, o)?),
        "LINEARRING" => Shape::LineString(read_ring(t, o)?),
        "POLYGON" => Shape::Polygon(read_polygon(t, o)?),
        "MULTIPOINT" => Shape::MultiPoint(read_multi_point(t, o)?),
        "MULTILINESTRING" => Shape::MultiLineString(read_many(t, |t| read_line(t, o))?),
        "MULTIPOLYGON" => Shape::MultiPolygon(read_many(t, |t| read_polygon(t, o))?),
        _ => Shape::Collection(read_many(t, |t| {
            Ok(Geo {
                geography,
                shape: read_tagged(t, geography)?,
            })
        })?),
    })
}

/// `EMPTY`, or `(` items separated by `,` then `)`.
fn read_many<T>(
    t: &mut Tokens,
    mut item: impl FnMut(&mut Tokens) -> Result<T, GeoError>,
) -> Result<Vec<T>, GeoError> {
    if t.empty_or_opener()? {
        return Ok(Vec::new());
    }
    let mut items = vec![item(t)?];
    while t.comma_or_closer()? {
        items.push(item(t)?);
    }
    Ok(items)
}

fn read_coord(t: &mut Tokens, o: Ordinates, try_paren: bool) -> Result<Coord, GeoError> {
    let opened = try_paren && t.peek() == Token::Char('(');
    if opened {
        t.next();
    }
    let c = (t.number()?, t.number()?);
    if o.z {
        t.number()?;
    }
    if o.m {
        t.number()?;
    }
    if !o.z && !o.m && matches!(t.peek(), Token::Word(_)) {
        // JTS's old syntax: a third number without a Z tag is a z ordinate.
        t.number()?;
    }
    if opened {
        let word = t.word()?;
        if word != ")" {
            return t.expected(")", &Token::Word(word));
        }
    }
    Ok(c)
}

fn read_sequence(t: &mut Tokens, o: Ordinates) -> Result<Vec<Coord>, GeoError> {
    read_many(t, |t| read_coord(t, o, false))
}

fn read_point(t: &mut Tokens, o: Ordinates) -> Result<Option<Coord>, GeoError> {
    let coords = read_sequence(t, o)?;
    match coords[..] {
        [] => Ok(None),
        [c] => Ok(Some(c)),
        _ => err("Point coordinate list must contain a single element"),
    }
}

fn read_line(t: &mut Tokens, o: Ordinates) -> Result<Vec<Coord>, GeoError> {
    let line = read_sequence(t, o)?;
    check_line(&line)?;
    Ok(line)
}

fn read_ring(t: &mut Tokens, o: Ordinates) -> Result<Vec<Coord>, GeoError> {
    let ring = read_sequence(t, o)?;
    check_ring(&ring)?;
    Ok(ring)
}

fn read_polygon(t: &mut Tokens, o: Ordinates) -> Result<Vec<Vec<Coord>>, GeoError> {
    make_polygon(read_many(t, |t| read_ring(t, o))?)
}

fn read_multi_point(t: &mut Tokens, o: Ordinates) -> Result<Vec<Option<Coord>>, GeoError> {
    if t.empty_or_opener()? {
        return Ok(Vec::new());
    }
    let bracketed = match t.peek() {
        Token::Char('(') => true,
        Token::Word(w) => w.eq_ignore_ascii_case("EMPTY"),
        _ => false,
    };
    let mut points = Vec::new();
    loop {
        points.push(if bracketed {
            read_point(t, o)?
        } else {
            // JTS's old syntax: MULTIPOINT (1 2, 3 4), each point optionally in parentheses.
            Some(read_coord(t, o, true)?)
        });
        if !t.comma_or_closer()? {
            return Ok(points);
        }
    }
}

// ---------------------------------------------------------------- GeoJSON

/// JTS's `GeoJsonWriter.write`: `type`, `coordinates` (or `geometries`), then the `crs` naming
/// the SRID (`EPSG:0` for geometries, `EPSG:4326` for geographies).
pub(crate) fn to_geojson(geo: &Geo) -> String {
    let mut out = String::new();
    write_geojson(&geo.shape, Some(geo.geography), &mut out);
    out
}

fn write_geojson(shape: &Shape, crs: Option<bool>, out: &mut String) {
    let _ = write!(out, "{{\"type\":\"{}\",", shape.type_name());
    match shape {
        Shape::Collection(members) => {
            out.push_str("\"geometries\":[");
            for (i, member) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_geojson(&member.shape, None, out);
            }
            out.push(']');
        }
        _ => {
            out.push_str("\"coordinates\":");
            out.push_str(&geojson_coordinates(shape));
        }
    }
    if let Some(geography) = crs {
        let srid = if geography { 4326 } else { 0 };
        let _ = write!(
            out,
            ",\"crs\":{{\"type\":\"name\",\"properties\":{{\"name\":\"EPSG:{srid}\"}}}}"
        );
    }
    out.push('}');
}

/// JTS's coordinate-sequence text: nothing for no point, `[x,y]` for one, `[[x,y],…]` for more.
fn geojson_sequence(coords: &[Coord]) -> String {
    let points: Vec<String> = coords
        .iter()
        .map(|(x, y)| format!("[{},{}]", geojson_number(*x), geojson_number(*y)))
        .collect();
    if points.len() > 1 {
        format!("[{}]", points.join(","))
    } else {
        points.concat()
    }
}

fn geojson_polygon(rings: &[Vec<Coord>]) -> String {
    if rings.is_empty() {
        // The empty polygon's (empty) shell.
        return "[]".into();
    }
    let rings: Vec<String> = rings.iter().map(|r| geojson_sequence(r)).collect();
    format!("[{}]", rings.join(","))
}

fn geojson_coordinates(shape: &Shape) -> String {
    let list = |items: Vec<String>| format!("[{}]", items.join(","));
    match shape {
        Shape::Point(None) => "[]".into(),
        Shape::Point(Some(c)) => geojson_sequence(std::slice::from_ref(c)),
        Shape::LineString(line) if line.is_empty() => "[]".into(),
        Shape::LineString(line) => geojson_sequence(line),
        Shape::Polygon(rings) => geojson_polygon(rings),
        Shape::MultiPoint(points) => list(
            points
                .iter()
                .map(|p| geojson_sequence(p.as_slice()))
                .collect(),
        ),
        Shape::MultiLineString(lines) => list(lines.iter().map(|l| geojson_sequence(l)).collect()),
        Shape::MultiPolygon(polygons) => {
            list(polygons.iter().map(|p| geojson_polygon(p)).collect())
        }
        Shape::Collection(_) => "[]".into(),
    }
}

/// JTS's `GeoJsonReader.read` with a fixed factory (a `crs` member is ignored). Features give
/// their geometry, feature collections a collection of theirs.
pub(crate) fn from_geojson(text: &str, geography: bool) -> Result<Geo, GeoError> {
    let json: Json = serde_json::from_str(text).map_err(|e| GeoError(e.to_string()))?;
    if !json.is_object() {
        return err("Could not parse Geometry from Json string.");
    }
    Ok(Geo {
        geography,
        shape: geojson_shape(&json, geography)?,
    })
}

fn geojson_shape(json: &Json, geography: bool) -> Result<Shape, GeoError> {
    let Some(kind) = json.get("type") else {
        return err("Could not parse Geometry from Json string.  No 'type' property found.");
    };
    let Some(kind) = kind.as_str() else {
        return err("Could not parse Geometry from Json string.");
    };
    let coordinates = json.get("coordinates").filter(|c| !c.is_null());
    let fail = |what: &str| GeoError(format!("Could not parse {what} from GeoJson string."));
    let shape = match kind {
        "Point" => geojson_point(coordinates).ok_or_else(|| fail("Point"))?,
        "LineString" => {
            let line = geojson_sequence_of(coordinates).ok_or_else(|| fail("LineString"))?;
            check_line(&line).map_err(|_| fail("LineString"))?;
            Shape::LineString(line)
        }
        "Polygon" => match coordinates {
            None => Shape::Polygon(Vec::new()),
            Some(c) => Shape::Polygon(geojson_rings(c).ok_or_else(|| fail("Polygon"))?),
        },
        "MultiPoint" => {
            let points = geojson_sequence_of(coordinates).ok_or_else(|| fail("MultiPoint"))?;
            Shape::MultiPoint(points.into_iter().map(Some).collect())
        }
        "MultiLineString" => {
            let lines = coordinates
                .and_then(Json::as_array)
                .and_then(|lines| {
                    lines
                        .iter()
                        .map(|l| geojson_sequence_of(Some(l)).filter(|l| check_line(l).is_ok()))
                        .collect::<Option<Vec<_>>>()
                })
                .ok_or_else(|| fail("MultiLineString"))?;
            Shape::MultiLineString(lines)
        }
        "MultiPolygon" => {
            let polygons = coordinates
                .and_then(Json::as_array)
                .and_then(|polygons| {
                    polygons
                        .iter()
                        .map(|p| geojson_rings(p).filter(|rings| !rings.is_empty()))
                        .collect::<Option<Vec<_>>>()
                })
                .ok_or_else(|| fail("MultiPolygon"))?;
            Shape::MultiPolygon(polygons)
        }
        "GeometryCollection" => {
            let members = json
                .get("geometries")
                .and_then(Json::as_array)
                .ok_or_else(|| fail("GeometryCollection"))?
                .iter()
                .map(|g| {
                    Ok(Geo {
                        geography,
                        shape: geojson_shape(g, geography)?,
                    })
                })
                .collect::<Result<_, GeoError>>()
                .map_err(|_| fail("GeometryCollection"))?;
            Shape::Collection(members)
        }
        "Feature" => json
            .get("geometry")
            .filter(|g| g.is_object())
            .ok_or_else(|| fail("Feature"))
            .and_then(|g| geojson_shape(g, geography).map_err(|_| fail("Feature")))?,
        "FeatureCollection" => {
            let members = json
                .get("features")
                .and_then(Json::as_array)
                .ok_or_else(|| fail("FeatureCollection"))?
                .iter()
                .map(|f| {
                    let geometry = f.get("geometry").filter(|g| g.is_object());
                    let shape = geometry.map(|g| geojson_shape(g, geography));
                    match shape {
                        Some(Ok(shape)) => Ok(Geo { geography, shape }),
                        _ => Err(fail("FeatureCollection")),
                    }
                })
                .collect::<Result<_, GeoError>>()?;
            Shape::Collection(members)
        }
        other => {
            return err(format!(
                "Could not parse Geometry from GeoJson string.  Unsupported 'type':{other}"
            ));
        }
    };
    Ok(shape)
}

/// One position: missing ordinates are 0, as in a fresh JTS coordinate.
fn geojson_position(json: &Json) -> Option<Coord> {
    let ordinates = json.as_array()?;
    let ordinate = |i: usize| ordinates.get(i).map_or(Some(0.0), Json::as_f64);
    Some((ordinate(0)?, ordinate(1)?))
}

fn geojson_point(coordinates: Option<&Json>) -> Option<Shape> {
    match coordinates {
        None => Some(Shape::Point(None)),
        Some(c) if c.as_array()?.is_empty() => Some(Shape::Point(None)),
        Some(c) => Some(Shape::Point(Some(geojson_position(c)?))),
    }
}

fn geojson_sequence_of(coordinates: Option<&Json>) -> Option<Vec<Coord>> {
    match coordinates {
        None => Some(Vec::new()),
        Some(c) => c.as_array()?.iter().map(geojson_position).collect(),
    }
}

fn geojson_rings(json: &Json) -> Option<Vec<Vec<Coord>>> {
    let rings = json
        .as_array()?
        .iter()
        .map(|r| geojson_sequence_of(Some(r)))
        .collect::<Option<Vec<_>>>()?;
    make_polygon(rings).ok()
}
