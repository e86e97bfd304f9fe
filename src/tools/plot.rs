//! Saving plots as SVG or PNG (by extension) with plotters. PNG text uses a font embedded in
//! the binary (egui's Hack), so PNGs need no system fonts; SVGs name `sans-serif` and leave it
//! to the viewer.

use std::path::Path;
use std::sync::Once;

use plotters::coord::CoordTranslate;
use plotters::prelude::*;

use crate::error::{ChiffonError, Result};

/// The extensions [`save`] writes.
pub const EXTENSIONS: [&str; 2] = ["svg", "png"];

/// Registers the PNG font under the family every plot asks for (`sans-serif`).
///
/// Monospace, because plotters 0.3.7's rasterizer places each glyph's ink at the pen position,
/// dropping its left side bearing: a proportional font's letters then run together ("cl" of
/// "particles" became a "d", "cpu" a "φu" in Ubuntu Light at 14 to 16 px), while a monospace
/// glyph fills most of its cell and loses little.
fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is valid TTF shipped by egui; a failure here would be a packaging bug.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            epaint_default_fonts::HACK_REGULAR,
        );
    });
}

fn plot_error(path: &Path, e: impl std::fmt::Display) -> ChiffonError {
    ChiffonError::InvalidParameter {
        name: "plot",
        reason: format!("{}: {e}", path.display()),
    }
}

/// Refuses an output file before anything is computed for it: `path` must end in one of
/// `extensions`, not be a folder, and be writable in an existing folder. `flag` names it in
/// the error (e.g. `--plot`). Nothing is left behind: a file created to test the folder is
/// removed, and an existing file is opened for appending, not truncated.
pub fn check_output(path: &Path, flag: &'static str, extensions: &[&str]) -> Result<()> {
    let bad = |reason: String| ChiffonError::InvalidParameter {
        name: flag,
        reason: format!("{}: {reason}", path.display()),
    };
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if !extensions.contains(&ext) {
        let list: Vec<String> = extensions.iter().map(|e| format!(".{e}")).collect();
        return Err(bad(format!("must end in {}", list.join(" or "))));
    }
    if path.is_dir() {
        return Err(bad("is a folder".into()));
    }
    // Opened for writing, a named pipe would wait for a reader (forever), and a device is not
    // replaced by the rename the write ends with: only a regular file, or none, is written.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(bad(
            "is not a regular file (a pipe or a device); chiffon writes a temporary file and \
             renames it over the target, which needs a file"
                .into(),
        ));
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return Err(bad(format!("no folder {}", folder.display())));
    }
    let open = if path.exists() {
        std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map(|_| ())
    } else {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .and_then(|_| std::fs::remove_file(path))
    };
    open.map_err(|e| bad(format!("cannot be written ({e})")))
}

/// Refuses a plot path [`save`] could not write (see [`check_output`]).
pub fn check_path(path: &Path, flag: &'static str) -> Result<()> {
    check_output(path, flag, &EXTENSIONS)
}

/// Result of drawing a figure.
pub type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

/// Something that can draw itself on any plotters backend.
pub trait Figure {
    /// Draws onto `area`.
    fn draw<DB: DrawingBackend>(&self, area: DrawingArea<DB, plotters::coord::Shift>) -> DrawResult
    where
        DB::ErrorType: 'static;
}

/// Draws `figure` onto an SVG or PNG file at `path` (chosen by extension) of `size` pixels.
pub fn save(path: &Path, size: (u32, u32), figure: &impl Figure) -> Result<()> {
    register_font();
    // Drawn into memory, then written atomically (a temporary file renamed over the
    // target), as every output of chiffon: a full disk leaves the old file, not half a plot.
    match path.extension().and_then(|e| e.to_str()) {
        Some("svg") => {
            let mut svg = String::new();
            figure
                .draw(SVGBackend::with_string(&mut svg, size).into_drawing_area())
                .map_err(|e| plot_error(path, e))?;
            crate::export::write_atomic(path, svg.as_bytes())
        }
        Some("png") => {
            // Drawn into memory, then encoded: plotters' own PNG encoder would bring a second
            // `image` crate into the build.
            let mut rgb = vec![0u8; size.0 as usize * size.1 as usize * 3];
            figure
                .draw(BitMapBackend::with_buffer(&mut rgb, size).into_drawing_area())
                .map_err(|e| plot_error(path, e))?;
            super::png::write(path, size, super::png::Channels::Rgb, &rgb)
                .map_err(|e| plot_error(path, e))
        }
        _ => Err(plot_error(path, "a plot must end in .svg or .png")),
    }
}

/// The smallest and largest x and y of `points`: `(x0, x1, y0, y1)`; with no points, x0 > x1.
fn bounds<'a>(points: impl IntoIterator<Item = &'a (f64, f64)>) -> (f64, f64, f64, f64) {
    points.into_iter().fold(
        (f64::MAX, f64::MIN, f64::MAX, f64::MIN),
        |(a, b, c, d), p| (a.min(p.0), b.max(p.0), c.min(p.1), d.max(p.1)),
    )
}

