//! Multiple importance sampling over the strategies of bidirectional path tracing (Veach and
//! Guibas 1995, the power heuristic), in the two forms the bidirectional integrator needs:
//!
//! * `PathDensities` stores a whole path and computes a strategy's weight from the densities
//!   of all its vertices: the reference that tests hold the incremental form (and, through
//!   it, the GPU kernels) to.
//! * `SubpathMis` is what a subpath carries from vertex to vertex instead of its history: two
//!   scalars, updated after each segment (`arrive`) and each scattering (`scatter`), from which
//!   the weight of a connection or a light hit at the current vertex follows in a few
//!   operations (Georgiev 2012, "Implementing Vertex Connection and Merging", without the
//!   merging; van Antwerpen 2011). The wavefront kernels keep these two scalars per path.
//!
//! Conventions. A path of length k has vertices x_0 (on a light) to x_k (the camera). Strategy
//! s takes the first s vertices from the light subpath and the other t = k + 1 - s from the
//! camera subpath: s = 0 is a camera subpath that finds the light, s = 1 next-event estimation,
//! t = 1 a light vertex connected to the camera. Each vertex has the area density with which
//! the light subpath generates it (`from_light`, for x_0 the light choice times the point's
//! density) and the camera subpath generates it (`from_camera`, 1 for the pinhole camera); a
//! strategy's density is the product of the first s `from_light` and the last t
//! `from_camera`. At a vertex with a delta BSDF (a perfect mirror, smooth glass) no strategy
//! connects, and the densities of both directions there are the lobe's discrete probability,
//! which cancel. A punctual light cannot be found by a camera subpath (s = 0 is impossible),
//! and no camera can be found by a light subpath (t = 0 is never used).
//!
//! `light_paths` light subpaths are traced per camera subpath (1, or fewer where camera
//! subpaths share them): a light vertex connected to the camera lands anywhere on the image,
//! so the camera's density of the direction to it, over the whole image, counts every light
//! subpath's chance (`SubpathMis::leave_camera`).

/// The power heuristic's exponent, applied to every ratio of densities.
fn mis(ratio: f64) -> f64 {
    ratio * ratio
}

/// One vertex of a whole path, as the reference weights see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MisVertex {
    /// Area density of the vertex as the light subpath generates it.
    pub from_light: f64,
    /// Area density of the vertex as the camera subpath generates it.
    pub from_camera: f64,
    /// A delta BSDF here: no strategy connects at this vertex.
    pub delta: bool,
}

/// A whole path, light end first, with the densities of every vertex.
#[derive(Clone, Debug, PartialEq)]
pub struct PathDensities {
    pub vertices: Vec<MisVertex>,
    /// Whether a camera subpath can find the light vertex (an emissive surface; not a
    /// punctual light).
    pub light_hittable: bool,
}

impl PathDensities {
    /// Segments of the path (k).
    pub fn length(&self) -> usize {
        self.vertices.len().saturating_sub(1)
    }

    /// Whether strategy `s` can produce this path.
    pub fn is_possible(&self, s: usize) -> bool {
        let k = self.length();
        match s {
            0 => self.light_hittable,
            s if s > k => false,
            // The connection joins x_{s-1} and x_s; the light and the camera always connect.
            s => (s == 1 || !self.vertices[s - 1].delta) && (s == k || !self.vertices[s].delta),
        }
    }

    /// The density with which strategy `s` produces this path.
    pub fn density(&self, s: usize) -> f64 {
        let (light, camera) = self.vertices.split_at(s);
        light.iter().map(|v| v.from_light).product::<f64>() * camera.iter().map(|v| v.from_camera).product::<f64>()
    }

    /// The power heuristic's weight of strategy `s` for this path (0 where `s` cannot make
    /// it), from the densities of every strategy.
    pub fn weight(&self, s: usize) -> f64 {
        if !self.is_possible(s) {
            return 0.0;
        }
        let own = self.density(s);
        let sum: f64 = (0..=self.length())
            .filter(|&j| self.is_possible(j))
            .map(|j| mis(self.density(j) / own))
            .sum();
        1.0 / sum
    }
}

/// The two scalars a subpath carries for MIS (Georgiev's dVCM and dVC): at its current
/// vertex, `d_vcm` holds the share of the strategy that would end the other subpath one vertex
/// earlier, over this vertex's own density, and `d_vc` the shares of all the strategies before
/// that, each still missing the reverse density of this vertex's scattering, which is known
/// only once the direction of a connection is.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SubpathMis {
    pub d_vcm: f64,
    pub d_vc: f64,
}

