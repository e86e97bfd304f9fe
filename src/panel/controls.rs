//! The panel's rows: the HUD, and the rows that edit [`Settings`]. Buttons that need more
//! than a setting changed return an [`Action`]. Which window system feeds egui its input and
//! who draws it is the caller's affair (`tools/demo/panel.rs` with winit, the web page with
//! the browser's events); both draw it with [`super::PanelRenderer`].

use super::settings::{Action, Settings};
use crate::integrator::Integrator;
use crate::params::Projection;
use crate::quality::Stretch;
use crate::scenes::DemoScene;
use crate::world::World;

/// What the HUD says about the world's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Particles of all cloths.
    pub particles: usize,
    /// Constraints of all cloths.
    pub constraints: usize,
    /// The most colors of one cloth.
    pub colors: usize,
    /// Cloths in the world.
    pub cloths: usize,
}

impl Counts {
    /// The counts of `world`'s cloths.
    pub fn of(world: &World) -> Counts {
        let cloths = world.handles();
        let (constraints, colors) = cloths
            .iter()
            .filter_map(|&h| world.cloth(h).ok())
            .fold((0, 0), |(m, c), cloth| {
                (m + cloth.constraint_count(), c.max(cloth.colors().len()))
            });
        Counts {
            particles: world.particle_count(),
            constraints,
            colors,
            cloths: cloths.len(),
        }
    }
}

/// How to use the mouse and the keys, the panel's last lines.
pub const HELP: [&str; 2] = [
    "drag cloth: grab  ·  drag elsewhere / right-drag: orbit  ·  wheel: zoom",
    "Space pause · N step · R reset · W wind · P pins · arrows move the sphere",
];

/// What the HUD shows at the top of the panel.
pub struct Hud<'a> {
    pub fps: f64,
    /// Solver time per frame from GPU timestamps, where the adapter has them.
    pub solver_ms: Option<f64>,
    pub stretch: Option<Stretch>,
    pub counts: Counts,
    /// Whether the cloths' own pins are held (the pin button's label).
    pub pins_held: bool,
    pub adapter: &'a str,
    /// A warning line (the CPU adapter's smaller default grid, a mesh file that could not be
    /// read).
    pub note: Option<&'a str>,
    /// The adapter's limits, as `chiffon info` prints them, folded under the adapter's name.
    pub limits: Option<&'a str>,
    /// How to use the mouse and the keys (the page adds dropping a mesh file).
    pub help: &'a [&'a str],
}

/// The panel's window, top to bottom.
pub fn controls(ctx: &egui::Context, s: &mut Settings, hud: &Hud, actions: &mut Vec<Action>) {
    egui::Window::new("chiffon")
        .default_pos([12.0, 12.0])
        .default_width(280.0)
        // Taller than a small window or a laptop's browser: it scrolls.
        .vscroll(true)
        .show(ctx, |ui| {
            hud_rows(ui, hud);
            ui.separator();
            run_rows(ui, s, hud, actions);
            scene_rows(ui, s, actions);
            solver_rows(ui, s);
            force_rows(ui, s);
            s.colliders.rows(ui);
            ui.separator();
            for line in hud.help {
                ui.small(*line);
            }
        });
}

fn hud_rows(ui: &mut egui::Ui, hud: &Hud) {
    ui.label(format!("{:.0} fps", hud.fps));
    ui.label(match hud.solver_ms {
        Some(ms) => format!("solver: {ms:.2} ms/frame (GPU timestamps)"),
        None => "solver: no GPU timestamps on this adapter".into(),
    });
    if let Some(st) = hud.stretch {
        ui.label(format!(
            "stretch: max {:.3}, p99 {:.3}, mean {:.4}",
            st.max, st.p99, st.mean
        ));
    }
    let c = hud.counts;
    if c.cloths > 1 {
        ui.label(format!(
            "{} cloths, {} particles, {} constraints, up to {} colors (one world)",
            c.cloths, c.particles, c.constraints, c.colors
        ));
    } else {
        ui.label(format!(
            "{} particles, {} constraints, {} colors",
            c.particles, c.constraints, c.colors
        ));
    }
    ui.label(format!("adapter: {}", hud.adapter));
    if let Some(limits) = hud.limits {
        ui.collapsing("adapter and limits", |ui| {
            ui.label(egui::RichText::new(limits).monospace().small());
        });
    }
    if let Some(note) = hud.note {
        ui.colored_label(egui::Color32::from_rgb(230, 180, 80), note);
    }
}

/// Pause, step, reset and the pin toggle.
fn run_rows(ui: &mut egui::Ui, s: &mut Settings, hud: &Hud, actions: &mut Vec<Action>) {
    ui.horizontal(|ui| {
        if ui.button(if s.paused { "Run" } else { "Pause" }).clicked() {
            s.paused = !s.paused;
        }
        if ui.button("Step").clicked() {
            s.step_once = true;
        }
        if ui.button("Reset").clicked() {
            actions.push(Action::Reset);
        }
        let grid = s.scene == DemoScene::Cloth && s.mesh.is_none();
        let pins = match (hud.pins_held, grid) {
            (true, true) => "Unpin corners",
            (false, true) => "Pin corners",
            (true, false) => "Release pins",
            (false, false) => "Pin again",
        };
        if ui.button(pins).clicked() {
            actions.push(Action::TogglePins);
        }
    });
}

