//! `STUNION`'s geometry: the union of many serialized geometries (Pinot's
//! `StUnionAggregationFunction`, JTS's `union` folded over the rows), kept as one serialized
//! geometry per group so a group's state stays one value however many rows it reads.
//!
//! Polygons are unioned by `geo`'s boolean operations (one overlay of all of them); lines keep
//! the parts outside the polygons; points those covered by neither. The result is the simplest
//! shape that holds it — a polygon, a multi-polygon, a line string, …, or a collection when
//! dimensions mix — and a geography when the first geometry read is one.
//!
//! JTS's overlay is not reproduced byte for byte: the same region comes back, but a ring may start
//! at another vertex, and crossing lines are not split at their crossing (JTS nodes them). Pinot's
//! own test of `STUNION` checks the bytes JTS wrote; here the tests check the region.

use super::geo_shape::{Coord, Geo, Shape};
use super::{geometry, guarded, planar, serialized};
use crate::functions::FunctionError;
use geo::{BooleanOps, Intersects};
use segments::types::Value;

const NAME: &str = "STUnion";

/// The union of the geometries among `values` (NULLs skipped, arrays read element by element);
/// `None` when there is none.
pub fn st_union(values: &[Value]) -> Result<Option<Value>, FunctionError> {
    let mut geography = None;
    let mut parts = Parts::default();
    for value in values.iter().flat_map(|v| match v {
        Value::Array(items) => items.as_slice(),
        other => std::slice::from_ref(other),
    }) {
        if value.is_null() {
            continue;
        }
        let geo = geometry(NAME, value)?;
        geography.get_or_insert(geo.geography);
        parts.add(&planar(NAME, &geo)?);
    }
    let Some(geography) = geography else {
        return Ok(None);
    };
    let shape = guarded(NAME, || parts.union())?;
    serialized(NAME, &Geo { geography, shape }).map(Some)
}

/// STUNION of no rows without null handling: Pinot's empty point (`POINT EMPTY`, NaN NaN).
pub fn empty_geometry() -> Value {
    let empty = Geo {
        geography: false,
        shape: Shape::Point(None),
    };
    serialized(NAME, &empty).unwrap_or(Value::Null)
}

/// The geometries read so far, by dimension.
#[derive(Default)]
struct Parts {
    polygons: Vec<geo::Polygon<f64>>,
    lines: Vec<geo::LineString<f64>>,
    points: Vec<geo::Point<f64>>,
}

impl Parts {
    fn add(&mut self, g: &geo::Geometry<f64>) {
        use geo::Geometry as G;
        match g {
            G::Point(p) => self.points.push(*p),
            G::MultiPoint(ps) => self.points.extend(ps.iter().copied()),
            G::Line(l) => self.lines.push(geo::LineString::from(vec![l.start, l.end])),
            G::LineString(l) => self.lines.push(l.clone()),
            G::MultiLineString(ls) => self.lines.extend(ls.iter().cloned()),
            G::Polygon(p) => self.polygons.push(p.clone()),
            G::MultiPolygon(ps) => self.polygons.extend(ps.iter().cloned()),
            G::Rect(r) => self.polygons.push(r.to_polygon()),
            G::Triangle(t) => self.polygons.push(t.to_polygon()),
            G::GeometryCollection(gs) => gs.iter().for_each(|g| self.add(g)),
        }
    }

    /// The union as one shape.
    fn union(self) -> Shape {
        let polygons: geo::MultiPolygon<f64> = if self.polygons.is_empty() {
            geo::MultiPolygon::new(Vec::new())
        } else {
            geo::unary_union(self.polygons.iter().filter(|p| !p.exterior().0.is_empty()))
        };
        let lines = geo::MultiLineString::new(self.lines);
        let lines = if polygons.0.is_empty() {
            lines
        } else {
            polygons.clip(&lines, true)
        };
        let mut points: Vec<geo::Point<f64>> = Vec::new();
        for p in self.points {
            let covered =
                polygons.intersects(&p) || lines.intersects(&p) || points.iter().any(|q| q == &p);
            if !covered {
                points.push(p);
            }
        }
        let mut members: Vec<Shape> = Vec::new();
        match polygons.0.len() {
            0 => {}
            1 => members.push(Shape::Polygon(rings(&polygons.0[0]))),
            _ => members.push(Shape::MultiPolygon(polygons.0.iter().map(rings).collect())),
        }
        let lines: Vec<Vec<Coord>> = lines
            .0
            .iter()
            .filter(|l| l.0.len() > 1)
            .map(|l| l.0.iter().map(|c| (c.x, c.y)).collect())
            .collect();
        match lines.len() {
            0 => {}
            1 => members.push(Shape::LineString(
                lines.into_iter().next().unwrap_or_default(),
            )),
            _ => members.push(Shape::MultiLineString(lines)),
        }
        match points.len() {
            0 => {}
            1 => members.push(Shape::Point(Some((points[0].x(), points[0].y())))),
            _ => members.push(Shape::MultiPoint(
                points.iter().map(|p| Some((p.x(), p.y()))).collect(),
            )),
        }
        match members.len() {
            // Everything read was empty: JTS's union of empties is empty.
            0 => Shape::Point(None),
            1 => members.pop().unwrap_or(Shape::Point(None)),
            _ => Shape::Collection(
                members
                    .into_iter()
                    .map(|shape| Geo {
                        geography: false,
                        shape,
                    })
                    .collect(),
            ),
        }
    }
}

