//! How next-event estimation chooses a light, set up for a scene: the flattened light array
//! (built once), then the selection structure of the chosen strategy, built on the GPU by one
//! dispatch (two for the flat CDF) that can be replayed whenever emission changes.

use crate::gpu::{Buffer, BufferUsage, CommandBuffer, Context, GpuError, GpuResult, Profiler};
use crate::interface::{
    GpuLightBvhNode, LIGHT_SELECTION_BVH, LIGHT_SELECTION_CDF, LIGHT_SELECTION_TREE, LIGHT_SELECTION_UNIFORM,
};
use crate::scene::{GpuScene, Scene};

use super::bvh::{reference, saoh, BvhKeys, BvhSources, LightBvh};
use super::culling::reference::without_ranged;
use super::emissive::{emissive_instances, emissive_triangle_count, EmissiveTriangles};
use super::flatten::LightFlattening;
use super::punctual::table_entries;
use super::tree::{Leaves, LightTree, MAX_LIGHTS};

/// The light-selection strategy (`LIGHT_SELECTION_*` in light_tree.glsl).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LightSelection {
    /// By importance at the shading point, descending the GPU-built light BVH (the default).
    #[default]
    Bvh,
    /// As `bvh`, with the tree built on the CPU by the surface-area-orientation heuristic:
    /// the quality reference for the GPU's build.
    CpuBvh,
    /// By power, walking the GPU-built subgroup-ary tree.
    Tree,
    /// By power, binary search of the flat CDF the GPU derives from the tree.
    Cdf,
    /// By power, binary search of a CDF summed on the CPU in float64: the reference.
    CpuCdf,
    /// Every light equally likely, as Mitsuba does.
    Uniform,
}

impl LightSelection {
    pub const ALL: [LightSelection; 6] = [
        Self::Bvh,
        Self::CpuBvh,
        Self::Tree,
        Self::Cdf,
        Self::CpuCdf,
        Self::Uniform,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::Bvh => "bvh",
            Self::CpuBvh => "cpu-bvh",
            Self::Tree => "tree",
            Self::Cdf => "cdf",
            Self::CpuCdf => "cpu-cdf",
            Self::Uniform => "uniform",
        }
    }

    /// The shaders' code for it.
    /// Whether point and spot lights are chosen inside the structure (the BVH's leaves)
    /// rather than beside it.
    pub fn holds_punctual_lights(self) -> bool {
        matches!(self, Self::Bvh | Self::CpuBvh)
    }

    /// The selection a render of `scene` uses when asked for this one. A light BVH whose
    /// leaves are all alike (the same bounds, orientation and power: the two triangles of an
    /// axis-aligned rectangle light) gives every light the same probability at every point, so
    /// uniform selection makes the same choices without the BVH's code in the kernels. The
    /// megakernel carries that code across every ray: it cost 10-17% of its speed on such
    /// scenes (docs/BENCHMARKS.md, "One flat light"). Punctual lights keep the BVH.
    pub fn for_scene(self, scene: &Scene) -> Self {
        let emissive_triangles = emissive_triangle_count(scene, &emissive_instances(scene));
        if self != Self::Bvh || !scene.lights.is_empty() || emissive_triangles > ALIKE_LIGHTS_CHECKED {
            return self;
        }
        let keys = BvhKeys::over(scene.bounds(), true);
        let leaves = reference::scene_leaves(scene, &[], &keys);
        let extent = keys.extent.max_element();
        match leaves.split_first() {
            Some((first, rest)) if rest.iter().all(|leaf| leaves_alike(first, leaf, extent)) => Self::Uniform,
            _ => self,
        }
    }

    pub fn code(self) -> u32 {
        match self {
            Self::Bvh | Self::CpuBvh => LIGHT_SELECTION_BVH,
            Self::Tree => LIGHT_SELECTION_TREE,
            Self::Cdf | Self::CpuCdf => LIGHT_SELECTION_CDF,
            Self::Uniform => LIGHT_SELECTION_UNIFORM,
        }
    }
}

impl std::str::FromStr for LightSelection {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|s| s.name() == text).ok_or_else(|| {
            let names: Vec<_> = Self::ALL.iter().map(|s| s.name()).collect();
            format!("unknown light selection '{text}' (one of: {})", names.join(", "))
        })
    }
}

/// Emissive triangles `LightSelection::for_scene` compares at most: scenes of many lights are
/// not made of identical ones, and their comparison would cost a pass over them at load.
const ALIKE_LIGHTS_CHECKED: u64 = 64;