impl SubpathMis {
    /// A light subpath leaving a point chosen with area density `position_pdf` (light choice
    /// included; the same density next-event estimation uses) in a direction of solid-angle
    /// density `direction_pdf`, at `cos_out` to the light's normal.
    ///
    /// A light at infinity (the environment, a directional light) is chosen by direction and
    /// starts on a disk across it (emission.glsl): there `position_pdf` is next-event
    /// estimation's density of the direction (per solid angle, or the choice probability of a
    /// directional light), `direction_pdf` the disk's density per unit area, `cos_out` 1, and
    /// the first `arrive` gets distance 1 (Georgiev's convention: no squared distance where the
    /// light has no position).
    pub fn leave_light(position_pdf: f64, direction_pdf: f64, cos_out: f64, hittable: bool) -> Self {
        Self {
            d_vcm: mis(1.0 / direction_pdf),
            d_vc: if hittable {
                mis(cos_out / (position_pdf * direction_pdf))
            } else {
                0.0
            },
        }
    }

    /// The light point itself as the end of a connection (next-event estimation, or a light
    /// point connected to the camera).
    pub fn at_light(position_pdf: f64, hittable: bool) -> Self {
        Self {
            d_vcm: if hittable { mis(1.0 / position_pdf) } else { 0.0 },
            d_vc: 0.0,
        }
    }

    /// A camera subpath leaving the camera in a direction of solid-angle density
    /// `direction_pdf` (over the whole image), with `light_paths` light subpaths traced per
    /// camera subpath.
    pub fn leave_camera(direction_pdf: f64, light_paths: f64) -> Self {
        Self {
            d_vcm: mis(light_paths / direction_pdf),
            d_vc: 0.0,
        }
    }

    /// After a segment of length `distance` that arrives at `cos_in` to the new vertex's normal.
    pub fn arrive(&mut self, distance: f64, cos_in: f64) {
        self.d_vcm *= mis(distance * distance / cos_in);
        self.d_vc /= mis(cos_in);
    }

    /// After scattering into a direction of solid-angle density `pdf`, at `cos_out` to the
    /// normal, whose reverse (the density of scattering back the way the subpath came, seen
    /// from the new direction) is `reverse_pdf`. A delta lobe's densities cancel, and the
    /// strategy that would connect here is impossible.
    pub fn scatter(&mut self, pdf: f64, reverse_pdf: f64, cos_out: f64, delta: bool) {
        if delta {
            self.d_vcm = 0.0;
            self.d_vc *= mis(cos_out);
        } else {
            self.d_vc = mis(cos_out / pdf) * (self.d_vcm + self.d_vc * mis(reverse_pdf));
            self.d_vcm = mis(1.0 / pdf);
        }
    }

    /// The sum of the shares of this subpath's side, for a connection whose other end would
    /// generate this vertex with area density `other_pdf`, and which would make this vertex
    /// scatter back along the subpath with solid-angle density `reverse_pdf`.
    fn side(&self, other_pdf: f64, reverse_pdf: f64) -> f64 {
        mis(other_pdf) * (self.d_vcm + self.d_vc * mis(reverse_pdf))
    }
}

/// What one end of a connection knows: its subpath's MIS state, the area density with which
/// the *other* end would generate this vertex, and the solid-angle density with which this
/// vertex would scatter back along its own subpath given the connection's direction.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionEnd {
    pub state: SubpathMis,
    pub pdf_from_other: f64,
    pub reverse_pdf: f64,
}

/// Weight of connecting a light subpath's end to a camera subpath's end (next-event
/// estimation when the light end is `SubpathMis::at_light`).
pub fn connection_weight(light: &ConnectionEnd, camera: &ConnectionEnd) -> f64 {
    let light_side = light.state.side(light.pdf_from_other, light.reverse_pdf);
    let camera_side = camera.state.side(camera.pdf_from_other, camera.reverse_pdf);
    1.0 / (light_side + 1.0 + camera_side)
}

/// Weight of connecting a light subpath's end to the camera (t = 1): no strategy has more
/// camera vertices than that.
pub fn camera_connection_weight(light: &ConnectionEnd) -> f64 {
    1.0 / (1.0 + light.state.side(light.pdf_from_other, light.reverse_pdf))
}

/// Weight of a camera subpath that has arrived on an emitter (s = 0), which next-event
/// estimation chooses with area density `position_pdf` and which emits along the path with
/// density `emission_pdf` (that times the solid-angle density of the direction).
pub fn light_hit_weight(camera: &SubpathMis, position_pdf: f64, emission_pdf: f64) -> f64 {
    1.0 / (1.0 + mis(position_pdf) * camera.d_vcm + mis(emission_pdf) * camera.d_vc)
}
