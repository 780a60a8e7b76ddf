//! Spatial values, what GEOMETRY, POINT, LINESTRING, POLYGON and the MULTI- and collection
//! columns hold: MySQL's form, a 4-byte SRID then the OGC well-known binary (WKB, little
//! endian), read against bounds set by the value's own length, and made from and shown as
//! well-known text (WKT) with MariaDB 10.11's grammar and number forms.

use crate::text::value_text;
use crate::value::Value;

/// The bytes before the WKB: the spatial reference id, little endian.
pub const SRID_BYTES: usize = 4;
/// One point's two coordinates in WKB.
const POINT_BYTES: usize = 16;
/// The most collections WKB may hold one in another (MariaDB reads nested ones from WKB,
/// never from WKT).
pub const COLLECTION_DEPTH_MAX: usize = 32;

/// A spatial column's kind: which values it takes (GEOMETRY takes every kind). The numbers of
/// all but GEOMETRY are WKB's type codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GeometryKind {
    Geometry = 0,
    Point = 1,
    LineString = 2,
    Polygon = 3,
    MultiPoint = 4,
    MultiLineString = 5,
    MultiPolygon = 6,
    GeometryCollection = 7,
}

impl GeometryKind {
    pub const ALL: [GeometryKind; 8] = [
        GeometryKind::Geometry,
        GeometryKind::Point,
        GeometryKind::LineString,
        GeometryKind::Polygon,
        GeometryKind::MultiPoint,
        GeometryKind::MultiLineString,
        GeometryKind::MultiPolygon,
        GeometryKind::GeometryCollection,
    ];

    pub fn from_u8(n: u8) -> Option<GeometryKind> {
        GeometryKind::ALL.get(usize::from(n)).copied()
    }

    /// The kind a type name (`point`, `GEOMETRY`, any case) declares.
    pub fn from_name(name: &str) -> Option<GeometryKind> {
        GeometryKind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(name))
    }

    /// The name in capitals, as ST_GeometryType and WKT write it.
    pub fn name(self) -> &'static str {
        match self {
            GeometryKind::Geometry => "GEOMETRY",
            GeometryKind::Point => "POINT",
            GeometryKind::LineString => "LINESTRING",
            GeometryKind::Polygon => "POLYGON",
            GeometryKind::MultiPoint => "MULTIPOINT",
            GeometryKind::MultiLineString => "MULTILINESTRING",
            GeometryKind::MultiPolygon => "MULTIPOLYGON",
            GeometryKind::GeometryCollection => "GEOMETRYCOLLECTION",
        }
    }

    /// The type's name as SHOW CREATE TABLE and information_schema write it.
    pub fn sql_name(self) -> String {
        self.name().to_ascii_lowercase()
    }

    /// Whether a column of this kind takes a value of kind `value`: GEOMETRY and, as in
    /// MariaDB, GEOMETRYCOLLECTION take every kind.
    pub fn holds(self, value: GeometryKind) -> bool {
        matches!(
            self,
            GeometryKind::Geometry | GeometryKind::GeometryCollection
        ) || self == value
    }

    /// The fewest WKB bytes a geometry of this kind takes (an empty collection's 9).
    fn least_bytes(self) -> usize {
        match self {
            GeometryKind::Point => 5 + POINT_BYTES,
            GeometryKind::LineString => 9 + POINT_BYTES,
            GeometryKind::Polygon => 13 + POINT_BYTES,
            _ => 9,
        }
    }

    /// The kind each member of a MULTI- kind has.
    fn member(self) -> Option<GeometryKind> {
        match self {
            GeometryKind::MultiPoint => Some(GeometryKind::Point),
            GeometryKind::MultiLineString => Some(GeometryKind::LineString),
            GeometryKind::MultiPolygon => Some(GeometryKind::Polygon),
            _ => None,
        }
    }
}

/// A spatial column: its kind, and the SRID its values must have when it declares one
/// (MySQL 8's `SRID n` attribute).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GeometryColumn {
    pub kind: GeometryKind,
    pub srid: Option<u32>,
}