/// The scene menu and the knobs of the scene shown.
fn scene_rows(ui: &mut egui::Ui, s: &mut Settings, actions: &mut Vec<Action>) {
    egui::ComboBox::from_label("scene")
        .selected_text(s.scene.name())
        .show_ui(ui, |ui| {
            for scene in DemoScene::ALL {
                if ui
                    .selectable_value(&mut s.scene, scene, scene.name())
                    .changed()
                {
                    actions.push(Action::Rebuild);
                }
            }
        });
    match s.scene {
        // A mesh has its own resolution.
        DemoScene::Cloth if s.mesh.is_some() => {
            if ui.button("Back to the grid").clicked() {
                s.mesh = None;
                actions.push(Action::Rebuild);
            }
        }
        // The grid, the towel, the cape and the tablecloth take the resolution.
        DemoScene::Cloth | DemoScene::Heap | DemoScene::Character | DemoScene::Table => {
            egui::ComboBox::from_label("resolution")
                .selected_text(format!("{0}x{0}", s.grid))
                .show_ui(ui, |ui| {
                    for n in [32, 64, 128, 256, 512, 1024] {
                        if ui
                            .selectable_value(&mut s.grid, n, format!("{n}x{n}"))
                            .changed()
                        {
                            actions.push(Action::Rebuild);
                        }
                    }
                });
        }
        DemoScene::Flags => {
            ui.add(egui::Slider::new(&mut s.flags, 1..=32).text("flags per side"));
            if ui.button("Rebuild the field").clicked() {
                actions.push(Action::Rebuild);
            }
        }
    }
    // What holds the cloths: the edges, or the triangles (whose shear the compliance below
    // frees on any mesh).
    egui::ComboBox::from_label("membrane")
        .selected_text(s.membrane.name())
        .show_ui(ui, |ui| {
            for m in [crate::Membrane::Edges, crate::Membrane::Triangles] {
                if ui.selectable_value(&mut s.membrane, m, m.name()).changed() {
                    actions.push(Action::Rebuild);
                }
            }
        });
}

/// How the solver solves: integrator, frame time, substeps, iterations, damping, compliance,
/// projection, over-relaxation, tethers, coarse levels, self-collision.
fn solver_rows(ui: &mut egui::Ui, s: &mut Settings) {
    egui::ComboBox::from_label("integrator")
        .selected_text(s.solver.integrator.name())
        .show_ui(ui, |ui| {
            for integrator in Integrator::ALL {
                ui.selectable_value(&mut s.solver.integrator, integrator, integrator.name());
            }
        });
    ui.checkbox(&mut s.jitter, "frame-time jitter (random dt, 30-144 fps)");
    ui.checkbox(&mut s.use_frequency, "substeps from a solver frequency");
    if s.use_frequency {
        ui.add(
            egui::Slider::new(&mut s.frequency, 60.0..=2400.0)
                .logarithmic(true)
                .text("frequency (Hz)"),
        );
    } else {
        ui.add(egui::Slider::new(&mut s.fixed_substeps, 1..=32).text("substeps"));
    }
    ui.add(egui::Slider::new(&mut s.solver.iterations, 1..=50).text("iterations"));
    ui.add(egui::Slider::new(&mut s.solver.damping, 0.0..=5.0).text("damping (1/s)"));
    ui.label("compliance (m/N, 0 = rigid)");
    let c = &mut s.solver.compliance;
    for (value, name) in [
        (&mut c.stretch, "stretch"),
        (&mut c.shear, "shear"),
        (&mut c.bend, "bend (ropes, folds)"),
    ] {
        ui.add(
            egui::Slider::new(value, 0.0..=1.0)
                .logarithmic(true)
                .smallest_positive(1e-6)
                .text(name),
        );
    }
    // A sheet's bending: the inverse of its stiffness, so one value is one fabric at any size.
    ui.add(
        egui::Slider::new(&mut c.curvature, 0.0..=1e10)
            .logarithmic(true)
            .smallest_positive(1e2)
            .text("bending (1/(N·m))"),
    );
    egui::ComboBox::from_label("projection")
        .selected_text(s.solver.projection.name())
        .show_ui(ui, |ui| {
            for p in Projection::ALL {
                ui.selectable_value(&mut s.solver.projection, p, p.name());
            }
        });
    ui.add(egui::Slider::new(&mut s.solver.over_relaxation, 1.0..=1.9).text("over-relaxation"));
    ui.checkbox(&mut s.tethers_on, "tethers (long-range attachments)");
    ui.checkbox(&mut s.solver.coarse_levels, "coarse levels");
    ui.add(egui::Slider::new(&mut s.tether_scale, 1.0..=1.5).text("tether scale"));
    // On: every particle keeps the automatic thickness from the others (every cloth then takes
    // the global path).
    let mut self_collision = s.solver.self_collision.is_some();
    if ui
        .checkbox(&mut self_collision, "self-collision (and between cloths)")
        .changed()
    {
        s.solver.self_collision = self_collision.then(Default::default);
    }
}

