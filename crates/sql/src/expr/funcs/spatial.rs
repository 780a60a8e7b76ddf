//! Spatial functions, with MariaDB 10.11's names, values and result types: spatial values made
//! from well-known text and binary and from coordinates (ST_GeomFromText, ST_GeomFromWKB,
//! POINT), and read back (ST_AsText, ST_AsBinary, ST_SRID, ST_X, ST_Y, ST_GeometryType). The
//! values themselves are `base::geometry`'s.

use base::geometry;
use base::Value;
use myproto::response::types;

use super::int_arg;
use crate::expr::{as_double, Env, Expr};
use crate::foundation::error::SqlError;

type Result<T> = std::result::Result<T, SqlError>;

/// Spatial functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpatialFn {
    /// ST_GeomFromText and its aliases (the kind-named ones too: MariaDB 10.11 checks no kind).
    FromText,
    /// ST_GeomFromWKB and its aliases.
    FromWkb,
    /// POINT(x, y).
    Point,
    AsText,
    AsBinary,
    Srid,
    X,
    Y,
    GeometryType,
}

/// The kinds' names in the functions named after them (ST_PointFromText, MPolyFromWKB, ...).
const KIND_NAMES: [&str; 14] = [
    "geom",
    "geometry",
    "point",
    "line",
    "linestring",
    "poly",
    "polygon",
    "mpoint",
    "multipoint",
    "mline",
    "multilinestring",
    "mpoly",
    "multipolygon",
    "geomcoll",
];

impl SpatialFn {
    /// The function a name calls, with its least and most arguments.
    pub(crate) fn from_name(name: &str) -> Option<(SpatialFn, usize, usize)> {
        use SpatialFn::*;
        let plain = name.strip_prefix("st_").unwrap_or(name);
        let made = |suffix: &str| {
            plain
                .strip_suffix(suffix)
                .is_some_and(|kind| KIND_NAMES.contains(&kind) || kind == "geometrycollection")
        };
        Some(match plain {
            _ if made("fromtext") => (FromText, 1, 2),
            _ if made("fromwkb") => (FromWkb, 1, 2),
            "point" if name == plain => (Point, 2, 2),
            "astext" | "aswkt" => (AsText, 1, 1),
            "asbinary" | "aswkb" => (AsBinary, 1, 1),
            "srid" => (Srid, 1, 1),
            "x" => (X, 1, 1),
            "y" => (Y, 1, 1),
            "geometrytype" => (GeometryType, 1, 1),
            _ => return None,
        })
    }

    /// Whether the result is a spatial value.
    pub(crate) fn makes_geometry(self) -> bool {
        matches!(
            self,
            SpatialFn::FromText | SpatialFn::FromWkb | SpatialFn::Point
        )
    }

    /// Whether the result is a binary string (a spatial value or its WKB).
    pub(crate) fn binary_result(self) -> bool {
        self.makes_geometry() || self == SpatialFn::AsBinary
    }

    /// Whether the result is text.
    pub(crate) fn text_result(self) -> bool {
        matches!(self, SpatialFn::AsText | SpatialFn::GeometryType)
    }

    /// The name MariaDB's error 4079 gives the operation, when some types of first argument
    /// are refused (None for POINT, which takes numbers).
    pub(crate) fn spatial_operation(self) -> Option<&'static str> {
        Some(match self {
            SpatialFn::FromText => "st_geometryfromtext",
            SpatialFn::AsText => "st_astext",
            SpatialFn::AsBinary => "st_aswkb",
            SpatialFn::Srid => "srid",
            SpatialFn::X => "st_x",
            SpatialFn::Y => "st_y",
            SpatialFn::GeometryType => "st_geometrytype",
            SpatialFn::FromWkb => "st_geometryfromwkb",
            SpatialFn::Point => return None,
        })
    }
}

/// MariaDB's 4079: an argument of a type the operation does not take.
pub(crate) fn illegal_type(type_name: &str, operation: &str) -> SqlError {
    SqlError::new(
        4079,
        "HY000",
        format!("Illegal parameter data type {type_name} for operation '{operation}'"),
    )
}

