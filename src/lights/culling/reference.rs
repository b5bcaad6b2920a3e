//! The CPU side of light culling: which lights are culled (point and spot lights with a
//! range), their table as the kernels read it, the world grid's shape, and CPU twins of the
//! shaders' cell lookup and of "this light sends this point something", against which the
//! tests check that culling never leaves out a light that matters.

use glam::{UVec3, Vec2, Vec3};

use crate::interface::{GpuCullLight, GpuLightTile, LIGHT_CULLING_DEPTH_BINS, LIGHT_CULLING_TILE};
use crate::scene::{PunctualKind, PunctualLight, RenderCamera};

use super::super::emissive::luminance;

/// Point and spot lights with a finite positive range and some luminance: those that send
/// nothing beyond a sphere, which culling can leave out of the cells it does not touch.
pub fn is_ranged(light: &PunctualLight) -> bool {
    let ranged = matches!(light.range, Some(r) if r.is_finite() && r > 0.0);
    ranged && light.kind != PunctualKind::Directional && luminance(light.intensity) > 0.0
}

/// The ranged lights as the kernels read them, in the scene's order. `cones`: spot lights are
/// culled by their cone too, not only by their range sphere.
pub fn cull_lights(lights: &[PunctualLight], cones: bool) -> Vec<GpuCullLight> {
    lights
        .iter()
        .enumerate()
        .filter(|(_, light)| is_ranged(light))
        .map(|(index, light)| {
            let (cos_inner, cos_outer, cone) = match light.kind {
                PunctualKind::Spot { inner, outer } => (inner.cos(), outer.cos(), u32::from(cones)),
                _ => (-3.0, -3.0, 0),
            };
            GpuCullLight {
                position: light.position,
                range: light.range.unwrap_or(0.0),
                axis: light.direction,
                cos_outer,
                cos_inner,
                weight: luminance(light.intensity),
                punctual: index as u32,
                cone,
            }
        })
        .collect()
}

/// The scene's lights with the ranged ones dark: what the global light choice holds when
/// culling chooses those.
pub fn without_ranged(lights: &[PunctualLight]) -> Vec<PunctualLight> {
    lights
        .iter()
        .map(|light| {
            let mut light = light.clone();
            if is_ranged(&light) {
                light.intensity = Vec3::ZERO;
            }
            light
        })
        .collect()
}

/// How far past its range a light still counts for a cell: more than the two offsets (one
/// surface epsilon each, surface.glsl's offset_epsilon) between the point whose cell is looked
/// up and the shadow ray's origin, so rounding at a cell's border never drops a light.
pub fn margin(bounds: Option<(Vec3, Vec3)>) -> f32 {
    let largest = bounds.map_or(1.0, |(lo, hi)| lo.abs().max(hi.abs()).max_element());
    2.5e-4 * largest.max(1.0)
}

/// The world grid over the scene's bounds: cells of equal size, about `cells` of them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CullGrid {
    pub lower: Vec3,
    /// Cells per unit length on each axis.
    pub scale: Vec3,
    pub dims: UVec3,
}

impl CullGrid {
    pub fn over(bounds: Option<(Vec3, Vec3)>, margin: f32, cells: u32) -> Self {
        let (lo, hi) = bounds.unwrap_or((Vec3::ZERO, Vec3::ONE));
        let lower = lo - Vec3::splat(margin);
        let extent = (hi - lo + Vec3::splat(2.0 * margin)).max(Vec3::splat(1e-6));
        let mut side = (extent.x * extent.y * extent.z / cells.max(1) as f32).cbrt();
        let dims_for = |side: f32| (extent / side).ceil().clamp(Vec3::ONE, Vec3::splat(1024.0)).as_uvec3();
        // Flat scenes: an axis shorter than a cell takes one, and the others grow until the
        // count is near the target.
        while dims_for(side).element_product() > 2 * cells.max(1) {
            side *= 1.25;
        }
        let dims = dims_for(side);
        Self {
            lower,
            scale: dims.as_vec3() / extent,
            dims,
        }
    }