/// Whether two light BVH leaves weigh the same at every point, but for float rounding in
/// computing them (`extent`: the scene's size, for positions).
fn leaves_alike(a: &GpuLightBvhNode, b: &GpuLightBvhNode, extent: f32) -> bool {
    let position = 1e-6 * extent;
    a.power > 0.0
        && (a.power - b.power).abs() <= 1e-5 * a.power
        && a.lower.abs_diff_eq(b.lower, position)
        && a.upper.abs_diff_eq(b.upper, position)
        && a.axis.dot(b.axis) >= 1.0 - 1e-6
        && (a.cos_theta_o - b.cos_theta_o).abs() <= 1e-6
        && (a.cos_theta_e - b.cos_theta_e).abs() <= 1e-6
}

/// What the kernels need to find and weigh lights (fields of `PassConstants`).
#[derive(Clone, Copy, Debug, Default)]
pub struct LightTables {
    pub map: u64,
    pub instance_light_offset: u64,
    pub tree: u64,
    pub cdf: u64,
    pub count: u32,
    pub selection: u32,
    pub arity: u32,
    pub bvh: u64,
    pub bvh_leaf_of: u64,
}

/// The light BVH, built on the GPU (replayed with the other builds) or on the CPU (fixed).
enum Bvh {
    Gpu {
        bvh: Box<LightBvh>,
        punctual_lights: Buffer,
    },
    Cpu(Box<UploadedTree>),
}

struct UploadedTree {
    nodes: Buffer,
    leaf_of: Buffer,
}

impl Bvh {
    /// `culled`: lights of finite range are chosen by light culling, so their leaves are dark.
    fn new(
        context: &Context,
        scene: &Scene,
        selection: LightSelection,
        triangles: u32,
        culled: bool,
    ) -> GpuResult<Option<Self>> {
        let punctual = scene.lights.len() as u32;
        if !selection.holds_punctual_lights() || triangles + punctual == 0 {
            return Ok(None);
        }
        let lights = if culled {
            without_ranged(&scene.lights)
        } else {
            scene.lights.clone()
        };
        let keys = BvhKeys::over(scene.bounds(), true);
        if selection == LightSelection::CpuBvh {
            let tree = saoh::build(&reference::scene_leaves(scene, &lights, &keys));
            let upload = |name: &str, words: &[u32]| Buffer::from_slice(context, name, words, BufferUsage::STORAGE);
            return Ok(Some(Self::Cpu(Box::new(UploadedTree {
                nodes: Buffer::from_slice(context, "light bvh nodes (cpu)", &tree.nodes, BufferUsage::STORAGE)?,
                leaf_of: upload("light bvh leaf of light (cpu)", &tree.leaf_of)?,
            }))));
        }
        Ok(Some(Self::Gpu {
            bvh: Box::new(LightBvh::new(context, triangles, punctual, keys)?),
            punctual_lights: Buffer::from_slice(
                context,
                "light bvh punctual lights",
                &table_entries(&lights),
                BufferUsage::STORAGE,
            )?,
        }))
    }

    fn addresses(&self) -> (u64, u64) {
        match self {
            Self::Gpu { bvh, .. } => (bvh.nodes().address(), bvh.leaf_of().address()),
            Self::Cpu(tree) => (tree.nodes.address(), tree.leaf_of.address()),
        }
    }
}

pub struct LightSampler {
    selection: LightSelection,
    flattening: LightFlattening,
    tree: Option<LightTree>,
    cpu_cdf: Option<Buffer>,
    bvh: Option<Bvh>,
    arity: u32,
}

impl LightSampler {
    /// `culled`: lights of finite range are chosen by light culling instead.
    pub fn new(
        context: &Context,
        scene: &Scene,
        gpu_scene: &GpuScene,
        selection: LightSelection,
        culled: bool,
    ) -> GpuResult<Self> {
        let emissive = emissive_instances(scene);
        let lights = emissive_triangle_count(scene, &emissive);
        if lights > MAX_LIGHTS {
            return Err(GpuError::InvalidUse {
                name: "lights".into(),
                problem: format!("{lights} emissive triangles; light selection takes at most {MAX_LIGHTS}"),
            });
        }
        let light_count = lights as u32;
        let flattening =
            LightFlattening::new(context, gpu_scene, scene.instances.len() as u32, &emissive, light_count)?;
        let tree = match selection {
            LightSelection::Tree | LightSelection::Cdf if light_count > 0 => {
                Some(LightTree::new(context, light_count, selection == LightSelection::Cdf)?)
            }
            _ => None,
        };
        let cpu_cdf = match selection {
            LightSelection::CpuCdf if light_count > 0 => {
                let cpu = EmissiveTriangles::build(scene);
                Some(Buffer::from_slice(
                    context,
                    "light cdf (cpu)",
                    &cpu.cdf_f32(),
                    BufferUsage::STORAGE,
                )?)
            }
            _ => None,
        };
        Ok(Self {
            selection,
            bvh: Bvh::new(context, scene, selection, light_count, culled)?,
            flattening,
            tree,
            cpu_cdf,
            arity: context.adapter().capabilities.subgroup_size,
        })
    }