/// Draws `chart`'s legend, as every plot frames it: at `position`, on white of `opacity`
/// inside a black border, its labels `font_size` pixels high.
pub fn draw_legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
    opacity: f64,
    font_size: u32,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(opacity))
        .border_style(BLACK)
        .label_font(("sans-serif", font_size))
        .draw()?;
    Ok(())
}

/// Named series of (x, y) points drawn as lines on linear axes.
pub struct Lines<'a> {
    /// Caption.
    pub title: &'a str,
    /// X axis label.
    pub x_desc: &'a str,
    /// Y axis label.
    pub y_desc: &'a str,
    /// (name, points), one line each.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

impl Figure for Lines<'_> {
    fn draw<DB: DrawingBackend>(&self, area: DrawingArea<DB, plotters::coord::Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        area.fill(&WHITE)?;
        let (x0, x1, y0, y1) = bounds(self.series.iter().flat_map(|s| s.1.iter()));
        if x0 > x1 {
            return Ok(());
        }
        let pad = ((y1 - y0) * 0.08).max(1e-9);
        let mut chart = ChartBuilder::on(&area)
            .caption(self.title, ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1, y0 - pad..y1 + pad)?;
        chart
            .configure_mesh()
            .x_desc(self.x_desc)
            .y_desc(self.y_desc)
            .label_style(("sans-serif", 13))
            .draw()?;
        let colors = [&BLUE, &RED, &GREEN, &MAGENTA, &BLACK, &CYAN];
        for (k, (name, points)) in self.series.iter().enumerate() {
            let color = colors[k % colors.len()];
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    color.stroke_width(2),
                ))?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2))
                });
        }
        draw_legend(&mut chart, SeriesLabelPosition::LowerRight, 0.85, 14)?;
        area.present()?;
        Ok(())
    }
}

/// One line of a [`LogLog`] panel.
pub struct Series {
    /// Legend text.
    pub name: String,
    /// Line and marker color.
    pub color: RGBColor,
    /// Drawn thin and half transparent (a reference beside the main lines).
    pub faint: bool,
    /// (x, y) points, both positive.
    pub points: Vec<(f64, f64)>,
}

/// One chart of a [`LogLog`] figure.
pub struct Panel {
    /// Caption.
    pub title: String,
    /// X axis label.
    pub x_desc: String,
    /// Y axis label.
    pub y_desc: String,
    /// The lines; empty ones are left out.
    pub series: Vec<Series>,
}

/// Side-by-side log-log charts of lines with markers (the benchmark's plots).
pub struct LogLog {
    /// The charts, left to right.
    pub panels: Vec<Panel>,
}

/// A log axis tick: 1, 2 and 5 times a power of ten only (plotters may put a tick at every
/// integer multiple, whose labels then overlap), plain below 10⁴ (counts such as 1, 10, 100
/// capes), `2e5` above.
fn log_tick(v: &f64) -> String {
    let v = *v;
    if !(v.is_finite() && v > 0.0) {
        return String::new();
    }
    let mantissa = v / 10f64.powf(v.log10().floor());
    if ![1.0, 2.0, 5.0, 10.0]
        .iter()
        .any(|m| (mantissa - m).abs() < 1e-6 * m)
    {
        return String::new();
    }
    if !(1e-2..1e4).contains(&v) {
        format!("{v:.0e}")
    } else {
        let s = format!("{v:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

impl Figure for LogLog {
    fn draw<DB: DrawingBackend>(&self, area: DrawingArea<DB, plotters::coord::Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        area.fill(&WHITE)?;
        let areas = area.split_evenly((1, self.panels.len().max(1)));
        for (panel, area) in self.panels.iter().zip(&areas) {
            let all: Vec<(f64, f64)> = panel
                .series
                .iter()
                .flat_map(|s| s.points.iter().copied())
                .filter(|p| p.0 > 0.0 && p.1 > 0.0 && p.0.is_finite() && p.1.is_finite())
                .collect();
            if all.is_empty() {
                continue;
            }
            let (x0, x1, y0, y1) = bounds(&all);
            let mut chart = ChartBuilder::on(area)
                .caption(&panel.title, ("sans-serif", 22))
                .margin(12)
                .x_label_area_size(44)
                .y_label_area_size(74)
                .build_cartesian_2d(
                    (x0 / 1.5..x1 * 1.5).log_scale(),
                    (y0 / 2.0..y1 * 2.0).log_scale(),
                )?;
            chart
                .configure_mesh()
                .x_desc(panel.x_desc.as_str())
                .y_desc(panel.y_desc.as_str())
                .x_label_formatter(&log_tick)
                .y_label_formatter(&log_tick)
                .label_style(("sans-serif", 14))
                .axis_desc_style(("sans-serif", 15))
                .draw()?;
            for s in panel.series.iter().filter(|s| !s.points.is_empty()) {
                let style = if s.faint {
                    s.color.mix(0.5).stroke_width(1)
                } else {
                    s.color.stroke_width(2)
                };
                chart
                    .draw_series(LineSeries::new(s.points.iter().copied(), style))?
                    .label(s.name.as_str())
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], style));
                chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 4, style.filled())))?;
            }
            draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, 0.8, 14)?;
        }
        area.present()?;
        Ok(())
    }
}