    pub fn cells(&self) -> u32 {
        self.dims.element_product()
    }

    /// The grid's part of light_culling.glsl's light_cell: the cell around `p`, flattened,
    /// or `None` outside the grid.
    pub fn cell_of(&self, p: Vec3) -> Option<u32> {
        let g = ((p - self.lower) * self.scale).floor();
        if !(g.cmpge(Vec3::ZERO).all() && g.cmplt(self.dims.as_vec3()).all()) {
            return None;
        }
        let g = g.as_uvec3();
        Some((g.z * self.dims.y + g.y) * self.dims.x + g.x)
    }

    /// A cell's box.
    pub fn cell_box(&self, cell: u32) -> (Vec3, Vec3) {
        let g = UVec3::new(
            cell % self.dims.x,
            (cell / self.dims.x) % self.dims.y,
            cell / (self.dims.x * self.dims.y),
        );
        (
            self.lower + g.as_vec3() / self.scale,
            self.lower + (g + UVec3::ONE).as_vec3() / self.scale,
        )
    }
}

/// Screen tiles over an image.
pub fn tiles(width: u32, height: u32) -> (u32, u32) {
    (width.div_ceil(LIGHT_CULLING_TILE), height.div_ceil(LIGHT_CULLING_TILE))
}

/// light_culling.glsl's light_tile_bin.
pub fn tile_bin(tile: &GpuLightTile, z: f32) -> u32 {
    let extent = tile.z_max - tile.z_min;
    if extent.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return 0;
    }
    let bin = ((z - tile.z_min) / extent * LIGHT_CULLING_DEPTH_BINS as f32).floor();
    bin.clamp(0.0, (LIGHT_CULLING_DEPTH_BINS - 1) as f32) as u32
}

/// Where `p` lies on the image (pixels) and its view depth, as light_cell computes them.
pub fn project(camera: &RenderCamera, width: u32, height: u32, p: Vec3) -> (Vec2, f32) {
    let d = p - camera.origin;
    let z = d.dot(camera.forward);
    let w = if camera.orthographic { 1.0 } else { z };
    let image = Vec2::new(
        (d.dot(camera.right) / w / (camera.half_height * camera.aspect) + 1.0) * 0.5 * width as f32,
        (1.0 - d.dot(camera.up) / w / camera.half_height) * 0.5 * height as f32,
    );
    (image, z)
}

/// light_culling.glsl's light_cell: the tile `p` projects into when its depth is in a slice
/// of the tile's mask, else its grid cell (numbered after the tiles); `None` outside the grid.
pub fn cell_of(
    camera: &RenderCamera,
    (width, height): (u32, u32),
    tiles_bounds: &[GpuLightTile],
    grid: &CullGrid,
    p: Vec3,
) -> Option<u32> {
    let (tiles_x, _) = tiles(width, height);
    let (image, z) = project(camera, width, height, p);
    if !tiles_bounds.is_empty() && (z > 0.0 || camera.orthographic) {
        let inside = image.x >= 0.0 && image.y >= 0.0 && image.x < width as f32 && image.y < height as f32;
        if inside {
            let tile = (image.y as u32 / LIGHT_CULLING_TILE) * tiles_x + image.x as u32 / LIGHT_CULLING_TILE;
            let bounds = &tiles_bounds[tile as usize];
            if z >= bounds.z_min && z <= bounds.z_max && (bounds.mask >> tile_bin(bounds, z)) & 1 != 0 {
                return Some(tile);
            }
        }
    }
    grid.cell_of(p).map(|cell| tiles_bounds.len() as u32 + cell)
}

/// Whether `light` sends point `p` anything: inside its range and, for a spot light, inside
/// its outer cone (light_segment's falloff is positive exactly there).
pub fn reaches(light: &GpuCullLight, p: Vec3) -> bool {
    let to_point = p - light.position;
    let distance = to_point.length();
    if !(distance > 0.0 && distance < light.range) {
        return false;
    }
    light.cos_outer < -1.0 || light.axis.dot(to_point / distance) > light.cos_outer
}
