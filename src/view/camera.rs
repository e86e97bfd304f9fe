//! Orbit camera and mouse picking for the demo.

use glam::{Mat4, Vec2, Vec3, Vec4Swizzles};

/// A camera orbiting `target` at `distance`, `yaw` (about +y) and `pitch` (up from the horizon).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// Point looked at (m).
    pub target: Vec3,
    /// Angle about +y (rad); 0 looks along −z from +z.
    pub yaw: f32,
    /// Angle above the horizon (rad), kept inside ±89°.
    pub pitch: f32,
    /// Distance from the target (m), kept in [0.2, 50].
    pub distance: f32,
    /// Vertical field of view (rad).
    pub fov_y: f32,
}

const MAX_PITCH: f32 = 89.0 * std::f32::consts::PI / 180.0;

impl Default for OrbitCamera {
    fn default() -> Self {
        Self::from(crate::scenes::DemoView::DEFAULT)
    }
}

impl From<crate::scenes::DemoView> for OrbitCamera {
    fn from(v: crate::scenes::DemoView) -> Self {
        Self {
            target: v.target,
            yaw: v.yaw,
            pitch: v.pitch,
            distance: v.distance,
            fov_y: 45f32.to_radians(),
        }
    }
}

/// A ray from `origin` along the unit vector `dir`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Start (m).
    pub origin: Vec3,
    /// Unit direction.
    pub dir: Vec3,
}

impl Ray {
    /// The point at parameter `t`.
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }
}

impl OrbitCamera {
    /// Eye position (m).
    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + Vec3::new(sy * cp, sp, cy * cp) * self.distance
    }

    /// Unit vector from the eye to the target.
    pub fn forward(&self) -> Vec3 {
        (self.target - self.eye()).normalize()
    }

    /// World → view.
    pub fn view(&self) -> Mat4 {
        Mat4::look_at_rh(self.eye(), self.target, Vec3::Y)
    }

    /// View → clip for a viewport of `aspect` = width / height (wgpu depth range 0..1).
    pub fn projection(&self, aspect: f32) -> Mat4 {
        Mat4::perspective_rh(self.fov_y, aspect.max(1e-3), 0.01, 100.0)
    }

    /// World → clip.
    pub fn view_projection(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }

    /// Rotates by a mouse drag of `delta` pixels.
    pub fn orbit(&mut self, delta: Vec2) {
        self.yaw -= delta.x * 0.008;
        self.pitch = (self.pitch + delta.y * 0.008).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Zooms by `steps` wheel notches (positive = closer).
    pub fn zoom(&mut self, steps: f32) {
        self.scale_distance(0.9f32.powf(steps));
    }

    /// Multiplies the distance by `factor`, kept in [0.2, 50] m (the page's wheel gives a
    /// factor).
    pub fn scale_distance(&mut self, factor: f32) {
        self.distance = (self.distance * factor).clamp(0.2, 50.0);
    }

    /// The ray through the pixel `cursor` of a `size` viewport (pixels, origin top-left).
    pub fn ray(&self, cursor: Vec2, size: Vec2) -> Ray {
        let ndc = Vec2::new(2.0 * cursor.x / size.x - 1.0, 1.0 - 2.0 * cursor.y / size.y);
        self.ray_ndc(ndc, size.x / size.y)
    }

    /// The ray through `ndc` (normalized device coordinates, y up) of a viewport of `aspect`
    /// = width / height.
    pub fn ray_ndc(&self, ndc: Vec2, aspect: f32) -> Ray {
        let inv = self.view_projection(aspect).inverse();
        let near = inv * ndc.extend(0.0).extend(1.0);
        let far = inv * ndc.extend(1.0).extend(1.0);
        let (near, far) = (near.xyz() / near.w, far.xyz() / far.w);
        Ray {
            origin: near,
            dir: (far - near).normalize(),
        }
    }
}

/// The particle nearest the camera among those within `radius` of the ray, with its ray
/// parameter. `None` when the ray misses the cloth.
pub fn pick(ray: &Ray, positions: &[Vec3], radius: f32) -> Option<(usize, f32)> {
    let mut best: Option<(usize, f32)> = None;
    for (i, p) in positions.iter().enumerate() {
        let t = (*p - ray.origin).dot(ray.dir);
        if t <= 0.0 {
            continue;
        }
        let off = (*p - ray.at(t)).length();
        if off <= radius && best.is_none_or(|(_, bt)| t < bt) {
            best = Some((i, t));
        }
    }
    best
}