/// A polygon's rings, shell first, each closed.
fn rings(p: &geo::Polygon<f64>) -> Vec<Vec<Coord>> {
    std::iter::once(p.exterior())
        .chain(p.interiors())
        .map(|r| r.0.iter().map(|c| (c.x, c.y)).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::geo_shape::{deserialize, serialize};
    use super::*;

    fn wkt(text: &str, geography: bool) -> Value {
        let f = crate::functions::lookup(if geography {
            "stGeogFromText"
        } else {
            "stGeomFromText"
        })
        .unwrap();
        f.eval(&[Value::String(text.into())]).unwrap()
    }

    fn shape_of(v: &Value) -> Geo {
        let Value::Bytes(b) = v else {
            panic!("not bytes: {v:?}")
        };
        deserialize(b).unwrap()
    }

    fn area(v: &Value) -> f64 {
        use geo::Area;
        planar(NAME, &shape_of(v)).unwrap().unsigned_area()
    }

    #[test]
    fn overlapping_polygons_become_one_region() {
        let a = wkt("POLYGON((0 0, 0 2, 2 2, 2 0, 0 0))", false);
        let b = wkt("POLYGON((1 1, 1 3, 3 3, 3 1, 1 1))", false);
        let far = wkt("POLYGON((10 10, 10 11, 11 11, 11 10, 10 10))", false);
        let u = st_union(&[a.clone(), b.clone()]).unwrap().unwrap();
        assert_eq!(shape_of(&u).shape.type_name(), "Polygon");
        assert!((area(&u) - 7.0).abs() < 1e-9, "{}", area(&u));
        let u = st_union(&[a.clone(), Value::Null, b, far])
            .unwrap()
            .unwrap();
        assert_eq!(shape_of(&u).shape.type_name(), "MultiPolygon");
        assert!((area(&u) - 8.0).abs() < 1e-9);
        // Folding one at a time gives the same region as all at once.
        let step = st_union(&[u.clone(), a]).unwrap().unwrap();
        assert!((area(&step) - 8.0).abs() < 1e-9);
    }

    #[test]
    fn pinots_test_polygons_union_to_its_two_parts() {
        // GeoSpatialTest's five polygons: a triangle with and without a hole, squares inside it,
        // and one in California: the union is the whole triangle and the Californian polygon.
        let inputs = [
            "POLYGON((0 0, 0 1, 1 1, 1 0, 0 0))",
            "POLYGON((-122.150124 37.486095, -122.149201 37.486606, -122.145725 37.486580, \
             -122.145923 37.483961, -122.149324 37.482480, -122.150837 37.483238, \
             -122.150901 37.485392, -122.150124 37.486095))",
            "POLYGON((0 0, 0.008993201943349 0, 0.008993201943349 0.008993201943349, \
             0 0.008993201943349, 0 0))",
            "POLYGON((90 0, 0 0, 0 90, 90 0))",
            "POLYGON((90 0, 0 0, 0 90, 90 0), (89 1, 1 1, 1 89, 89 1))",
        ];
        let values: Vec<Value> = (0..1000).map(|i| wkt(inputs[i % 5], true)).collect();
        let u = st_union(&values).unwrap().unwrap();
        let g = shape_of(&u);
        assert!(g.geography);
        let Shape::MultiPolygon(parts) = &g.shape else {
            panic!("{:?}", g.shape)
        };
        assert_eq!(parts.len(), 2);
        assert!(parts.iter().all(|rings| rings.len() == 1), "no holes left");
        let californian = area(&wkt(inputs[1], true));
        assert!(californian > 0.0);
        assert!(
            (area(&u) - (4050.0 + californian)).abs() < 1e-9,
            "{}",
            area(&u)
        );
        // Pinot's result starts with its type byte (geography multi-polygon) and two parts.
        let Value::Bytes(bytes) = &u else { panic!() };
        assert_eq!(&bytes[..5], &[0x85, 0, 0, 0, 2]);
    }

    #[test]
    fn lines_and_points_outside_the_polygons_stay() {
        let square = wkt("POLYGON((0 0, 0 2, 2 2, 2 0, 0 0))", false);
        let line = wkt("LINESTRING(1 1, 5 1)", false);
        let inside = wkt("POINT(1 1.5)", false);
        let outside = wkt("POINT(7 7)", false);
        let u = st_union(&[square, line, inside, outside.clone(), outside])
            .unwrap()
            .unwrap();
        let Shape::Collection(members) = shape_of(&u).shape else {
            panic!()
        };
        let kinds: Vec<_> = members.iter().map(|m| m.shape.type_name()).collect();
        assert_eq!(kinds, ["Polygon", "LineString", "Point"]);
        assert_eq!(
            members[1].shape,
            Shape::LineString(vec![(2.0, 1.0), (5.0, 1.0)])
        );
        assert_eq!(members[2].shape, Shape::Point(Some((7.0, 7.0))));
    }

    #[test]
    fn nothing_bad_input_and_empties() {
        assert_eq!(st_union(&[]).unwrap(), None);
        assert_eq!(st_union(&[Value::Null]).unwrap(), None);
        assert!(st_union(&[Value::Bytes(vec![9, 9])]).is_err());
        let empty = empty_geometry();
        assert_eq!(
            empty,
            Value::Bytes(
                serialize(&Geo {
                    geography: false,
                    shape: Shape::Point(None),
                })
                .unwrap()
            )
        );
        let u = st_union(&[empty]).unwrap().unwrap();
        assert_eq!(shape_of(&u).shape, Shape::Point(None));
    }
}