/// A spatial value read: its shape, coordinates in order.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    Point(f64, f64),
    LineString(Vec<(f64, f64)>),
    Polygon(Vec<Vec<(f64, f64)>>),
    /// A MULTI- kind or a collection, with its members.
    Many(GeometryKind, Vec<Shape>),
}

impl Shape {
    fn kind(&self) -> GeometryKind {
        match self {
            Shape::Point(..) => GeometryKind::Point,
            Shape::LineString(_) => GeometryKind::LineString,
            Shape::Polygon(_) => GeometryKind::Polygon,
            Shape::Many(kind, _) => *kind,
        }
    }

    fn put_wkb(&self, out: &mut Vec<u8>) {
        out.push(1);
        out.extend_from_slice(&(self.kind() as u32).to_le_bytes());
        let points = |out: &mut Vec<u8>, ps: &[(f64, f64)]| {
            out.extend_from_slice(&(ps.len() as u32).to_le_bytes());
            for (x, y) in ps {
                out.extend_from_slice(&x.to_le_bytes());
                out.extend_from_slice(&y.to_le_bytes());
            }
        };
        match self {
            Shape::Point(x, y) => {
                out.extend_from_slice(&x.to_le_bytes());
                out.extend_from_slice(&y.to_le_bytes());
            }
            Shape::LineString(ps) => points(out, ps),
            Shape::Polygon(rings) => {
                out.extend_from_slice(&(rings.len() as u32).to_le_bytes());
                for ring in rings {
                    points(out, ring);
                }
            }
            Shape::Many(_, members) => {
                out.extend_from_slice(&(members.len() as u32).to_le_bytes());
                for m in members {
                    m.put_wkb(out);
                }
            }
        }
    }

    /// The WKT of the shape without its kind's name: `(1 2)`, `((0 0,1 0,0 0))`.
    fn put_wkt_body(&self, out: &mut String) {
        let point = |out: &mut String, (x, y): (f64, f64)| {
            out.push_str(&number(x));
            out.push(' ');
            out.push_str(&number(y));
        };
        let points = |out: &mut String, ps: &[(f64, f64)]| {
            out.push('(');
            for (i, p) in ps.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                point(out, *p);
            }
            out.push(')');
        };
        match self {
            Shape::Point(x, y) => points(out, &[(*x, *y)]),
            Shape::LineString(ps) => points(out, ps),
            Shape::Polygon(rings) => {
                out.push('(');
                for (i, ring) in rings.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    points(out, ring);
                }
                out.push(')');
            }
            Shape::Many(GeometryKind::GeometryCollection, members) if members.is_empty() => {
                out.push_str(" EMPTY");
            }
            Shape::Many(kind, members) => {
                out.push('(');
                for (i, m) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    match (kind, m) {
                        // A MULTIPOINT's points are written bare: MULTIPOINT(1 1,2 2).
                        (GeometryKind::MultiPoint, Shape::Point(x, y)) => point(out, (*x, *y)),
                        (GeometryKind::GeometryCollection, m) => {
                            out.push_str(m.kind().name());
                            m.put_wkt_body(out);
                        }
                        (_, m) => m.put_wkt_body(out),
                    }
                }
                out.push(')');
            }
        }
    }
}

/// A coordinate as MariaDB writes it in WKT: as it shows a DOUBLE.
fn number(v: f64) -> String {
    String::from_utf8(value_text(&Value::Double(v)).unwrap_or_default()).unwrap_or_default()
}