/// The SRID argument: an integer cut to 32 bits, as MariaDB keeps it (NULL is 0).
fn srid_arg(v: &Value) -> u32 {
    if v.is_null() {
        0
    } else {
        int_arg(v) as u32
    }
}

pub(crate) fn call(f: SpatialFn, args: &[Expr], env: &Env) -> Result<Value> {
    let mut v = Vec::with_capacity(args.len());
    for a in args {
        v.push(a.eval(env)?);
    }
    if v[0].is_null() || (f == SpatialFn::Point && v[1].is_null()) {
        return Ok(Value::Null);
    }
    let srid = v.get(1).map_or(0, srid_arg);
    // The argument's bytes, borrowed when it is a string (a spatial value may be megabytes).
    let b: std::borrow::Cow<[u8]> = match &v[0] {
        Value::Bytes(b) => b.into(),
        other => base::text::value_text(other).unwrap_or_default().into(),
    };
    let text = |s: String| Value::Bytes(s.into_bytes());
    let double = |d: Option<f64>| d.map_or(Value::Null, Value::Double);
    Ok(match f {
        SpatialFn::FromText => geometry::from_wkt(&b, srid).map_or(Value::Null, Value::Bytes),
        SpatialFn::FromWkb => geometry::from_wkb(&b, srid).map_or(Value::Null, Value::Bytes),
        SpatialFn::Point => Value::Bytes(geometry::point(as_double(&v[0]), as_double(&v[1]), 0)),
        SpatialFn::AsText => geometry::to_wkt(&b).map_or(Value::Null, text),
        SpatialFn::AsBinary => {
            geometry::to_wkb(&b).map_or(Value::Null, |w| Value::Bytes(w.to_vec()))
        }
        SpatialFn::Srid => geometry::srid_of(&b).map_or(Value::Null, |s| Value::Int(s.into())),
        SpatialFn::X => double(geometry::point_of(&b).map(|p| p.0)),
        SpatialFn::Y => double(geometry::point_of(&b).map(|p| p.1)),
        SpatialFn::GeometryType => {
            geometry::kind_of(&b).map_or(Value::Null, |k| text(k.name().to_string()))
        }
    })
}

/// MariaDB's result type: (type code, display length, decimals).
pub(crate) fn result_type(f: SpatialFn) -> (u8, u32, u8) {
    match f {
        SpatialFn::FromText | SpatialFn::FromWkb | SpatialFn::Point => {
            (types::GEOMETRY, u32::MAX, 0)
        }
        SpatialFn::AsText => (types::LONG_BLOB, u32::MAX, 39),
        SpatialFn::AsBinary => (types::LONG_BLOB, u32::MAX, 0),
        SpatialFn::Srid => (types::LONG, 10, 0),
        SpatialFn::X | SpatialFn::Y => (types::DOUBLE, 23, 31),
        SpatialFn::GeometryType => (types::VAR_STRING, 80, 39),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_mariadb_knows_them() {
        for (name, f) in [
            ("st_geomfromtext", SpatialFn::FromText),
            ("geometryfromtext", SpatialFn::FromText),
            ("st_linefromtext", SpatialFn::FromText),
            ("mpolyfromtext", SpatialFn::FromText),
            ("st_geometrycollectionfromtext", SpatialFn::FromText),
            ("st_pointfromwkb", SpatialFn::FromWkb),
            ("point", SpatialFn::Point),
            ("astext", SpatialFn::AsText),
            ("st_aswkb", SpatialFn::AsBinary),
            ("st_srid", SpatialFn::Srid),
            ("x", SpatialFn::X),
        ] {
            assert_eq!(SpatialFn::from_name(name).map(|t| t.0), Some(f), "{name}");
        }
        assert_eq!(SpatialFn::from_name("st_point"), None);
        assert_eq!(SpatialFn::from_name("fromtext"), None);
        assert_eq!(SpatialFn::from_name("z"), None);
    }
}