/// Where `ray` meets the plane through `point` with normal `normal`, if it does (in front).
pub fn ray_plane(ray: &Ray, point: Vec3, normal: Vec3) -> Option<Vec3> {
    let denom = ray.dir.dot(normal);
    if denom.abs() < 1e-6 {
        return None;
    }
    let t = (point - ray.origin).dot(normal) / denom;
    (t > 0.0).then(|| ray.at(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec3, b: Vec3, eps: f32) -> bool {
        (a - b).length() < eps
    }

    #[test]
    fn eye_is_at_distance_and_looks_at_target() {
        let c = OrbitCamera::default();
        assert!(((c.eye() - c.target).length() - c.distance).abs() < 1e-5);
        // The target projects to the centre of the screen.
        let clip = c.view_projection(16.0 / 9.0) * c.target.extend(1.0);
        assert!(clip.x.abs() / clip.w < 1e-5 && clip.y.abs() / clip.w < 1e-5);
        assert!(
            clip.z / clip.w > 0.0 && clip.z / clip.w < 1.0,
            "target inside depth range"
        );
    }

    #[test]
    fn centre_pixel_ray_points_at_target() {
        let c = OrbitCamera::default();
        let size = Vec2::new(1280.0, 720.0);
        let r = c.ray(size * 0.5, size);
        assert!(
            close(r.dir, c.forward(), 1e-4),
            "{:?} vs {:?}",
            r.dir,
            c.forward()
        );
        assert!((r.at((c.target - r.origin).length()) - c.target).length() < 1e-3);
    }

    #[test]
    fn ray_through_a_projected_point_hits_it() {
        let c = OrbitCamera {
            yaw: 1.1,
            pitch: -0.3,
            distance: 4.0,
            ..Default::default()
        };
        let size = Vec2::new(800.0, 600.0);
        let p = Vec3::new(0.3, 0.8, -0.2);
        let clip = c.view_projection(size.x / size.y) * p.extend(1.0);
        let ndc = clip.xyz() / clip.w;
        let pixel = Vec2::new((ndc.x + 1.0) * 0.5 * size.x, (1.0 - ndc.y) * 0.5 * size.y);
        let r = c.ray(pixel, size);
        let t = (p - r.origin).dot(r.dir);
        assert!((r.at(t) - p).length() < 1e-4);
    }

    #[test]
    fn orbit_clamps_pitch_and_zoom_clamps_distance() {
        let mut c = OrbitCamera::default();
        c.orbit(Vec2::new(0.0, 1.0e5));
        assert!(c.pitch <= MAX_PITCH);
        c.orbit(Vec2::new(0.0, -1.0e6));
        assert!(c.pitch >= -MAX_PITCH);
        c.zoom(1000.0);
        assert_eq!(c.distance, 0.2);
        c.zoom(-1000.0);
        assert_eq!(c.distance, 50.0);
        assert!(c.eye().is_finite());
    }

    #[test]
    fn pick_takes_the_nearest_particle_along_the_ray() {
        let ray = Ray {
            origin: Vec3::new(0.0, 0.0, 5.0),
            dir: -Vec3::Z,
        };
        let particles = [
            Vec3::new(0.0, 0.0, -1.0), // on the ray, far
            Vec3::new(0.01, 0.0, 1.0), // on the ray (within radius), near
            Vec3::new(0.0, 0.5, 2.0),  // off the ray
            Vec3::new(0.0, 0.0, 6.0),  // behind the camera
        ];
        assert_eq!(pick(&ray, &particles, 0.05).map(|p| p.0), Some(1));
        assert_eq!(pick(&ray, &particles[2..], 0.05), None);
    }

    #[test]
    fn ray_plane_meets_the_drag_plane() {
        let ray = Ray {
            origin: Vec3::new(0.0, 1.0, 3.0),
            dir: Vec3::new(0.0, 0.0, -1.0),
        };
        let hit = ray_plane(&ray, Vec3::ZERO, Vec3::Z).unwrap();
        assert!(close(hit, Vec3::new(0.0, 1.0, 0.0), 1e-6));
        assert!(ray_plane(&ray, Vec3::ZERO, Vec3::X).is_none(), "parallel");
        assert!(
            ray_plane(&ray, Vec3::new(0.0, 0.0, 5.0), Vec3::Z).is_none(),
            "behind"
        );
    }
}