/// A reader of WKB, each count checked against the bytes left before anything is kept.
struct Wkb<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Wkb<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.at.checked_add(n)?;
        let b = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(b)
    }

    fn u32(&mut self, little: bool) -> Option<u32> {
        let b: [u8; 4] = self.take(4)?.try_into().ok()?;
        Some(if little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    fn f64(&mut self, little: bool) -> Option<f64> {
        let b: [u8; 8] = self.take(8)?.try_into().ok()?;
        let v = if little {
            f64::from_le_bytes(b)
        } else {
            f64::from_be_bytes(b)
        };
        v.is_finite().then_some(v)
    }

    /// A count of items of at least `each` bytes, refused when the bytes left cannot hold
    /// them.
    fn count(&mut self, little: bool, each: usize) -> Option<usize> {
        let n = self.u32(little)? as usize;
        (n.checked_mul(each)? <= self.bytes.len() - self.at).then_some(n)
    }

    fn points(&mut self, little: bool) -> Option<Vec<(f64, f64)>> {
        let n = self.count(little, POINT_BYTES)?;
        if n == 0 {
            return None;
        }
        let mut ps = Vec::with_capacity(n);
        for _ in 0..n {
            ps.push((self.f64(little)?, self.f64(little)?));
        }
        Some(ps)
    }

    /// One geometry; `inside` is the kind of the one holding it, if any (a MULTI- kind holds
    /// only its members' kind), and `depth` how many collections hold it.
    fn shape(&mut self, inside: Option<GeometryKind>, depth: usize) -> Option<Shape> {
        let little = match self.take(1)?[0] {
            0 => false,
            1 => true,
            _ => return None,
        };
        let code = self.u32(little)?;
        let kind = GeometryKind::from_u8(u8::try_from(code).ok()?)
            .filter(|k| *k != GeometryKind::Geometry)?;
        match inside {
            Some(GeometryKind::GeometryCollection) | None => {}
            Some(holder) if holder.member() != Some(kind) => return None,
            Some(_) => {}
        }
        Some(match kind {
            GeometryKind::Point => Shape::Point(self.f64(little)?, self.f64(little)?),
            GeometryKind::LineString => Shape::LineString(self.points(little)?),
            GeometryKind::Polygon => {
                let n = self.count(little, 4 + POINT_BYTES)?;
                if n == 0 {
                    return None;
                }
                let mut rings = Vec::with_capacity(n);
                for _ in 0..n {
                    // A ring ends where it starts, as MariaDB's WKB reader checks.
                    let ring = self.points(little)?;
                    if ring.first() != ring.last() {
                        return None;
                    }
                    rings.push(ring);
                }
                Shape::Polygon(rings)
            }
            _ => {
                if kind == GeometryKind::GeometryCollection && depth >= COLLECTION_DEPTH_MAX {
                    return None;
                }
                let least = kind.member().map_or(9, GeometryKind::least_bytes);
                let n = self.count(little, least)?;
                if n == 0 && kind != GeometryKind::GeometryCollection {
                    return None;
                }
                let mut members = Vec::with_capacity(n);
                for _ in 0..n {
                    members.push(self.shape(Some(kind), depth + 1)?);
                }
                Shape::Many(kind, members)
            }
        })
    }
}

/// The value's SRID and shape when it is a whole spatial value (SRID, then WKB with nothing
/// after it).
fn read(value: &[u8]) -> Option<(u32, Shape)> {
    let srid = u32::from_le_bytes(value.get(..SRID_BYTES)?.try_into().ok()?);
    let mut r = Wkb {
        bytes: &value[SRID_BYTES..],
        at: 0,
    };
    let shape = r.shape(None, 0)?;
    (r.at == r.bytes.len()).then_some((srid, shape))
}

fn value_of(srid: u32, shape: &Shape) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(&srid.to_le_bytes());
    shape.put_wkb(&mut out);
    out
}

/// The kind of a spatial value, None when `value` is no whole, well-formed one.
pub fn kind_of(value: &[u8]) -> Option<GeometryKind> {
    read(value).map(|(_, s)| s.kind())
}

/// A spatial value's kind and SRID, read once (None when `value` is none).
pub fn kind_and_srid(value: &[u8]) -> Option<(GeometryKind, u32)> {
    read(value).map(|(srid, s)| (s.kind(), srid))
}

/// A spatial value's SRID (None when `value` is none).
pub fn srid_of(value: &[u8]) -> Option<u32> {
    read(value).map(|(srid, _)| srid)
}

/// The WKT of a spatial value (None when `value` is none).
pub fn to_wkt(value: &[u8]) -> Option<String> {
    let (_, shape) = read(value)?;
    let mut out = String::from(shape.kind().name());
    shape.put_wkt_body(&mut out);
    Some(out)
}

/// A spatial value's WKB, little endian (None when `value` is none).
pub fn to_wkb(value: &[u8]) -> Option<&[u8]> {
    read(value).map(|_| &value[SRID_BYTES..])
}