    pub fn light_count(&self) -> u32 {
        self.flattening.light_count()
    }

    pub fn selection(&self) -> LightSelection {
        self.selection
    }

    pub fn tree(&self) -> Option<&LightTree> {
        self.tree.as_ref()
    }

    /// The GPU-built light BVH, when the selection uses it.
    pub fn bvh(&self) -> Option<&LightBvh> {
        match &self.bvh {
            Some(Bvh::Gpu { bvh, .. }) => Some(bvh),
            _ => None,
        }
    }

    pub fn flattening(&self) -> &LightFlattening {
        &self.flattening
    }

    /// Records the flattening (`light_flatten`): needed once, and again only when the set of
    /// emissive instances changes.
    pub fn record_flatten(&self, commands: &mut CommandBuffer, profiler: Option<&mut Profiler>) -> GpuResult<()> {
        if self.light_count() == 0 {
            return Ok(());
        }
        timed(commands, profiler, "light_flatten", &|commands| {
            self.flattening.record(commands)
        })
    }

    /// Records the selection structure's build from the current emission and transforms:
    /// the tree (`light_tree`, one dispatch) and, for the `cdf` selection, the down-sweep
    /// (`light_cdf`), or the light BVH (`light_bvh`, all its dispatches). This is all that a
    /// change of emission costs. Needs the flattening.
    pub fn record_build(
        &self,
        commands: &mut CommandBuffer,
        scene: &GpuScene,
        mut profiler: Option<&mut Profiler>,
    ) -> GpuResult<()> {
        if let Some(Bvh::Gpu { bvh, punctual_lights }) = &self.bvh {
            let sources = BvhSources {
                scene,
                map: &self.flattening.map,
                punctual_lights,
            };
            return timed_nested(commands, profiler, "light_bvh", &|commands, inner| {
                bvh.record_build(commands, &sources, inner)
            });
        }
        let Some(tree) = &self.tree else {
            return Ok(());
        };
        let leaves = Leaves::Triangles {
            scene,
            map: &self.flattening.map,
        };
        timed(commands, profiler.as_deref_mut(), "light_tree", &|commands| {
            tree.record_build(commands, &leaves)
        })?;
        if tree.cdf().is_some() {
            timed(commands, profiler, "light_cdf", &|commands| tree.record_cdf(commands))?;
        }
        Ok(())
    }

    /// Scopes `record_flatten` and `record_build` open, for sizing a profiler: the light
    /// BVH's build has one for each of its three steps inside its own.
    pub fn profiler_scopes(&self) -> u32 {
        3 + 3
    }

    pub fn tables(&self) -> LightTables {
        let (bvh, bvh_leaf_of) = self.bvh.as_ref().map_or((0, 0), Bvh::addresses);
        LightTables {
            bvh,
            bvh_leaf_of,
            map: self.flattening.map.address(),
            instance_light_offset: self.flattening.instance_light_offset.address(),
            tree: self.tree.as_ref().map_or(0, |t| t.tree().address()),
            cdf: self
                .tree
                .as_ref()
                .and_then(|t| t.cdf())
                .or(self.cpu_cdf.as_ref())
                .map_or(0, Buffer::address),
            count: self.light_count(),
            selection: self.selection.code(),
            arity: self.arity,
        }
    }
}

/// Records `record` inside a profiler scope (also a debug label), or a plain debug label.
pub(super) fn timed(
    commands: &mut CommandBuffer,
    profiler: Option<&mut Profiler>,
    name: &str,
    record: &dyn Fn(&mut CommandBuffer) -> GpuResult<()>,
) -> GpuResult<()> {
    timed_nested(commands, profiler, name, &|commands, _| record(commands))
}

/// As `timed`, lending the profiler to `record` for scopes of its own inside this one.
pub(super) fn timed_nested(
    commands: &mut CommandBuffer,
    profiler: Option<&mut Profiler>,
    name: &str,
    record: &dyn Fn(&mut CommandBuffer, Option<&mut Profiler>) -> GpuResult<()>,
) -> GpuResult<()> {
    match profiler {
        Some(profiler) => {
            let scope = profiler.begin(commands, name)?;
            record(commands, Some(&mut *profiler))?;
            profiler.end(commands, scope)
        }
        None => {
            commands.begin_label(name);
            record(commands, None)?;
            commands.end_label();
            Ok(())
        }
    }
}
