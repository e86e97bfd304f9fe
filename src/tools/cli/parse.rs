//! One parser per syntax the command line reads, each returning a message that says what the
//! value should look like. Flags name themselves in clap's error ("invalid value 'x' for
//! '--grid <COLUMNSxROWS>': ..."), so these messages say only what is wrong.

use glam::Vec3;

/// `AxB` with whole numbers of at least `min` each (a grid's `COLUMNSxROWS`, a window's
/// `WIDTHxHEIGHT`).
pub fn pair(s: &str, what: &str, min: u32) -> Result<(u32, u32), String> {
    let bad = || format!("{s:?} is not {what} (two whole numbers of at least {min}, e.g. 64x64)");
    let (a, b) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let n = |v: &str| v.trim().parse::<u32>().ok().filter(|&n| n >= min);
    Ok((n(a).ok_or_else(bad)?, n(b).ok_or_else(bad)?))
}

/// A grid's `COLUMNSxROWS`, each at least 2.
pub fn grid(s: &str) -> Result<(u32, u32), String> {
    pair(s, "COLUMNSxROWS", 2)
}

/// A picture's `WIDTHxHEIGHT` in pixels.
pub fn size(s: &str) -> Result<(u32, u32), String> {
    pair(s, "WIDTHxHEIGHT", 1)
}

/// `count` comma-separated finite numbers.
pub fn numbers(s: &str, count: usize, what: &str) -> Result<Vec<f32>, String> {
    let v: Vec<f32> = s
        .split(',')
        .map(|p| p.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("{s:?} is not {what}"))?;
    if v.len() != count {
        return Err(format!("{s:?} is not {what} ({count} numbers)"));
    }
    if v.iter().any(|x| !x.is_finite()) {
        return Err(format!("{s:?}: every number of {what} must be finite"));
    }
    Ok(v)
}

/// `x,y,z`, finite.
pub fn vec3(s: &str) -> Result<Vec3, String> {
    numbers(s, 3, "x,y,z").map(|v| Vec3::new(v[0], v[1], v[2]))
}

/// `on` or `off`.
pub fn on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("{s:?} is not on or off")),
    }
}

/// A whole number of at least `min` (a count: frames, sizes, flags per side).
pub fn count(s: &str, min: u64) -> Result<u64, String> {
    s.trim()
        .parse::<u64>()
        .ok()
        .filter(|&n| n >= min)
        .ok_or_else(|| format!("{s:?} is not a whole number of at least {min}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_syntax_says_what_it_wants() {
        assert_eq!(grid("64x32"), Ok((64, 32)));
        assert!(grid("-5x5").unwrap_err().contains("COLUMNSxROWS"));
        assert!(grid("1x5").is_err());
        assert_eq!(size("1280x720"), Ok((1280, 720)));
        assert_eq!(vec3("1, -2,3"), Ok(Vec3::new(1.0, -2.0, 3.0)));
        assert!(vec3("1,2").is_err());
        assert!(vec3("1,nan,2").is_err());
        assert_eq!(on_off("off"), Ok(false));
        assert_eq!(count("12", 1), Ok(12));
        assert!(count("-1", 1).unwrap_err().contains("whole number"));
    }
}