/// A point's coordinates (None when `value` is no point).
pub fn point_of(value: &[u8]) -> Option<(f64, f64)> {
    match read(value)?.1 {
        Shape::Point(x, y) => Some((x, y)),
        _ => None,
    }
}

/// The spatial value of a point.
pub fn point(x: f64, y: f64, srid: u32) -> Vec<u8> {
    value_of(srid, &Shape::Point(x, y))
}

/// The spatial value WKB in either byte order stands for, with `srid`; bytes after the
/// geometry are ignored, as MariaDB's ST_GeomFromWKB ignores them. None when it is no WKB.
pub fn from_wkb(wkb: &[u8], srid: u32) -> Option<Vec<u8>> {
    let shape = Wkb { bytes: wkb, at: 0 }.shape(None, 0)?;
    Some(value_of(srid, &shape))
}

/// The spatial value WKT stands for, with `srid`, read as MariaDB 10.11 reads it: names in
/// any case, spaces anywhere between tokens, numbers as strtod reads them from a digit or a
/// sign, polygon rings closed, `GEOMETRYCOLLECTION EMPTY`, no collection in a collection, and
/// text after the geometry ignored. None when it is no WKT.
pub fn from_wkt(text: &[u8], srid: u32) -> Option<Vec<u8>> {
    let mut r = Wkt { text, at: 0 };
    let shape = r.shape(false)?;
    Some(value_of(srid, &shape))
}

/// A reader of WKT.
struct Wkt<'a> {
    text: &'a [u8],
    at: usize,
}

