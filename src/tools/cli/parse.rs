//! One parser per syntax the command line reads. Each error says what the flag wants and what
//! it got, phrased to follow the flag's name: the command line prints
//! "chiffon: error: --grid wants COLUMNSxROWS with each a whole number of at least 2 (e.g.
//! 64x64), not \"-5x5\"". Bounds beyond the syntax (a frequency's range, a mass's) are the
//! library's: it checks them and names the parameter.

use glam::Vec3;

/// `AxB` with whole numbers of at least `min` each (a grid's `COLUMNSxROWS`, a window's
/// `WIDTHxHEIGHT`); `example` shows one.
pub fn pair(s: &str, what: &str, min: u32, example: &str) -> Result<(u32, u32), String> {
    let bad = || {
        format!(
            "wants {what} with each a whole number of at least {min} (e.g. {example}), not {s:?}"
        )
    };
    let (a, b) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let n = |v: &str| v.trim().parse::<u32>().ok().filter(|&n| n >= min);
    Ok((n(a).ok_or_else(bad)?, n(b).ok_or_else(bad)?))
}

/// A grid's `COLUMNSxROWS`, each at least 2.
pub fn grid(s: &str) -> Result<(u32, u32), String> {
    pair(s, "COLUMNSxROWS", 2, "64x64")
}

/// A picture's `WIDTHxHEIGHT` in pixels.
pub fn size(s: &str) -> Result<(u32, u32), String> {
    pair(s, "WIDTHxHEIGHT", 1, "1280x720")
}

/// One finite number (a 32-bit float: at most about 3.4e38 in size).
pub fn number(s: &str) -> Result<f32, String> {
    let x: f64 = s
        .trim()
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite())
        .ok_or_else(|| format!("wants a finite number, not {s:?}"))?;
    if x.abs() > f32::MAX as f64 {
        return Err(format!(
            "wants a number of at most {:e} in size, not {s:?}",
            f32::MAX
        ));
    }
    Ok(x as f32)
}

/// `count` comma-separated finite numbers, `what` naming them (`x,y,z`).
pub fn numbers(s: &str, count: usize, what: &str) -> Result<Vec<f32>, String> {
    let bad = || format!("wants {what}: {count} finite numbers separated by commas, not {s:?}");
    let v: Vec<f32> = s
        .split(',')
        .map(|p| number(p).ok())
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    if v.len() != count {
        return Err(bad());
    }
    Ok(v)
}

/// `x,y,z`, finite.
pub fn vec3(s: &str) -> Result<Vec3, String> {
    numbers(s, 3, "x,y,z").map(|v| Vec3::new(v[0], v[1], v[2]))
}

/// `on` or `off`.
pub fn on_off(s: &str) -> Result<bool, String> {
    match s.trim() {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("wants on or off, not {s:?}")),
    }
}

/// A whole number of at least `min` (a count: frames, sizes, flags per side, a seed).
pub fn count(s: &str, min: u64) -> Result<u64, String> {
    s.trim()
        .parse::<u64>()
        .ok()
        .filter(|&n| n >= min)
        .ok_or_else(|| format!("wants a whole number of at least {min}, not {s:?}"))
}

/// A whole number of at least `min` that fits a `u32` (iterations, substeps, a grid side).
pub fn count_u32(s: &str, min: u32) -> Result<u32, String> {
    let n = count(s, min.into())?;
    u32::try_from(n).map_err(|_| format!("wants a whole number of at most {}, not {s:?}", u32::MAX))
}

/// A count in memory (`usize`) of at least `min`.
pub fn count_usize(s: &str, min: usize) -> Result<usize, String> {
    count(s, min as u64).and_then(|n| {
        usize::try_from(n)
            .map_err(|_| format!("wants a whole number up to {}, not {s:?}", usize::MAX))
    })
}

/// A value that may be `none`: `Maybe(None)` for `none`, else what `parse` reads (whose
/// "wants ..." message gains "or none").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Maybe<T>(pub Option<T>);

/// Reads `none`, or a value with `parse`.
pub fn maybe<T>(s: &str, parse: impl Fn(&str) -> Result<T, String>) -> Result<Maybe<T>, String> {
    if s.trim() == "none" {
        return Ok(Maybe(None));
    }
    parse(s)
        .map(|v| Maybe(Some(v)))
        .map_err(|e| match e.split_once(", not ") {
            Some((wants, got)) => format!("{wants}, or none, not {got}"),
            None => e,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_syntax_says_what_it_wants() {
        assert_eq!(grid("64x32"), Ok((64, 32)));
        assert!(
            grid("-5x5")
                .unwrap_err()
                .starts_with("wants COLUMNSxROWS with each")
        );
        assert!(grid("1x5").is_err());
        assert!(grid("5x").is_err());
        assert_eq!(size("1280x720"), Ok((1280, 720)));
        assert_eq!(vec3("1, -2,3"), Ok(Vec3::new(1.0, -2.0, 3.0)));
        assert!(vec3("1,2").is_err());
        assert!(vec3("1,nan,2").is_err());
        assert!(vec3("1;2;3").unwrap_err().contains("x,y,z"));
        assert_eq!(number("-0.5"), Ok(-0.5));
        assert!(number("inf").is_err());
        assert!(number("").is_err());
        assert_eq!(on_off("off"), Ok(false));
        assert!(on_off("yes").is_err());
        assert_eq!(count("12", 1), Ok(12));
        assert!(count("-1", 1).unwrap_err().contains("whole number"));
        assert!(count_u32("4294967296", 0).is_err());
        assert_eq!(maybe("none", number), Ok(Maybe(None)));
        assert_eq!(maybe("-0.2", number), Ok(Maybe(Some(-0.2))));
        assert_eq!(
            maybe("low", number).unwrap_err(),
            "wants a finite number, or none, not \"low\""
        );
    }
}