/// Gravity and the air.
fn force_rows(ui: &mut egui::Ui, s: &mut Settings) {
    ui.add(egui::Slider::new(&mut s.gravity, 0.0..=30.0).text("gravity (m/s²)"));
    ui.checkbox(&mut s.wind_on, "air and wind (W)");
    ui.add(egui::Slider::new(&mut s.wind_strength, 0.0..=30.0).text("wind (m/s)"));
    ui.add(egui::Slider::new(&mut s.wind_heading_deg, -180.0..=180.0).text("wind heading (°)"));
    ui.add(egui::Slider::new(&mut s.gusts, 0.0..=1.0).text("gusts (× wind)"));
    ui.add(egui::Slider::new(&mut s.drag, 0.0..=3.0).text("drag C_d"));
    ui.add(egui::Slider::new(&mut s.lift, 0.0..=3.0).text("lift C_l"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenes::DemoScene;

    /// The panel, run headless: one egui pass per call, with the given events, on a 1280×800
    /// screen.
    struct Headless {
        ctx: egui::Context,
        hud_counts: Counts,
    }

    impl Headless {
        fn new() -> Self {
            Self {
                ctx: egui::Context::default(),
                hud_counts: Counts {
                    particles: 64,
                    constraints: 100,
                    colors: 8,
                    cloths: 1,
                },
            }
        }

        /// One pass: the events, then the panel; what it drew and what it asked for.
        fn pass(
            &self,
            settings: &mut Settings,
            events: Vec<egui::Event>,
        ) -> (Vec<egui::epaint::ClippedShape>, Vec<Action>) {
            let raw = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(1280.0, 800.0),
                )),
                events,
                ..Default::default()
            };
            let hud = Hud {
                fps: 60.0,
                solver_ms: None,
                stretch: None,
                counts: self.hud_counts,
                pins_held: true,
                adapter: "test",
                note: None,
                limits: None,
                help: &HELP,
            };
            let mut actions = Vec::new();
            let output = self.ctx.run_pass(raw, |ctx| {
                controls(ctx, settings, &hud, &mut actions);
            });
            (output.shapes, actions)
        }

        /// Clicks the middle of the text `label` as the last pass drew it; the pass after the
        /// release's result.
        fn click(&self, settings: &mut Settings, label: &str) -> Vec<Action> {
            // A new window sizes itself in a first, invisible pass.
            self.pass(settings, Vec::new());
            let (shapes, _) = self.pass(settings, Vec::new());
            let at =
                find_text(&shapes, label).unwrap_or_else(|| panic!("the panel shows no {label:?}"));
            let button = |pressed| egui::Event::PointerButton {
                pos: at,
                button: egui::PointerButton::Primary,
                pressed,
                modifiers: Default::default(),
            };
            self.pass(settings, vec![egui::Event::PointerMoved(at)]);
            self.pass(settings, vec![button(true)]);
            self.pass(settings, vec![button(false)]).1
        }
    }

    /// The middle of the first text shape reading `label`.
    fn find_text(shapes: &[egui::epaint::ClippedShape], label: &str) -> Option<egui::Pos2> {
        fn walk(shape: &egui::Shape, label: &str) -> Option<egui::Pos2> {
            match shape {
                egui::Shape::Text(t) if t.galley.text() == label => {
                    Some(t.galley.rect.translate(t.pos.to_vec2()).center())
                }
                egui::Shape::Vec(shapes) => shapes.iter().find_map(|s| walk(s, label)),
                _ => None,
            }
        }
        shapes.iter().find_map(|s| walk(&s.shape, label))
    }

    /// The panel the native demo and the web page share answers clicks: Pause pauses (and the
    /// button then reads Run), Reset asks for a reset, and picking another scene in the menu
    /// asks for a rebuild with that scene.
    #[test]
    fn the_panels_buttons_and_scene_menu_answer_clicks() {
        let panel = Headless::new();
        let mut s = Settings::new(DemoScene::Cloth, 16, 2, None);
        assert!(!s.paused);
        assert!(panel.click(&mut s, "Pause").is_empty());
        assert!(s.paused, "Pause pauses");
        panel.click(&mut s, "Run");
        assert!(!s.paused, "Run runs again");
        assert_eq!(panel.click(&mut s, "Reset"), vec![Action::Reset]);
        assert_eq!(
            panel.click(&mut s, "Unpin corners"),
            vec![Action::TogglePins]
        );
        panel.click(&mut s, DemoScene::Cloth.name());
        assert_eq!(
            panel.click(&mut s, DemoScene::Heap.name()),
            vec![Action::Rebuild]
        );
        assert_eq!(s.scene, DemoScene::Heap);
    }
}