impl Wkt<'_> {
    fn skip_spaces(&mut self) {
        while self
            .text
            .get(self.at)
            .is_some_and(|b| b.is_ascii_whitespace())
        {
            self.at += 1;
        }
    }

    /// Whether the next token is `c` (taken when it is).
    fn eat(&mut self, c: u8) -> bool {
        self.skip_spaces();
        let found = self.text.get(self.at) == Some(&c);
        if found {
            self.at += 1;
        }
        found
    }

    fn word(&mut self) -> &[u8] {
        self.skip_spaces();
        let start = self.at;
        while self
            .text
            .get(self.at)
            .is_some_and(|b| b.is_ascii_alphabetic())
        {
            self.at += 1;
        }
        &self.text[start..self.at]
    }

    /// A number: digits, an optional fraction and exponent; after a sign, as strtod reads it
    /// (`-.5`, which MariaDB takes, where it takes no `.5`).
    fn number(&mut self) -> Option<f64> {
        self.skip_spaces();
        let start = self.at;
        let digits = |r: &mut Self| {
            let from = r.at;
            while r.text.get(r.at).is_some_and(u8::is_ascii_digit) {
                r.at += 1;
            }
            r.at > from
        };
        let signed = matches!(self.text.get(self.at), Some(b'+' | b'-'));
        if signed {
            self.at += 1;
        }
        let mut any = digits(self);
        if !any && !signed {
            return None;
        }
        if self.text.get(self.at) == Some(&b'.') {
            self.at += 1;
            any |= digits(self);
        }
        if !any {
            return None;
        }
        if matches!(self.text.get(self.at), Some(b'e' | b'E')) {
            let mark = self.at;
            self.at += 1;
            if matches!(self.text.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !digits(self) {
                self.at = mark;
            }
        }
        let v: f64 = std::str::from_utf8(&self.text[start..self.at])
            .ok()?
            .parse()
            .ok()?;
        v.is_finite().then_some(v)
    }

    fn coordinates(&mut self) -> Option<(f64, f64)> {
        Some((self.number()?, self.number()?))
    }

    /// `(x y, x y, ...)`: at least one point.
    fn points(&mut self) -> Option<Vec<(f64, f64)>> {
        if !self.eat(b'(') {
            return None;
        }
        let mut ps = vec![self.coordinates()?];
        while self.eat(b',') {
            ps.push(self.coordinates()?);
        }
        self.eat(b')').then_some(ps)
    }

    /// `((ring), (ring), ...)`, each ring closed.
    fn rings(&mut self) -> Option<Vec<Vec<(f64, f64)>>> {
        if !self.eat(b'(') {
            return None;
        }
        let mut rings = Vec::new();
        loop {
            let ring = self.points()?;
            if ring.first() != ring.last() {
                return None;
            }
            rings.push(ring);
            if !self.eat(b',') {
                break;
            }
        }
        self.eat(b')').then_some(rings)
    }

    /// `(member, member, ...)` of a MULTI- kind or a collection.
    fn members(&mut self, kind: GeometryKind) -> Option<Vec<Shape>> {
        if !self.eat(b'(') {
            return None;
        }
        let mut members = Vec::new();
        if kind == GeometryKind::GeometryCollection && self.eat(b')') {
            return Some(members);
        }
        loop {
            members.push(match kind {
                GeometryKind::MultiPoint => {
                    let (x, y) = self.coordinates()?;
                    Shape::Point(x, y)
                }
                GeometryKind::MultiLineString => Shape::LineString(self.points()?),
                GeometryKind::MultiPolygon => Shape::Polygon(self.rings()?),
                _ => self.shape(true)?,
            });
            if !self.eat(b',') {
                break;
            }
        }
        self.eat(b')').then_some(members)
    }

    /// A geometry; `in_collection` when a collection holds it (and so it is none).
    fn shape(&mut self, in_collection: bool) -> Option<Shape> {
        let word = self.word();
        let kind = std::str::from_utf8(word)
            .ok()
            .and_then(GeometryKind::from_name)?;
        Some(match kind {
            GeometryKind::Geometry => return None,
            GeometryKind::Point => {
                if !self.eat(b'(') {
                    return None;
                }
                let (x, y) = self.coordinates()?;
                if !self.eat(b')') {
                    return None;
                }
                Shape::Point(x, y)
            }
            GeometryKind::LineString => Shape::LineString(self.points()?),
            GeometryKind::Polygon => Shape::Polygon(self.rings()?),
            GeometryKind::GeometryCollection if in_collection => return None,
            GeometryKind::GeometryCollection => {
                let mark = self.at;
                if self.word().eq_ignore_ascii_case(b"EMPTY") {
                    Shape::Many(kind, Vec::new())
                } else {
                    self.at = mark;
                    Shape::Many(kind, self.members(kind)?)
                }
            }
            _ => Shape::Many(kind, self.members(kind)?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wkt(text: &str) -> Option<String> {
        to_wkt(&from_wkt(text.as_bytes(), 0)?)
    }

    #[test]
    fn text_reads_and_writes_as_mariadb() {
        assert_eq!(wkt("point(1 2)").as_deref(), Some("POINT(1 2)"));
        assert_eq!(wkt(" POINT ( 1   2 ) x").as_deref(), Some("POINT(1 2)"));
        assert_eq!(wkt("POINT(1-2)").as_deref(), Some("POINT(1 -2)"));
        assert_eq!(wkt("POINT(-.5 +.5e1)").as_deref(), Some("POINT(-0.5 5)"));
        assert_eq!(wkt("POINT(-5. 1)").as_deref(), Some("POINT(-5 1)"));
        assert_eq!(wkt("POINT(-1e2 2E-1)").as_deref(), Some("POINT(-100 0.2)"));
        assert_eq!(
            wkt("LINESTRING(1.1 1.1, 2.2 2.2)").as_deref(),
            Some("LINESTRING(1.1 1.1,2.2 2.2)")
        );
        assert_eq!(
            wkt("POLYGON((0 0,10 0,10 10,0 0),(5 5,7 5, 5 5))").as_deref(),
            Some("POLYGON((0 0,10 0,10 10,0 0),(5 5,7 5,5 5))")
        );
        assert_eq!(
            wkt("MULTIPOINT(1 1, 2 2)").as_deref(),
            Some("MULTIPOINT(1 1,2 2)")
        );
        assert_eq!(
            wkt("MULTIPOLYGON(((0 0,1 0,0 0)),((1 1)))").as_deref(),
            Some("MULTIPOLYGON(((0 0,1 0,0 0)),((1 1)))")
        );
        assert_eq!(
            wkt("GEOMETRYCOLLECTION(POINT(1 2),MULTIPOINT(1 1,2 2))").as_deref(),
            Some("GEOMETRYCOLLECTION(POINT(1 2),MULTIPOINT(1 1,2 2))")
        );
        assert_eq!(
            wkt("GEOMETRYCOLLECTION()").as_deref(),
            Some("GEOMETRYCOLLECTION EMPTY")
        );
        assert_eq!(
            wkt("GEOMETRYCOLLECTION EMPTY").as_deref(),
            Some("GEOMETRYCOLLECTION EMPTY")
        );
        for bad in [
            "POINT(1)",
            "POINT EMPTY",
            "POINT(1 2 3)",
            "POINT(.5 2)",
            "POINT(-. 2)",
            "POINT(1e 2)",
            "POINT(- 1 2)",
            "POINT(1e400 2)",
            "POINT(1--2)",
            "LINESTRING()",
            "POLYGON((0 0,1 1))",
            "POLYGON(())",
            "MULTIPOINT((1 1),(2 2))",
            "MULTIPOINT EMPTY",
            "GEOMETRYCOLLECTION(GEOMETRYCOLLECTION(POINT(1 1)))",
            "GEOMETRY(1 1)",
            "",
        ] {
            assert_eq!(wkt(bad), None, "{bad}");
        }
    }

    #[test]
    fn values_are_srid_then_little_endian_wkb() {
        let v = from_wkt(b"POINT(1 2)", 4326).unwrap();
        assert_eq!(v.len(), 25);
        assert_eq!(srid_of(&v), Some(4326));
        assert_eq!(kind_of(&v), Some(GeometryKind::Point));
        assert_eq!(point_of(&v), Some((1.0, 2.0)));
        assert_eq!(v, point(1.0, 2.0, 4326));
        // Big-endian WKB reads as the same value; trailing bytes of a whole value do not.
        let big = [
            0u8, 0, 0, 0, 1, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0,
        ];
        assert_eq!(from_wkb(&big, 4326), Some(v.clone()));
        let mut longer = v.clone();
        longer.push(0);
        assert_eq!(kind_of(&longer), None);
        assert_eq!(kind_of(&v[..v.len() - 1]), None);
        // A count larger than the bytes left is refused before anything is kept.
        let mut huge = vec![0u8; 4];
        huge.extend_from_slice(&[1, 2, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]);
        assert_eq!(kind_of(&huge), None);
        assert_eq!(kind_of(b"abc"), None);
    }

    #[test]
    fn wkb_nests_collections_to_a_bound_and_closes_rings() {
        // GEOMETRYCOLLECTION(GEOMETRYCOLLECTION EMPTY): read from WKB, as MariaDB does.
        let nested = [1u8, 7, 0, 0, 0, 1, 0, 0, 0, 1, 7, 0, 0, 0, 0, 0, 0, 0];
        let v = from_wkb(&nested, 0).unwrap();
        assert_eq!(
            to_wkt(&v).as_deref(),
            Some("GEOMETRYCOLLECTION(GEOMETRYCOLLECTION EMPTY)")
        );
        let deep = |depth: usize| {
            let mut w = Vec::new();
            for _ in 0..depth {
                w.extend_from_slice(&[1, 7, 0, 0, 0, 1, 0, 0, 0]);
            }
            w.extend_from_slice(&[1, 7, 0, 0, 0, 0, 0, 0, 0]);
            w
        };
        // deep(n) is n + 1 collections, one in another.
        assert!(from_wkb(&deep(COLLECTION_DEPTH_MAX - 1), 0).is_some());
        assert_eq!(from_wkb(&deep(COLLECTION_DEPTH_MAX), 0), None);
        // POLYGON((0 0,1 1,1 0)) in WKB: its ring does not close.
        let mut open = vec![1u8, 3, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0];
        for (x, y) in [(0.0f64, 0.0f64), (1.0, 1.0), (1.0, 0.0)] {
            open.extend_from_slice(&x.to_le_bytes());
            open.extend_from_slice(&y.to_le_bytes());
        }
        assert_eq!(from_wkb(&open, 0), None);
        assert!(GeometryKind::GeometryCollection.holds(GeometryKind::Point));
        assert!(!GeometryKind::MultiPoint.holds(GeometryKind::Point));
    }
}
